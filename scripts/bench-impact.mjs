#!/usr/bin/env node
/**
 * Impact benchmark (part of npm run bench): `admission-workbench impact` on a generated gzip audit
 * log of EVENTS RequestResponse pod creates (BENCH_IMPACT_EVENTS, default 5,000) against a candidate
 * of 20 ValidatingAdmissionPolicies and 10 webhooks, beside the floor of reading the same log
 * (gunzip + split into lines + JSON.parse, in one Node process), and the existing-objects scan of a
 * snapshot of OBJECTS pods (BENCH_IMPACT_OBJECTS, default 5,000). The CLI bundle is built first.
 * Targets (issue #29): ≥ 5,000 events/s and ≥ 25 % of the floor's speed; ≥ 5,000 objects/s.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

const EVENTS = Number(process.env.BENCH_IMPACT_EVENTS ?? 5000);
const OBJECTS = Number(process.env.BENCH_IMPACT_OBJECTS ?? 5000);
spawnSync('npx', ['vite', 'build', '-c', 'vite.cli.config.ts'], { stdio: 'ignore' });

const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] };
const docs = [];
for (let i = 0; i < 20; i++) {
  docs.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: `policy-${i}` }, spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: `!object.metadata.name.startsWith('deny-${i}-')`, message: `policy ${i}` }] } });
  docs.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `policy-${i}` }, spec: { policyName: `policy-${i}`, validationActions: ['Deny'] } });
}
for (let i = 0; i < 10; i++)
  docs.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `hook-${i}` }, webhooks: [{ name: `hook-${i}.example.com`, clientConfig: { url: `https://hook-${i}.example.com/` }, rules: [rule], sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5, matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }] }] });

const pod = (name, ns) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: name.slice(0, 12) } }, spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.2.3', resources: { limits: { cpu: '500m', memory: '256Mi' } } }] } });
const lines = [];
for (let i = 0; i < EVENTS; i++) {
  const name = i % 50 === 0 ? `deny-${i % 20}-${i}` : `web-${i}`;
  const o = pod(name, `team-${i % 40}`);
  lines.push(JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `id-${i}`, stage: 'ResponseComplete', requestURI: `/api/v1/namespaces/team-${i % 40}/pods?fieldManager=kubectl`, verb: 'create', user: { username: `user-${i % 17}`, groups: ['system:authenticated'] }, objectRef: { resource: 'pods', namespace: `team-${i % 40}`, name, apiVersion: 'v1' }, responseStatus: { metadata: {}, code: 201 }, requestObject: o, responseObject: o, requestReceivedTimestamp: new Date(1.79e12 + i * 250).toISOString() }));
}
const dir = mkdtempSync(join(tmpdir(), 'aw-bench-impact-'));
try {
  const log = join(dir, 'audit.log.gz');
  writeFileSync(log, gzipSync(lines.join('\n') + '\n'));
  writeFileSync(join(dir, 'candidate.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }));
  writeFileSync(join(dir, 'empty.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
  writeFileSync(join(dir, 'snapshot.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: OBJECTS }, (_, i) => pod(i % 50 === 0 ? `deny-${i % 20}-${i}` : `p-${i}`, `team-${i % 40}`)) }));

  // the floor: read the same log and parse each line, nothing else
  let t0 = performance.now();
  let parsed = 0;
  for (const l of gunzipSync(readFileSync(log)).toString('utf8').split('\n')) if (l) (JSON.parse(l), parsed++);
  const floor = parsed / ((performance.now() - t0) / 1000);

  // CPU seconds of the children waited for (Linux /proc: the CLI and its worker threads; a native
  // engine process outlives the CLI by a moment and is not counted): at a high load, wall time is
  // the share of the cores a run gets, CPU time what it costs
  const childCpu = () => {
    try {
      const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      return (Number(f[13]) + Number(f[14])) / 100; // cutime + cstime, in USER_HZ (100)
    } catch {
      return NaN;
    }
  };
  const cli = (args) => {
    const t = performance.now();
    const c = childCpu();
    const r = spawnSync(process.execPath, ['dist-cli/admission-workbench.mjs', 'impact', ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CEL_WASM: process.env.CEL_WASM ?? 'public/cel/cel.wasm' } });
    return { ms: performance.now() - t, cpu: childCpu() - c, out: r.stdout.split('\n')[0], code: r.status };
  };
  const cpuNote = (r) => (Number.isFinite(r.cpu) ? `; the CLI's CPU ${r.cpu.toFixed(2)} s (${(r.cpu - startRun.cpu).toFixed(2)} s after its start; the native engine process not counted)` : '');
  const startRun = cli(['--no-existing', '--cluster', join(dir, 'empty.json'), '--audit', join(dir, 'empty.json')]); // the process and the engine start alone
  const start = startRun.ms;
  const a = cli(['--no-existing', '--cluster', join(dir, 'empty.json'), '--audit', log, join(dir, 'candidate.json')]);
  const rate = EVENTS / ((a.ms - start) / 1000);
  console.log(`impact, audit log of ${EVENTS.toLocaleString()} pod creates (gzip), 20 policies + 10 webhooks: ${rate.toFixed(0)} events/s after the engine start (${start.toFixed(0)} ms), ${(a.ms / 1000).toFixed(1)} s in all (target ≥ 5,000 events/s); floor (gunzip + split + JSON.parse): ${floor.toFixed(0)} events/s, so ${((rate / floor) * 100).toFixed(1)} % of it (target ≥ 25 %)${cpuNote(a)}`);
  console.log(`  ${a.out}`);
  const e = cli(['--cluster', join(dir, 'snapshot.json'), join(dir, 'candidate.json')]);
  console.log(`impact, existing objects of a ${OBJECTS.toLocaleString()}-pod snapshot: ${(OBJECTS / ((e.ms - start) / 1000)).toFixed(0)} objects/s after the engine start (target ≥ 5,000 objects/s)${cpuNote(e)}`);
  console.log(`  ${e.out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
