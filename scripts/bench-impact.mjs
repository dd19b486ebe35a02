#!/usr/bin/env node
/**
 * Impact benchmark (part of npm run bench), beside the floor of reading the same file (gunzip +
 * split into lines + JSON.parse in one Node process; for a snapshot, read + JSON.parse):
 *  - pod creates: `admission-workbench impact` on a generated gzip audit log of EVENTS RequestResponse
 *    pod creates (BENCH_IMPACT_EVENTS, default 200,000: ~700 MB) against 20 ValidatingAdmissionPolicies
 *    and 10 webhooks (scripts/impact-fixture.mjs), nearly all allowed and unchanged; and the existing-objects
 *    scan of a snapshot of OBJECTS pods (BENCH_IMPACT_OBJECTS, default 50,000);
 *  - realistic: a genuine apiserver log cloned to BENCH_IMPACT_REALISTIC_EVENTS events (default 200,000;
 *    creates, updates, patches, deletes, a param and a policy changed mid-log) replayed with
 *    `--candidate replace` through a candidate with params, a MutatingAdmissionPolicy and webhooks with
 *    assumed answers (scripts/impact-realistic.mjs), and a snapshot of BENCH_IMPACT_REALISTIC_OBJECTS
 *    objects (default 50,000) judged; each with the native engine (CEL_ENGINE=native), the CLI with no
 *    CEL_ENGINE (its default) and the library (analyzeImpact, bundled, with no CEL_ENGINE). A realistic
 *    row fails (exit 1) when under 40 % of its events change outcome: it would measure the easy path.
 * BENCH_IMPACT_ROWS=pods or realistic runs only those. The CLI bundle is built first.
 * CPU seconds beside each: the CLI, and its native engine processes (Linux /proc).
 * Targets (docs/performance.md): ≥ 5,000 events/s and ≥ 25 % of the floor's speed; ≥ 5,000 objects/s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGunzip } from 'node:zlib';
import { candidateDocs, pod, podName, writeAuditLog } from './impact-fixture.mjs';
import { changedShare, changesTable, snapshotAfter, snapshotBefore, realisticCandidate, webhookAnswers, writeRealisticLog } from './impact-realistic.mjs';

if (process.argv[2] === '--library') {
  // the library row's own process (a fresh engine, its own CPU): analyzeImpact as a program calls it
  const [bundle, candidate, answers, cluster, audit] = process.argv.slice(3);
  const { analyzeImpact } = await import(pathToFileURL(bundle).href);
  const items = (f) => JSON.parse(readFileSync(f, 'utf8')).items;
  const t = performance.now();
  const r = await analyzeImpact({
    workspace: items(candidate),
    cluster: items(cluster),
    // a file: read twice (analyzeImpact's first reading finds which objects later events read)
    ...(audit ? { audit: () => createReadStream(audit) } : {}),
    options: { candidate: 'replace', webhooks: JSON.parse(readFileSync(answers, 'utf8')), existing: !audit, keepUnchanged: false },
  });
  console.log(JSON.stringify({ ms: performance.now() - t, summary: r.summary }));
  process.exit(0);
}

const EVENTS = Number(process.env.BENCH_IMPACT_EVENTS ?? 200_000);
const OBJECTS = Number(process.env.BENCH_IMPACT_OBJECTS ?? 50_000);
const REALISTIC_EVENTS = Number(process.env.BENCH_IMPACT_REALISTIC_EVENTS ?? 200_000);
const REALISTIC_OBJECTS = Number(process.env.BENCH_IMPACT_REALISTIC_OBJECTS ?? 50_000);
const ROWS = process.env.BENCH_IMPACT_ROWS ?? 'pods,realistic';
/** A realistic row whose events change outcome less often than this measures the easy path: it fails. */
const MIN_CHANGED = 0.4;
spawnSync('npx', ['vite', 'build', '-c', 'vite.cli.config.ts'], { stdio: 'ignore' });
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')} at the start`,
);

/**
 * The floor: read the same log and parse each line, nothing else — as a stream (a 700 MB log is
 * longer than a JavaScript string may be), inflated by zlib in the CLI's 256 KiB pieces. Lines/s.
 */
