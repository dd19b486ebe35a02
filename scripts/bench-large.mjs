#!/usr/bin/env node
/**
 * A 10,000-webhook configuration in the built app: keystroke in the YAML pane →
 * problems updated; form rename → YAML text updated; reload → first form. Prints medians.
 * Run by `npm run bench` (Chromium part) or alone after `npm run build`:
 * `node scripts/bench-large.mjs [--webhooks N] [--runs N] [--port P]`.
 */
import { spawn } from 'node:child_process';
import { chromium } from '@playwright/test';
import { formProbe } from './bench-probes.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const WEBHOOKS = arg('--webhooks', 10_000);
const RUNS = arg('--runs', 9);
const port = arg('--port', 4192);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The configuration as a user's file: block YAML, one webhook after another. */
function configuration(n) {
  const lines = ['apiVersion: admissionregistration.k8s.io/v1', 'kind: ValidatingWebhookConfiguration', 'metadata:', '  name: bench', 'webhooks:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `- name: w${i}.bench.example.com`,
      '  clientConfig:',
      '    service: {namespace: ns, name: svc, path: /validate}',
      '  rules:',
      '  - operations: [CREATE, UPDATE]',
      "    apiGroups: ['']",
      '    apiVersions: [v1]',
      '    resources: [pods, pods/status]',
      '  namespaceSelector:',
      '    matchExpressions:',
      '    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}',
      '  sideEffects: None',
      '  timeoutSeconds: 5',
      '  admissionReviewVersions: [v1]',
      '  matchConditions:',
      '  - name: not-system',
      '    expression: "!request.userInfo.username.startsWith(\'system:\')"',
    );
  return lines.join('\n') + '\n';
}

/** Progress on stderr (a slow step on a loaded machine shows where it is). */
const step = (what) => process.stderr.write(`bench-large ${new Date().toISOString().slice(11, 19)} ${what}\n`);

/**
 * Wait in the page for `__done` (set up by the caller), at most `ms`: a probe that never sees its
 * change fails with what the page showed instead of waiting for ever.
 */
async function measured(page, what, ms) {
  const r = await page.evaluate(async (ms) => {
    const timeout = new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
    const at = await Promise.race([window.__done, timeout]);
    return at === undefined ? { timedOut: true, seen: window.__seen?.() } : { ms: at - window.__t0, longest: Math.max(0, ...window.__long) };
  }, ms);
  if (r.timedOut) throw new Error(`bench-large: ${what} did not happen within ${ms / 1000} s (${JSON.stringify(r.seen)})`);
  return r;
}

