/**
 * The Impact view on a generated audit log (targets: the browser finishes the same log as the CLI
 * without the tab exceeding 1 GB, and with input latency < 100 ms during the run). Used by scripts/bench.mjs
 * (`npm run bench -- --chromium`); runs alone too: `node scripts/bench-impact-browser.mjs` serves
 * dist/ (build first) and starts its own Chromium.
 *
 * The candidate (scripts/impact-fixture.mjs: 20 policies, 10 webhooks) is the workspace; the log
 * (BENCH_IMPACT_BROWSER_EVENTS pod creates of ~3.7 KB each, default 200,000, ~700 MB;
 * ~2.5 minutes on 2 cores) is written gzip to a file and given to the file input by its path. During the run:
 *  - memory: the resident set of the tab's renderer process (the page and its workers live there),
 *    sampled every 250 ms from /proc (Linux), and the page's JS heap (CDP Performance.getMetrics);
 *  - input latency: a key press every 200 ms, each timed by the page from the event's timestamp
 *    to the next frame (the queueing behind a busy main thread included): median, p99, the worst
 *    and when (start and end: the first and last 5 % of the run, at least 5 s each; steady
 *    between), the Event Timing API's durations, the main thread's long tasks and the long
 *    animation frames' scripts (what a slow frame spent its time on);
 *  - events/s from Analyze to the headline, beside the floor: the same file read in the page
 *    (DecompressionStream + split + JSON.parse).
 * BENCH_IMPACT_BROWSER_LOG=realistic (alone; `npm run bench` runs both): the realistic log instead
 * (scripts/impact-realistic.mjs, as bench-impact.mjs's realistic rows: a genuine apiserver log cloned
 * to BENCH_IMPACT_BROWSER_REALISTIC_EVENTS events, default 20,000; the snapshot before it opened, the
 * webhook answers file opened, the candidate replacing the cluster's chain, existing objects not
 * judged): the share of events that change outcome is read from the report's JSON export.
 * BENCH_DIST serves another build than dist/ (alone only: the same probe on main's build).
 * BENCH_IMPACT_CORES=N makes the page believe it has N cores (N − 1 decider workers, at most 8).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { candidateDocs, writeAuditLog } from './impact-fixture.mjs';
import { changedShare, realisticCandidate, snapshotBefore, webhookAnswers, writeRealisticLog } from './impact-realistic.mjs';

const EVENTS = Number(process.env.BENCH_IMPACT_BROWSER_EVENTS ?? 200_000);
export const REALISTIC_EVENTS = Number(process.env.BENCH_IMPACT_BROWSER_REALISTIC_EVENTS ?? 20_000);

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
    for (const p of procs) if (!under.has(p.pid) && under.has(p.ppid)) under.add(p.pid), (grew = true);
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

/**
 * The tab's memory: the resident set of the largest renderer process. The page and its dedicated
 * workers (the replay's, the deciders') live in one renderer; the others are small (the first
 * blank tab, Chromium's spare renderer), and which one the tab takes is Chromium's choice.
 */
const tabRss = (marker) => Math.max(0, ...renderers(marker).map(rssOf));

/** The tab's renderer process (the largest). */
const tabPid = (marker) => renderers(marker).reduce((a, pid) => (rssOf(pid) > (a ? rssOf(a) : -1) ? pid : a), undefined);

/** CPU seconds (user + sys) of each thread of the renderer `pid`: tid → [name, seconds]. */
function threadCpu(pid) {
  const out = new Map();
  if (!pid) return out;
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), [readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), (Number(f[11]) + Number(f[12])) / 100]);
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * The CPU the run cost the tab's threads, from the readings before and during it (a worker's
 * thread ends with the run: its last reading counts): the page's main thread (the process's own
 * id), the dedicated workers (the app's engine worker among them), the rest. Separates the
 * page's own work from its waiting for a core, which a frame's duration does not.
 */
function runCpu(pid, before, seen) {
  const out = { main: 0, workers: [], other: 0 };
  for (const [tid, [name, cpu]] of seen) {
    const d = cpu - (before.get(tid)?.[1] ?? 0);
    if (tid === pid) out.main += d;
    else if (/DedicatedWorker/i.test(name)) out.workers.push(d);
    else out.other += d;
  }
  out.workers = out.workers.filter((w) => w >= 0.05).sort((a, b) => b - a);
  return out;
}

/**
 * BENCH_IMPACT_WARN_ALL: a policy that warns on every pod joins the candidate, so every event is
 * a changed one (newly warned) and the page keeps each one's result: the memory of the compact
 * per-event results at their largest.
 */
const WARN_ALL = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'warn-all' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: 'false', message: 'every pod' }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'warn-all' },
    spec: { policyName: 'warn-all', validationActions: ['Warn'] },
  },
];

