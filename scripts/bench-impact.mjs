#!/usr/bin/env node
/**
 * Impact benchmark (part of npm run bench): `admission-workbench impact` on a generated gzip audit
 * log of EVENTS RequestResponse pod creates (BENCH_IMPACT_EVENTS, default 200,000: ~700 MB) against a candidate
 * of 20 ValidatingAdmissionPolicies and 10 webhooks (scripts/impact-fixture.mjs), beside the floor of reading the same log
 * (gunzip + split into lines + JSON.parse, in one Node process), and the existing-objects scan of a
 * snapshot of OBJECTS pods (BENCH_IMPACT_OBJECTS, default 50,000). The CLI bundle is built first.
 * CPU seconds beside each: the CLI, and its native engine processes (Linux /proc).
 * Targets (docs/performance.md): ≥ 5,000 events/s and ≥ 25 % of the floor's speed; ≥ 5,000 objects/s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { candidateDocs, pod, podName, writeAuditLog } from './impact-fixture.mjs';

const EVENTS = Number(process.env.BENCH_IMPACT_EVENTS ?? 200_000);
const OBJECTS = Number(process.env.BENCH_IMPACT_OBJECTS ?? 50_000);
spawnSync('npx', ['vite', 'build', '-c', 'vite.cli.config.ts'], { stdio: 'ignore' });

const dir = mkdtempSync(join(tmpdir(), 'aw-bench-impact-'));
try {
  const log = join(dir, 'audit.log.gz');
  await writeAuditLog(log, EVENTS);
  writeFileSync(join(dir, 'candidate.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: candidateDocs() }));
  writeFileSync(join(dir, 'empty.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
  writeFileSync(
    join(dir, 'snapshot.json'),
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: OBJECTS }, (_, i) => pod(podName(i, 'p'), `team-${i % 40}`, i)) }),
  );

  // the floor: read the same log and parse each line, nothing else — as a stream (a 700 MB log
  // is longer than a JavaScript string may be), inflated by zlib in the CLI's 256 KiB pieces
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
  const floor = parsed / ((performance.now() - t0) / 1000);

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
  /** utime + stime of each process the CLI started (any of its threads), by pid, as last seen. */
  const engineCpu = (pid, seen) => {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`))
        for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)) {
          const f = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ');
          seen.set(child, (Number(f[11]) + Number(f[12])) / 100);
        }
    } catch {
      // the CLI or an engine exited between two reads
    }
  };
  const cli = async (args) => {
    const t = performance.now();
    const c = childCpu();
    const child = spawn(process.execPath, ['dist-cli/admission-workbench.mjs', 'impact', ...args], {
      env: { ...process.env, CEL_WASM: process.env.CEL_WASM ?? 'public/cel/cel.wasm' },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.resume();
    const engines = new Map();
    const poll = setInterval(() => engineCpu(child.pid, engines), 50);
    const code = await new Promise((done) => child.on('close', done));
    clearInterval(poll);
    const ms = performance.now() - t;
    return { ms, cpu: childCpu() - c, engines: [...engines.values()].reduce((a, b) => a + b, 0), out: out.split('\n')[0], code };
  };
  const cpuNote = (r) =>
    Number.isFinite(r.cpu)
      ? `; CPU: the CLI ${r.cpu.toFixed(2)} s (${(r.cpu - startRun.cpu).toFixed(2)} s after its start), its native engine processes ${r.engines.toFixed(2)} s (sampled every 50 ms)`
      : '';
  const startRun = await cli(['--no-existing', '--cluster', join(dir, 'empty.json'), '--audit', join(dir, 'empty.json')]); // the process and the engine start alone
  const start = startRun.ms;
  const a = await cli(['--no-existing', '--cluster', join(dir, 'empty.json'), '--audit', log, join(dir, 'candidate.json')]);
  const rate = EVENTS / ((a.ms - start) / 1000);
  console.log(
    `impact, audit log of ${EVENTS.toLocaleString()} pod creates (gzip), 20 policies + 10 webhooks: ${rate.toFixed(0)} events/s after the engine start (${start.toFixed(0)} ms), ${(a.ms / 1000).toFixed(1)} s in all (target ≥ 5,000 events/s); floor (gunzip + split + JSON.parse): ${floor.toFixed(0)} events/s, so ${((rate / floor) * 100).toFixed(1)} % of it (target ≥ 25 %)${cpuNote(a)}`,
  );
  console.log(`  ${a.out}`);
  const e = await cli(['--cluster', join(dir, 'snapshot.json'), join(dir, 'candidate.json')]);
  console.log(
    `impact, existing objects of a ${OBJECTS.toLocaleString()}-pod snapshot: ${(OBJECTS / ((e.ms - start) / 1000)).toFixed(0)} objects/s after the engine start (target ≥ 5,000 objects/s)${cpuNote(e)}`,
  );
  console.log(`  ${e.out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