export async function benchLarge(browser, url, { webhooks = WEBHOOKS, runs = RUNS, timeoutMs = 60_000 } = {}) {
  const text = configuration(webhooks);
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs * 2);
  page.on('pageerror', (e) => step(`page error: ${e.message}`));
  step(`open ${url}`);
  await page.goto(url);
  await page.waitForSelector('form [data-path="metadata.name"]');
  await page.locator('[data-testid="new-workspace"]').click();
  step(`import ${webhooks} webhooks (${(text.length / 1e6).toFixed(1)} MB)`);
  await page.locator('[data-testid="file-input"]').setInputFiles({ name: 'large.yaml', mimeType: 'application/yaml', buffer: Buffer.from(text) });
  // The form's list of webhooks is virtualised (only the elements near the view are rendered): its count says all are there.
  await page.waitForSelector('form .list-item[data-path="webhooks[0]"]');
  await page.waitForFunction((n) => document.querySelector('form section.list[data-path="webhooks"] .count')?.textContent === String(n), webhooks);
  step('form rendered; waiting for the CEL engine and the YAML pane');
  await page.waitForSelector('[data-testid="cel-status"].ready');
  await page.waitForSelector('.yaml-pane .monaco-editor .view-line');
  await page.waitForTimeout(3000);
  const out = { webhooks, megabytes: text.length / 1e6, keystroke: [], longest: [], rename: [], reload: [], reloadProblems: [] };

  try {
    // Long tasks while measuring.
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
    });

    // Keystroke in the YAML pane: `timeoutSeconds: 5` of the first webhook becomes 55 (invalid) and back.
    const line = page.locator('.yaml-pane .view-line', { hasText: 'timeoutSeconds: 5' }).first();
    await line.click();
    await page.keyboard.press('End');
    for (let i = 0; i < runs * 2; i++) {
      step(`keystroke ${i + 1}/${runs * 2}`);
      await page.evaluate(() => {
        // The count is looked up again at every change: a re-render may replace the element.
        const count = () => document.querySelector('[data-testid="problem-count"]')?.textContent;
        const before = count();
        window.__seen = () => ({ before, now: count(), line: document.querySelector('.yaml-pane .view-line .mtk1')?.textContent });
        window.__done = new Promise((resolve) => {
          const o = new MutationObserver(() => {
            const now = count();
            if (now === before || now === undefined || now === 'checking…') return;
            o.disconnect();
            resolve(performance.now());
          });
          o.observe(document.querySelector('section.problems')?.parentElement ?? document.body, { childList: true, subtree: true, characterData: true });
        });
        window.__long.length = 0;
        document.addEventListener('keydown', () => (window.__t0 = performance.now()), { capture: true, once: true });
      });
      await page.keyboard.press(i % 2 ? 'Backspace' : '5');
      const r = await measured(page, `the problem count's change after keystroke ${i + 1}`, timeoutMs);
      out.keystroke.push(r.ms);
      out.longest.push(r.longest);
      await page.waitForTimeout(400);
    }

    // Form rename → the YAML pane shows the new name.
    for (let i = 0; i < runs; i++) {
      step(`rename ${i + 1}/${runs}`);
      await page.evaluate((name) => {
        const input = document.querySelector('form input[data-path="metadata.name"]');
        const lines = document.querySelector('.yaml-pane .view-lines');
        // Monaco renders spaces as no-break spaces.
        const shown = () => lines.textContent.replace(/\u00a0/g, ' ');
        window.__seen = () => ({ name, top: shown().slice(0, 200) });
        window.__long.length = 0;
        window.__t0 = performance.now();
        window.__done = new Promise((resolve) => {
          const check = () => shown().includes(`name: ${name}`);
          const o = new MutationObserver(() => check() && (o.disconnect(), resolve(performance.now())));
          o.observe(lines, { childList: true, subtree: true, characterData: true });
        });
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, name);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }, `bench-${i}`);
      out.rename.push((await measured(page, `the YAML pane showing rename ${i + 1}`, timeoutMs)).ms);
      await page.waitForTimeout(400);
    }

    // Reload → first form (the workspace restored from the autosave), and its problems.
    await page.waitForTimeout(2000);
    for (let i = 0; i < Math.max(3, Math.ceil(runs / 3)); i++) {
      step(`reload ${i + 1}`);
      if (i === 0) await page.addInitScript(formProbe, false);
      await page.reload();
      await page.waitForFunction(() => window.__formAt !== undefined && window.__checkedAt !== undefined, null, { timeout: timeoutMs * 2 });
      const t = await page.evaluate(() => [window.__formAt, window.__checkedAt]);
      out.reload.push(t[0]);
      out.reloadProblems.push(t[1]);
    }
  } catch (e) {
    // What was measured before the failure is still worth printing.
    e.partial = out;
    throw e;
  } finally {
    await context.close();
  }
  return out;
}

export function printLarge(r) {
  const f = (xs) => (xs.length === 0 ? 'not measured' : `median ${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`${r.webhooks.toLocaleString('en')} webhooks (${r.megabytes.toFixed(1)} MB of YAML, one document):`);
  console.log(`  YAML keystroke → problems updated: ${f(r.keystroke)} (target ≤ 100 ms); longest task in it ${f(r.longest)} (target ≤ 50 ms)`);
  console.log(`  form rename → YAML text updated: ${f(r.rename)} (target ≤ 100 ms)`);
  console.log(`  reload → first form ${f(r.reload)}; its problems ${f(r.reloadProblems)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = spawn('node', ['scripts/serve.mjs', '--port', String(port), '--base', '/bench/'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  const stop = async () => {
    await browser.close().catch(() => {});
    server.kill();
  };
  // Stopped from outside (timeout, Ctrl+C): leave no browser or server behind.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => stop().then(() => process.exit(130)));
  try {
    printLarge(await benchLarge(browser, `http://127.0.0.1:${port}/bench/`));
  } catch (e) {
    if (e.partial) printLarge(e.partial);
    console.error(e.message);
    process.exitCode = 1;
  } finally {
    await stop();
  }
}