async function logFloor(log) {
  const t0 = performance.now();
  let parsed = 0;
  let rest = '';
  const text = new TextDecoder();
  for await (const chunk of createReadStream(log).pipe(createGunzip({ chunkSize: 256 * 1024 }))) {
    const lines = (rest + text.decode(chunk, { stream: true })).split('\n');
    rest = lines.pop();
    for (const l of lines) if (l) JSON.parse(l), parsed++;
  }
  if (rest) JSON.parse(rest), parsed++;
  return parsed / ((performance.now() - t0) / 1000);
}

/** The floor of a snapshot: read the file and JSON.parse it. Objects/s. */
function snapshotFloor(file) {
  const t0 = performance.now();
  const n = JSON.parse(readFileSync(file, 'utf8')).items.length;
  return n / ((performance.now() - t0) / 1000);
}

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The library (src/impact) bundled as scripts/bench-bundle.mjs does, but under the repository
 * (node_modules/.cache): the engine is found from where the code is, as from the sources.
 */
async function libraryBundle() {
  const { build } = await import('vite');
  const outDir = join(root, 'node_modules', '.cache', 'admission-workbench', 'bench-impact-library');
  await build({
    configFile: false,
    root,
    logLevel: 'error',
    publicDir: false,
    build: {
      ssr: join(root, 'src', 'impact', 'index.ts'),
      outDir,
      target: 'node20',
      minify: false,
      rollupOptions: { output: { entryFileNames: 'bundle.mjs', codeSplitting: false } },
    },
  });
  return join(outDir, 'bundle.mjs');
}

/** The share of changed outcomes, said (existing objects: no minimum). */
function changedShareText(changes) {
  const s = changedShare(changes);
  return `${s.changed.toLocaleString()} of ${s.decided.toLocaleString()} changed outcome (${(s.share * 100).toFixed(1)} %)`;
}

