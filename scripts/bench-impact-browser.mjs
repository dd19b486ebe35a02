/**
 * The Impact view on a generated audit log (issue #29: "the browser finishes the same log without
 * the tab exceeding 1 GB and with input latency < 100 ms during the run"). Used by scripts/bench.mjs
 * (`npm run bench -- --chromium`); runs alone too: `node scripts/bench-impact-browser.mjs` serves
 * dist/ (build first) and starts its own Chromium.
 *
 * The candidate (scripts/impact-fixture.mjs: 20 policies, 10 webhooks) is the workspace; the log
 * (BENCH_IMPACT_BROWSER_EVENTS pod creates, default 20,000; the row is 200,000) is written
 * gzip to a file and given to the file input by its path. During the run:
 *  - memory: the resident set of the tab's renderer process (the page and its workers live there),
 *    sampled every 250 ms from /proc (Linux), and the page's JS heap (CDP Performance.getMetrics);
 *  - input latency: a key press every 200 ms, each timed by the page from the event's timestamp
 *    to the next frame (the queueing behind a busy main thread included), and the Event Timing
 *    API's durations; the longest main-thread task (PerformanceObserver longtask);
 *  - events/s from Analyze to the headline, beside the floor: the same file read in the page
 *    (DecompressionStream + split + JSON.parse).
 * BENCH_IMPACT_CORES=N makes the page believe it has N cores (N − 1 decider workers, at most 8).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { candidateDocs, writeAuditLog } from './impact-fixture.mjs';

const EVENTS = Number(process.env.BENCH_IMPACT_BROWSER_EVENTS ?? 20_000);

/** Pids of the renderer processes under the browser whose command line names `marker`. */
function renderers(marker) {
  const procs = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      procs.push({ pid: Number(d), ppid, cmd });
    } catch {
      // gone
    }
  }
  const root = procs.find((p) => p.cmd.includes(marker) && !p.cmd.includes('--type='));
  if (!root) return [];
  const under = new Set([root.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) if (!under.has(p.pid) && under.has(p.ppid)) (under.add(p.pid), (grew = true));
  }
  return procs.filter((p) => under.has(p.pid) && p.cmd.includes('--type=renderer')).map((p) => p.pid);
}

const rssOf = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return 0;
  }
};