/**
 * The Impact view's run in `context` (a persistent context whose user-data-dir is `marker`) of the
 * app at `url`, on the pod creates' log or (`realistic`) the realistic one.
 */
export async function benchImpactBrowser(context, url, marker, events = EVENTS, { realistic = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-impact-browser-'));
  try {
    const log = join(dir, 'audit.log.gz');
    const rawBytes = realistic ? (await writeRealisticLog(log, events)).bytes : await writeAuditLog(log, events);
    const json = (name, value) => (writeFileSync(join(dir, name), JSON.stringify(value)), join(dir, name));
    const page = await context.newPage();
    // BENCH_IMPACT_CORES: the cores the page believes it has (the decider workers it starts), to read the memory of more workers than this machine has cores
    if (process.env.BENCH_IMPACT_CORES)
      await page.addInitScript(
        (n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }),
        Number(process.env.BENCH_IMPACT_CORES),
      );
    await page.goto(url);
    await page.waitForSelector('form [data-path="metadata.name"]');
    const candidate = realistic ? realisticCandidate() : [...candidateDocs(), ...(process.env.BENCH_IMPACT_WARN_ALL ? WARN_ALL : [])];
    const docs = candidate.map((o, i) => ({
      id: `d${i}`,
      text: JSON.stringify(o, null, 1),
    }));
    await page.evaluate((docs) => localStorage.setItem('admission-workbench/workspace/v1', JSON.stringify({ version: 1, selectedId: 'd0', docs })), docs);
    await page.reload();
    await page.waitForSelector('[data-testid="cel-status"].ready', { timeout: 120_000 });
    await page.locator('nav.views button[data-view="impact"]').click();
    await page.getByTestId('impact-audit-input').setInputFiles(log);
    if (realistic) {
      // as bench-impact.mjs's realistic rows: --cluster before, --webhook-answers, --candidate replace, --no-existing
      await page.getByTestId('impact-snapshot-input').setInputFiles(json('realistic-before.json', snapshotBefore(events)));
      await page.getByTestId('impact-answers-input').setInputFiles(json('realistic-answers.json', webhookAnswers()));
      await page.getByLabel("replace: the workspace's alone").check();
      await page.getByLabel('judge existing objects (as a CREATE now)').uncheck();
    }

    // the floor: the same file read in the page, nothing else (from an input of its own: the view's empties itself once it has taken the file)
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('input'), { type: 'file', id: 'bench-floor-file', hidden: true })));
    await page.setInputFiles('#bench-floor-file', log);
    const floor = await page.evaluate(async () => {
      const file = document.getElementById('bench-floor-file').files[0];
      const t0 = performance.now();
      const reader = file.stream().pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      let n = 0;
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const lines = (rest + r.value).split('\n');
        rest = lines.pop();
        for (const l of lines) if (l) JSON.parse(l), n++;
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
      w.__frames = [];
      addEventListener('keydown', (e) => {
        const t = e.timeStamp;
        requestAnimationFrame(() => w.__lat.push([Math.round(t), performance.now() - t]));
      });
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) (w.__longest = Math.max(w.__longest, e.duration)), w.__tasks.push([Math.round(e.startTime), Math.round(e.duration)]);
      }).observe({ type: 'longtask' });
      try {
        // what a long frame spent its time on: scripts (by function and file), style and layout, or nothing of the page's (the thread waited for a core, or GC)
        new PerformanceObserver((l) => {
          for (const e of l.getEntries())
            w.__frames.push({
              at: Math.round(e.startTime),
              duration: Math.round(e.duration),
              render: e.renderStart ? Math.round(e.startTime + e.duration - e.renderStart) : 0,
              scripts: e.scripts.map((x) => ({
                ms: Math.round(x.duration),
                what: `${x.invoker} ${x.sourceFunctionName || ''} ${(x.sourceURL || '').split('/').pop()}`.trim(),
              })),
            });
        }).observe({ type: 'long-animation-frame' });
      } catch {
        // no Long Animation Frames
      }
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
    /** [ms since Analyze, the tab's renderer RSS, the page's JS heap] every 250 ms. */
    const samples = [];
    let sampling = true;
    const before = tabRss(marker);
    const pid = tabPid(marker);
    const cpuBefore = threadCpu(pid);
    const cpuSeen = new Map(cpuBefore);
    const t0 = Date.now();
    const sampler = (async () => {
      while (sampling) {
        const m = await cdp.send('Performance.getMetrics').catch(() => ({ metrics: [] }));
        samples.push([Date.now() - t0, tabRss(marker), m.metrics.find((x) => x.name === 'JSHeapUsedSize')?.value ?? 0]);
        for (const [tid, x] of threadCpu(pid)) cpuSeen.set(tid, x);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const loadAtStart = loadavg()[0];
    const clickAt = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Analyze' }).click();
    const headline = page.getByTestId('impact-headline');
    let presses = 0;
    /** When the log's first reading (the objects later events read) ended: the progress bar stops saying so. */
    let scanned;
    let sawScan = false;
    while (!(await headline.isVisible())) {
      // a key the page ignores (no control has focus that types), timed by the probe
      await page.keyboard.press('Shift');
      presses++;
      if (scanned === undefined) {
        const bar =
          (await page
            .locator('.impact-progress')
            .textContent({ timeout: 1000 })
            .catch(() => '')) ?? '';
        if (/reading the log/.test(bar)) sawScan = true;
        else if (sawScan && /writes replayed/.test(bar)) scanned = Date.now() - t0;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const ms = Date.now() - t0;
    sampling = false;
    await sampler;
    for (const [tid, x] of threadCpu(pid)) cpuSeen.set(tid, x);
    const cpu = runCpu(pid, cpuBefore, cpuSeen);
    const text = await headline.textContent();
    const probe = await page.evaluate(() => ({
      latAt: window.__lat,
      tasks: window.__tasks,
      frames: window.__frames,
      eventTiming: window.__eventTiming,
      longest: window.__longest,
    }));
    // times relative to Analyze
    const latAt = probe.latAt.map(([t, l]) => [t - clickAt, l]);
    const tasks = probe.tasks.map(([t, d]) => [t - clickAt, d]).filter(([t]) => t >= -50);
    const frames = probe.frames.map((f) => ({ ...f, at: f.at - clickAt })).filter((f) => f.at >= -50);
    if (process.env.BENCH_VERBOSE) console.log(JSON.stringify({ tasks, frames, slow: latAt.filter((x) => x[1] > 50) }));
    const deciders = await page.evaluate(() => Math.min(8, Math.max(1, (navigator.hardwareConcurrency || 2) - 1)));
    // the events that changed outcome, from the report's JSON export (what the CLI's realistic rows check)
    let changed;
    if (realistic) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
      const file = join(dir, 'impact.json');
      await download.saveAs(file);
      changed = changedShare(JSON.parse(readFileSync(file, 'utf8')).summary.changes);
    }
    await page.close();
    return {
      cpu,
      scanned,
      events,
      rawBytes,
      ms,
      rate: events / (ms / 1000),
      floor,
      before,
      samples,
      presses,
      latAt,
      tasks,
      frames,
      eventTiming: probe.eventTiming,
      longest: probe.longest,
      deciders,
      headline: text,
      realistic,
      changed,
      load: [loadAtStart, loadavg()[0]],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const quantile = (xs, q) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : NaN;
};
const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;

/** Where in the run a moment falls: the first and last 5 % (at least 5 s: the workers' start, the report's render) or between. */
const phaseOf = (t, ms) => {
  const edge = Math.max(5000, ms * 0.05);
  return t < edge ? 'start' : t > ms - edge ? 'end' : 'steady';
};

export function printImpactBrowser(r) {
  const lat = r.latAt.map((x) => x[1]);
  const worst = r.latAt.reduce((a, x) => (x[1] > a[1] ? x : a), [0, 0]);
  const at = (t) => `${(t / 1000).toFixed(1)} s, ${phaseOf(t, r.ms)}`;
  const byPhase = ['start', 'steady', 'end'].map((p) => {
    const xs = r.latAt.filter(([t]) => phaseOf(t, r.ms) === p).map((x) => x[1]);
    return `${p} ${xs.length ? `${quantile(xs, 0.5).toFixed(0)}/${quantile(xs, 0.99).toFixed(0)}/${Math.max(...xs).toFixed(0)}` : '—'}`;
  });
  const over = lat.filter((x) => x >= 100).length;
  const et = r.eventTiming.length
    ? `; Event Timing keydown durations ≥ 16 ms: ${r.eventTiming.length} (max ${Math.max(...r.eventTiming).toFixed(0)} ms)`
    : '; no Event Timing keydown ≥ 16 ms';
  const long = [...r.tasks].sort((a, b) => b[1] - a[1]).slice(0, 5);
  const peak = r.samples.reduce((a, x) => (x[1] > a[1] ? x : a), [0, 0, 0]);
  const rssAt = [0.25, 0.5, 0.75, 1].map((q) => {
    const s = r.samples[Math.min(r.samples.length - 1, Math.floor((r.samples.length - 1) * q))];
    return s ? mb(s[1]) : '—';
  });
  console.log(
    `Impact view, ${r.realistic ? `realistic log of ${r.events.toLocaleString()} events (the genuine apiserver log cloned; gzip, ${mb(r.rawBytes)} uncompressed), candidate replace: policies with params, a MutatingAdmissionPolicy, webhooks with assumed answers` : `audit log of ${r.events.toLocaleString()} pod creates (gzip, ${mb(r.rawBytes)} uncompressed), 20 policies + 10 webhooks`}, ${r.deciders} decider workers, load average ${r.load.map((l) => l.toFixed(1)).join(' → ')}: ${r.rate.toFixed(0)} events/s from Analyze to the headline (${(r.ms / 1000).toFixed(1)} s, engines' start included); floor in the page (DecompressionStream + split + JSON.parse): ${r.floor.toFixed(0)} events/s`,
  );
  console.log(
    `  tab (its renderer process: page + workers): ${mb(r.before)} before Analyze, peak ${mb(peak[1])} at ${at(peak[0])} (target ≤ 1 GB); at 25/50/75/100 % of the run ${rssAt.join(' / ')}; page JS heap peak ${mb(Math.max(0, ...r.samples.map((x) => x[2])))}`,
  );
  console.log(
    `  input latency (key press → next frame, ${lat.length} of ${r.presses} presses): median ${quantile(lat, 0.5).toFixed(0)} ms, p99 ${quantile(lat, 0.99).toFixed(0)} ms, worst ${worst[1].toFixed(0)} ms at ${at(worst[0])}; ${over} ≥ 100 ms (target < 100 ms); median/p99/worst by phase: ${byPhase.join(', ')}${et}`,
  );
  console.log(
    `  CPU of the tab's threads during the run: page main thread ${r.cpu.main.toFixed(1)} s, workers ${r.cpu.workers.map((w) => `${w.toFixed(1)} s`).join(' + ') || '—'}, the renderer's other threads ${r.cpu.other.toFixed(1)} s; the log's first reading (objects later events read) ended ${r.scanned !== undefined ? `at ${(r.scanned / 1000).toFixed(1)} s` : 'not seen'}`,
  );
  console.log(`  long tasks on the page: ${r.tasks.length}${long.length ? `, longest ${long.map(([t, d]) => `${d} ms at ${at(t)}`).join('; ')}` : ''}`);
  // the longest frames: how much of each was the page's script, and which
  for (const f of [...r.frames].sort((a, b) => b.duration - a.duration).slice(0, 3)) {
    const script = f.scripts.reduce((a, x) => a + x.ms, 0);
    const top = [...f.scripts]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 2)
      .map((x) => `${x.ms} ms ${x.what}`);
    console.log(
      `    frame of ${f.duration} ms at ${at(f.at)}: scripts ${script} ms${top.length ? ` (${top.join('; ')})` : ''}, rendering ${f.render} ms, the rest (waiting for a core, GC, the browser) ${Math.max(0, f.duration - script - f.render)} ms`,
    );
  }
  if (r.changed)
    console.log(
      `  ${r.changed.changed.toLocaleString()} of ${r.changed.decided.toLocaleString()} decided events changed outcome (${(r.changed.share * 100).toFixed(1)} %; the CLI's realistic rows need ≥ 40 %)`,
    );
  console.log(`  ${r.headline}`);
}

// Alone: serve dist/ and start a Chromium of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dist = process.env.BENCH_DIST ?? 'dist';
  if (!existsSync(join(dist, 'index.html'))) throw new Error('build first: npm run build');
  const { chromium } = await import('@playwright/test');
  const port = Number(process.env.BENCH_PORT ?? 4191);
  const server = spawn('node', ['scripts/serve.mjs', '--port', String(port), '--base', '/bench/', '--dir', dist], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  const profile = mkdtempSync(join(tmpdir(), 'bench-impact-profile-'));
  writeFileSync(join(profile, '.keep'), '');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  try {
    const realistic = process.env.BENCH_IMPACT_BROWSER_LOG === 'realistic';
    printImpactBrowser(await benchImpactBrowser(context, `http://127.0.0.1:${port}/bench/`, profile, realistic ? REALISTIC_EVENTS : EVENTS, { realistic }));
  } finally {
    await context.close();
    server.kill();
    rmSync(profile, { recursive: true, force: true });
  }
}