const dir = mkdtempSync(join(tmpdir(), 'aw-bench-impact-'));
try {
  writeFileSync(join(dir, 'empty.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));

  // CPU seconds (Linux /proc): the CLI and its threads as children waited for, and its native
  // engine processes (which outlive the CLI by a moment, so nobody waits for them) sampled every
  // 50 ms while it runs; at a high load, wall time is the share of the cores a run gets, CPU time
  // what it costs
  const childCpu = () => {
    try {
      const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      return (Number(f[13]) + Number(f[14])) / 100; // cutime + cstime, in USER_HZ (100)
    } catch {
      return NaN;
    }
  };
  /**
   * utime + stime of each engine process the CLI started (any of its threads), by pid, as last
   * seen. `impact` starts itself again once (src/cli/bin.ts): a node child is that CLI, waited
   * for (so in `childCpu`), and its children are the engines.
   */
  const engineCpu = (pid, seen) => {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`))
        for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)) {
          if (readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'node') {
            engineCpu(child, seen);
            continue;
          }
          const f = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ');
          seen.set(child, (Number(f[11]) + Number(f[12])) / 100);
        }
    } catch {
      // the CLI or an engine exited between two reads
    }
  };
  /** A node process (`args`), its wall time, CPU and its engine processes' CPU; `engine` sets CEL_ENGINE (undefined: none, the default). */
  const node = async (args, engine) => {
    const t = performance.now();
    const c = childCpu();
    const env = { ...process.env, CEL_WASM: process.env.CEL_WASM ?? 'public/cel/cel.wasm' };
    delete env.CEL_ENGINE;
    if (engine) env.CEL_ENGINE = engine;
    const child = spawn(process.execPath, args, { env });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    const engines = new Map();
    const poll = setInterval(() => engineCpu(child.pid, engines), 50);
    const code = await new Promise((done) => child.on('close', done));
    clearInterval(poll);
    const ms = performance.now() - t;
    const engineLine = /CEL engine: .*/.exec(err)?.[0];
    return {
      ms,
      cpu: childCpu() - c,
      engines: [...engines.values()].reduce((a, b) => a + b, 0),
      processes: engines.size,
      text: out,
      out: out.split('\n')[0],
      err,
      engineLine,
      code,
    };
  };
  const cli = (args, engine = 'native') => node(['dist-cli/admission-workbench.mjs', 'impact', ...args], engine);
  const cpuNote = (r, who = 'the CLI') =>
    Number.isFinite(r.cpu)
      ? `; CPU: ${who} ${r.cpu.toFixed(2)} s${who === 'the CLI' ? ` (${(r.cpu - startRun.cpu).toFixed(2)} s after its start)` : ''}, its native engine processes ${r.engines.toFixed(2)} s (sampled every 50 ms)`
      : '';
  /** A run that printed no report (no engine, killed): its rate would be a number about nothing. */
  const failure = (r) => (r.text.trim() ? undefined : `FAILED (exit ${r.code}): ${r.err.trim().split('\n').at(-1) ?? ''}`);
  const startRun = await cli(['--no-existing', '--cluster', join(dir, 'empty.json'), '--audit', join(dir, 'empty.json')]); // the process and the engine start alone
  const start = startRun.ms;
  // its log is empty on purpose (exit 2, an input error): it failed only where no engine started
  if (!startRun.engineLine) {
    console.log(`impact: the CLI did not start: ${failure(startRun)}`);
    process.exitCode = 1;
  } else {
    if (ROWS.includes('pods')) await podRows();
    if (ROWS.includes('realistic')) await realisticRows();
  }

  async function podRows() {
    const log = join(dir, 'audit.log.gz');
    await writeAuditLog(log, EVENTS);
    writeFileSync(join(dir, 'candidate.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: candidateDocs() }));
    writeFileSync(
      join(dir, 'snapshot.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: OBJECTS }, (_, i) => pod(podName(i, 'p'), `team-${i % 40}`, i)) }),
    );
    const floor = await logFloor(log);
    const a = await cli(['--no-existing', '--cluster', join(dir, 'empty.json'), '--audit', log, join(dir, 'candidate.json')]);
    const rate = EVENTS / ((a.ms - start) / 1000);
    if (failure(a)) console.log(`impact, audit log of ${EVENTS.toLocaleString()} pod creates: ${failure(a)}`);
    else
      console.log(
        `impact, audit log of ${EVENTS.toLocaleString()} pod creates (gzip), 20 policies + 10 webhooks: ${rate.toFixed(0)} events/s after the engine start (${start.toFixed(0)} ms), ${(a.ms / 1000).toFixed(1)} s in all (target ≥ 5,000 events/s); floor (gunzip + split + JSON.parse): ${floor.toFixed(0)} events/s, so ${((rate / floor) * 100).toFixed(1)} % of it (target ≥ 25 %)${cpuNote(a)}`,
      );
    console.log(`  ${a.out}`);
    const e = await cli(['--cluster', join(dir, 'snapshot.json'), join(dir, 'candidate.json')]);
    if (failure(e)) console.log(`impact, existing objects of a ${OBJECTS.toLocaleString()}-pod snapshot: ${failure(e)}`);
    else
      console.log(
        `impact, existing objects of a ${OBJECTS.toLocaleString()}-pod snapshot: ${(OBJECTS / ((e.ms - start) / 1000)).toFixed(0)} objects/s after the engine start (target ≥ 5,000 objects/s)${cpuNote(e)}`,
      );
    console.log(`  ${e.out}`);
  }

  async function realisticRows() {
    const log = join(dir, 'realistic.log.gz');
    const { bytes, verbs } = await writeRealisticLog(log, REALISTIC_EVENTS);
    const file = (name, value) => (writeFileSync(join(dir, name), JSON.stringify(value)), join(dir, name));
    const candidate = file('realistic-candidate.json', { apiVersion: 'v1', kind: 'List', items: realisticCandidate() });
    const answers = file('realistic-answers.json', webhookAnswers());
    const before = file('realistic-before.json', snapshotBefore(REALISTIC_EVENTS));
    const after = file('realistic-after.json', snapshotAfter(REALISTIC_OBJECTS));
    const floor = await logFloor(log);
    const objectsFloor = snapshotFloor(after);
    const mix = Object.entries(verbs)
      .map(([v, n]) => `${v} ${((n / REALISTIC_EVENTS) * 100).toFixed(0)} %`)
      .join(', ');
    console.log(
      `\nimpact, realistic: a genuine apiserver log cloned to ${REALISTIC_EVENTS.toLocaleString()} events (${(bytes / 1e6).toFixed(0)} MB, gzip; ${mix}), --candidate replace: policies with params, a MutatingAdmissionPolicy, mutating and validating webhooks with assumed answers; floor (gunzip + split + JSON.parse): ${floor.toFixed(0)} events/s`,
    );
    const common = ['--candidate', 'replace', '--webhook-answers', answers, candidate];
    /** The share of changed outcomes, said, and the row failed when under MIN_CHANGED. */
    const share = (changes) => {
      const s = changedShare(changes);
      const ok = s.share >= MIN_CHANGED;
      if (!ok) process.exitCode = 1;
      return `${s.changed.toLocaleString()} of ${s.decided.toLocaleString()} changed outcome (${(s.share * 100).toFixed(1)} %${ok ? '' : `: FAILED, the row needs ≥ ${MIN_CHANGED * 100} %`})`;
    };
    const library = await libraryBundle();
    for (const [name, engine] of [
      ['native engine (CLI, CEL_ENGINE=native)', 'native'],
      ['the default (CLI, no CEL_ENGINE)', undefined],
      ['the default (library: analyzeImpact, no CEL_ENGINE)', 'library'],
    ]) {
      const r =
        engine === 'library'
          ? await node([fileURLToPath(import.meta.url), '--library', library, candidate, answers, before, log])
          : await cli(['--no-existing', '--cluster', before, '--audit', log, ...common], engine);
      const lib = engine === 'library' ? JSON.parse(r.out) : undefined;
      const changes = lib ? lib.summary.changes : changesTable(r.text).writes;
      const ms = lib ? lib.ms : r.ms - start;
      const rate = REALISTIC_EVENTS / (ms / 1000);
      console.log(
        `  log, ${name}: ${r.code === 2 || !Object.keys(changes).length ? `FAILED (exit ${r.code}): ${r.err.trim()}` : `${rate.toFixed(0)} events/s${lib ? ' (the call, the engine start included)' : ' after the engine start'}, ${(r.ms / 1000).toFixed(1)} s in all (target ≥ 5,000 events/s); ${((rate / floor) * 100).toFixed(1)} % of the floor (target ≥ 25 %); ${share(changes)}; ${r.engineLine ?? `${r.processes} native engine processes seen`}${cpuNote(r, lib ? 'the process' : 'the CLI')}`}`,
      );
      if (r.code === 2 || !Object.keys(changes).length) process.exitCode = 1;
    }
    console.log(
      `impact, realistic: existing objects of a ${REALISTIC_OBJECTS.toLocaleString()}-object snapshot (Namespaces, ConfigMaps, Deployments as after the log; its reading included); floor (read + JSON.parse): ${objectsFloor.toFixed(0)} objects/s`,
    );
    for (const [name, engine] of [
      ['native engine (CLI, CEL_ENGINE=native)', 'native'],
      ['the default (library: analyzeImpact, no CEL_ENGINE)', 'library'],
    ]) {
      const r =
        engine === 'library'
          ? await node([fileURLToPath(import.meta.url), '--library', library, candidate, answers, after])
          : await cli(['--cluster', after, ...common], engine);
      const lib = engine === 'library' ? JSON.parse(r.out) : undefined;
      const changes = lib ? lib.summary.existing.changes : changesTable(r.text).existing;
      const ms = lib ? lib.ms : r.ms - start;
      const rate = REALISTIC_OBJECTS / (ms / 1000);
      console.log(
        `  existing, ${name}: ${r.code === 2 || !Object.keys(changes).length ? `FAILED (exit ${r.code}): ${r.err.trim()}` : `${rate.toFixed(0)} objects/s, ${(r.ms / 1000).toFixed(1)} s in all (target ≥ 5,000 objects/s); ${((rate / objectsFloor) * 100).toFixed(1)} % of the floor; ${changedShareText(changes)}; ${r.engineLine ?? `${r.processes} native engine processes seen`}${cpuNote(r, lib ? 'the process' : 'the CLI')}`}`,
      );
      if (r.code === 2 || !Object.keys(changes).length) process.exitCode = 1;
    }
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} at the end`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