/** The Impact view's run in `context` (a persistent context whose user-data-dir is `marker`) of the app at `url`. */
export async function benchImpactBrowser(context, url, marker, events = EVENTS) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-impact-browser-'));
  try {
    const log = join(dir, 'audit.log.gz');
    const rawBytes = await writeAuditLog(log, events);
    const page = await context.newPage();
    // BENCH_IMPACT_CORES: the cores the page believes it has (the decider workers it starts), to read the memory of more workers than this machine has cores
    if (process.env.BENCH_IMPACT_CORES) await page.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), Number(process.env.BENCH_IMPACT_CORES));
    await page.goto(url);
    await page.waitForSelector('form [data-path="metadata.name"]');
    const docs = candidateDocs().map((o, i) => ({ id: `d${i}`, text: JSON.stringify(o, null, 1) }));
    await page.evaluate((docs) => localStorage.setItem('admission-workbench/workspace/v1', JSON.stringify({ version: 1, selectedId: 'd0', docs })), docs);
    await page.reload();
    await page.waitForSelector('[data-testid="cel-status"].ready', { timeout: 120_000 });
    await page.locator('nav.views button[data-view="impact"]').click();
    await page.getByTestId('impact-audit-input').setInputFiles(log);

    // the floor: the same file read in the page, nothing else
    const floor = await page.evaluate(async () => {
      const file = document.querySelector('[data-testid="impact-audit-input"]').files[0];
      const t0 = performance.now();
      const reader = file.stream().pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      let n = 0;
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const lines = (rest + r.value).split('\n');
        rest = lines.pop();
        for (const l of lines) if (l) (JSON.parse(l), n++);
      }
      return n / ((performance.now() - t0) / 1000);
    });

    // input latency probes, in the page before the run
    await page.evaluate(() => {
      const w = window;
      w.__lat = [];
      w.__eventTiming = [];
      w.__longest = 0;
      w.__tasks = [];
      addEventListener('keydown', (e) => {
        const t = e.timeStamp;
        requestAnimationFrame(() => w.__lat.push([Math.round(t), performance.now() - t]));
      });
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) (w.__longest = Math.max(w.__longest, e.duration)), w.__tasks.push([Math.round(e.startTime), Math.round(e.duration)]);
      }).observe({ type: 'longtask' });
      try {
        new PerformanceObserver((l) => {
          for (const e of l.getEntries()) if (e.name === 'keydown') w.__eventTiming.push(e.duration);
        }).observe({ type: 'event', durationThreshold: 16 });
      } catch {
        // no Event Timing
      }
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    let peakRss = 0;
    let peakHeap = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rss = Math.max(0, ...renderers(marker).map(rssOf));
        peakRss = Math.max(peakRss, rss);
        const m = await cdp.send('Performance.getMetrics').catch(() => ({ metrics: [] }));
        peakHeap = Math.max(peakHeap, m.metrics.find((x) => x.name === 'JSHeapTotalSize')?.value ?? 0);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const before = Math.max(0, ...renderers(marker).map(rssOf));
    const t0 = Date.now();
    const clickAt = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Analyze' }).click();
    const headline = page.getByTestId('impact-headline');
    let presses = 0;
    while (!(await headline.isVisible())) {
      // a key the page ignores (no control has focus that types), timed by the probe
      await page.keyboard.press('Shift');
      presses++;
      await new Promise((r) => setTimeout(r, 200));
    }
    const ms = Date.now() - t0;
    sampling = false;
    await sampler;
    const text = await headline.textContent();
    const probe = await page.evaluate(() => ({ lat: window.__lat.map((x) => x[1]), latAt: window.__lat, tasks: window.__tasks, eventTiming: window.__eventTiming, longest: window.__longest }));
    const doneAt = clickAt + ms;
    if (process.env.BENCH_VERBOSE) console.log(JSON.stringify({ clickAt: Math.round(clickAt), doneAt: Math.round(doneAt), tasks: probe.tasks, slow: probe.latAt.filter((x) => x[1] > 50) }));
    const deciders = await page.evaluate(() => Math.min(8, Math.max(1, (navigator.hardwareConcurrency || 2) - 1)));
    await page.close();
    return { events, rawBytes, ms, rate: events / (ms / 1000), floor, before, peakRss, peakHeap, presses, ...probe, deciders, headline: text };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;

export function printImpactBrowser(r) {
  const max = Math.max(0, ...r.lat);
  const et = r.eventTiming.length ? `, Event Timing keydown durations ≥ 16 ms: ${r.eventTiming.length} (max ${Math.max(...r.eventTiming).toFixed(0)} ms)` : ', no Event Timing keydown ≥ 16 ms';
  console.log(
    `Impact view, audit log of ${r.events.toLocaleString()} pod creates (gzip, ${mb(r.rawBytes)} uncompressed), 20 policies + 10 webhooks, ${r.deciders} decider workers: ${r.rate.toFixed(0)} events/s from Analyze to the headline (${(r.ms / 1000).toFixed(1)} s, engines' start included); floor in the page (DecompressionStream + split + JSON.parse): ${r.floor.toFixed(0)} events/s`,
  );
  console.log(`  tab's renderer process: peak RSS ${mb(r.peakRss)} (${mb(r.before)} before Analyze; target ≤ 1 GB), page JS heap peak ${mb(r.peakHeap)}`);
  console.log(`  input latency during the run (key press → next frame, ${r.lat.length} of ${r.presses} presses): median ${median(r.lat).toFixed(0)} ms, max ${max.toFixed(0)} ms (target < 100 ms); longest main-thread task ${r.longest.toFixed(0)} ms${et}`);
  console.log(`  ${r.headline}`);
}

// Alone: serve dist/ and start a Chromium of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!existsSync('dist/index.html')) throw new Error('build first: npm run build');
  const { chromium } = await import('@playwright/test');
  const port = Number(process.env.BENCH_PORT ?? 4191);
  const server = spawn('node', ['scripts/serve.mjs', '--port', String(port), '--base', '/bench/'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  const profile = mkdtempSync(join(tmpdir(), 'bench-impact-profile-'));
  writeFileSync(join(profile, '.keep'), '');
  const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
  try {
    printImpactBrowser(await benchImpactBrowser(context, `http://127.0.0.1:${port}/bench/`, profile));
  } finally {
    await context.close();
    server.kill();
    rmSync(profile, { recursive: true, force: true });
  }
}
