/**
 * A realistic impact input for profiling the lean path: the genuine apiserver audit log fixture
 * (tools/admission-oracle/testdata/audit) cloned across namespaces, its snapshot cloned with it,
 * its candidate (params, a MutatingAdmissionPolicy with a binding, webhooks that deny and warn)
 * plus a mutating webhook whose assumed answer is a patch, `candidate: 'replace'`. Prints
 * events/s and objects/s on this thread and the lean path's fallback reasons.
 * Build and run: see README.md beside this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzeImpact, chainDecider, fullDecider } from '../../src/impact';
import { leanFallbacks } from '../../src/admission';

const dir = join(process.cwd(), 'tools/admission-oracle/testdata/audit');
const COPIES = Number(process.env.COPIES ?? 40);
const log = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n');
const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, unknown> };
const CLONED = ['shop', 'scratch', 'apps'];
/** A copy of a JSON text with the log's own namespaces renamed (`shop` → `shop-3`). */
const rename = (text: string, k: number) =>
  k === 0
    ? text
    : text
        .replace(new RegExp(`"(${CLONED.join('|')})"`, 'g'), `"$1-${k}"`)
        .replace(new RegExp(`/namespaces/(${CLONED.join('|')})([/"?])`, 'g'), `/namespaces/$1-${k}$2`);
const lines: string[] = [];
for (let k = 0; k < COPIES; k++) for (const l of log) lines.push(rename(l, k));
const cluster: unknown[] = [];
for (const o of snapshot) {
  const ns = (o as { metadata?: { namespace?: string; name?: string } }).metadata;
  const own = CLONED.includes(ns?.namespace ?? '') || ((o as { kind?: string }).kind === 'Namespace' && CLONED.includes(ns?.name ?? ''));
  if (!own) cluster.push(o);
  else for (let k = 0; k < COPIES; k++) cluster.push(JSON.parse(rename(JSON.stringify(o), k)));
}
const workspace = process.env.NOEXTRA
  ? candidate.objects
  : [
      ...candidate.objects,
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'defaults' },
        webhooks: [
          {
            name: 'defaults.shop.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: { url: 'https://defaults.example.com/mutate' },
            rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
          },
        ],
      },
    ];
const webhooks = { ...candidate.webhooks, 'defaults.shop.example.com': { patch: [{ op: 'add', path: '/metadata/annotations', value: { defaulted: 'yes' } }] } };

const existing = process.env.EXISTING === '1';
/** REALISTIC=N: the bench's realistic inputs instead (scripts/impact-realistic.mjs: N events, or N objects with EXISTING=1). */
const REALISTIC = Number(process.env.REALISTIC ?? 0);
/** Loaded from the checkout at run time: the generator reads the fixture beside its own file, which bundling would move. */
const realistic = (): Promise<typeof import('../../scripts/impact-realistic.mjs')> =>
  import(/* @vite-ignore */ pathToFileURL(join(process.cwd(), 'scripts/impact-realistic.mjs')).href);
const { realisticCandidate, realisticLines, snapshotAfter, snapshotBefore, webhookAnswers } = REALISTIC ? await realistic() : ({} as never);
const inputs = REALISTIC
  ? {
      workspace: realisticCandidate() as unknown[],
      cluster: (existing ? snapshotAfter(REALISTIC) : snapshotBefore(REALISTIC)).items as unknown[],
      audit: existing ? undefined : [...realisticLines(REALISTIC)].join('\n'),
      webhooks: webhookAnswers(),
    }
  : { workspace, cluster, audit: existing ? undefined : lines.join('\n'), webhooks };
/** Deciders made: once per chains (the log's writes of admission objects and params change them). */
let made = 0;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const report = await analyzeImpact({
  workspace: inputs.workspace,
  cluster: inputs.cluster,
  audit: inputs.audit,
  options: {
    candidate: 'replace',
    webhooks: inputs.webhooks as never,
    ...(process.env.PLAIN ? {} : { existing, keepUnchanged: false }),
    decider: (spec) => (made++, (process.env.FULL === '1' ? fullDecider : chainDecider)(spec)),
  },
});
const s = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
/** CPU seconds of this process's children (the native engines; Linux /proc), which a busy machine's wall time hides. */
function engineCpu(): number {
  let total = 0;
  try {
    for (const tid of readdirSync('/proc/self/task'))
      for (const child of readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)) {
        const f = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]!.split(' ');
        total += (Number(f[11]) + Number(f[12])) / 100;
      }
  } catch {
    return Number.NaN;
  }
  return total;
}
const n = existing ? report.summary.existing.total : report.summary.events;
const cpuS = (cpu.user + cpu.system) / 1e6;
const engine = engineCpu();
console.log(`cpu: this process ${cpuS.toFixed(2)} s, engines ${engine.toFixed(2)} s: ${Math.round(n / (cpuS + engine))} per CPU second`);
console.log(
  `${existing ? 'objects' : 'events'}: ${n} in ${s.toFixed(2)} s = ${Math.round(n / s)}/s; changes ${JSON.stringify(existing ? report.summary.existing.changes : report.summary.changes)}`,
);
if (process.env.DUMP)
  (await import('node:fs')).writeFileSync(
    process.env.DUMP,
    JSON.stringify(
      existing
        ? report.existing.map((e) => ({ kind: e.kind, namespace: e.namespace, name: e.name, change: e.change, baseline: e.baseline, candidate: e.candidate }))
        : report.events.map((e) => ({ line: e.line, change: e.change, baseline: e.baseline, candidate: e.candidate })),
      null,
      1,
    ),
  );
console.log(`deciders made (chains): ${made}`);
console.log('fallbacks', JSON.stringify(Object.fromEntries([...leanFallbacks()].sort((a, b) => b[1] - a[1]))));
process.exit(0);
