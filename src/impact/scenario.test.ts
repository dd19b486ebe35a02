/**
 * The hand-off from the Impact report to Simulate (simulatorDraftOf): every changed event of a
 * real apiserver's log (tools/admission-oracle/testdata/audit), and every changed existing
 * object, opened as a Simulate scenario and run as the Simulate view runs it (simulateDraft on the
 * workspace's documents) gets the report's verdict: allowed or denied, by whom, with the message,
 * the warnings and the audit annotation keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulateDraft, type SimResult, type WebhookResponse } from '../admission';
import { analyzeImpact, clusterObjects, existingKey, simulatorDraftOf, type Decision, type ImpactReport } from './index';
import type { AdmissionRequest } from '../request/model';

useEngine();

const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
const log = readFileSync(join(dir, 'audit.log'), 'utf8');
const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };
const webhooks: Record<string, WebhookResponse> = { 'frozen.shop.example.com': 'deny', ...candidate.webhooks };
const isParams = (o: unknown) => (o as { kind?: string }).kind === 'ConfigMap';

/** The verdict as the report's row says it, from a Decision or from Simulate's result. */
const verdictOf = (d: Decision) => ({
  allowed: d.allowed,
  by: d.deniedBy ? `${d.deniedBy.kind} ${d.deniedBy.name} ${d.deniedBy.binding ?? ''} ${d.deniedBy.webhook ?? ''}` : '',
  message: d.deniedBy?.message ?? '',
  warnings: [...d.warnings].sort(),
  audited: [...d.audited].sort(),
});
const simVerdict = (r: SimResult) => ({
  allowed: r.allowed,
  by: r.deniedBy ? `${r.deniedBy.kind} ${r.deniedBy.name} ${r.deniedBy.binding ?? ''} ${r.deniedBy.webhook ?? ''}` : '',
  message: r.deniedBy?.message ?? '',
  warnings: [...r.warnings].sort(),
  audited: Object.keys(r.auditAnnotations).sort(),
});

/** Every kept request of the report opened in Simulate, against the report's candidate decision: the ones that differ. */
async function mismatches(report: ImpactReport, workspace: readonly unknown[]): Promise<string[]> {
  const out: string[] = [];
  const decided = [
    ...report.events.filter((e) => e.change !== 'unchanged').map((e) => ({ key: e.auditID, what: `line ${e.line}`, candidate: e.candidate })),
    ...report.existing.filter((o) => o.change !== 'unchanged').map((o) => ({ key: existingKey(o), what: existingKey(o), candidate: o.candidate })),
  ];
  expect(decided.length).toBeGreaterThan(0);
  for (const d of decided) {
    const draft = simulatorDraftOf(report, d.key);
    if (!draft) {
      out.push(`${d.what}: not kept`);
      continue;
    }
    const run = await simulateDraft(workspace, draft);
    if (!run.ok) {
      out.push(`${d.what}: does not run in Simulate (${JSON.stringify(run)})`);
      continue;
    }
    const [mine, theirs] = [JSON.stringify(simVerdict(run.result)), JSON.stringify(verdictOf(d.candidate))];
    if (mine !== theirs) out.push(`${d.what}: Simulate ${mine}, report ${theirs}`);
  }
  return out;
}

describe('a changed row opened in Simulate gets the row’s verdict', () => {
  for (const mode of ['overlay', 'replace'] as const)
    for (const paramsIn of ['workspace', 'snapshot'] as const)
      it(`${mode}, the candidate's params in the ${paramsIn}`, async () => {
        // the params ConfigMap only in the snapshot: Simulate must receive it from the report
        const workspace = paramsIn === 'workspace' ? candidate.objects : candidate.objects.filter((o) => !isParams(o));
        const cluster = paramsIn === 'workspace' ? snapshot : [...snapshot, ...candidate.objects.filter(isParams)];
        const report = await analyzeImpact({
          workspace,
          cluster,
          audit: log,
          options: { kubernetesVersion: '1.37', candidate: mode, webhooks, keepRequests: 1000 },
        });
        expect(report.summary.changes['newly-denied']).toBeGreaterThanOrEqual(6);
        expect(await mismatches(report, workspace)).toEqual([]);
        // the scenario carries the release, the assumed answers, and in overlay the cluster's chain
        const first = report.events.find((e) => e.change === 'newly-denied')!;
        const draft = simulatorDraftOf(report, first.auditID)!;
        expect(draft.cluster?.kubernetesVersion).toBe('1.37');
        expect(draft.webhooks['images.shop.example.com']?.response).toBe('deny');
        expect(draft.cluster?.objects.some((o) => (o as { metadata: { name: string } }).metadata.name === 'frozen-guard')).toBe(mode === 'overlay');
      });
});

describe('clusterObjects', () => {
  const policy = (name: string, paramKind?: unknown) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { ...(paramKind ? { paramKind } : {}), validations: [{ expression: 'true' }] },
  });
  const binding = (name: string, policyName: string, paramRef?: unknown) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...(paramRef ? { paramRef } : {}) },
  });
  const cm = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data: {} });
  const request: AdmissionRequest = {
    operation: 'CREATE',
    resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    namespace: 'shop',
    name: 'w',
  };
  const crd = (group: string, plural: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: { group, names: { plural, kind: 'X' }, scope: 'Namespaced', versions: [] },
  });

  it('takes the cluster’s admission objects, the params the bindings resolve for the request, and the request’s CRD; not the workspace’s, not thousands of ConfigMaps', () => {
    const mine = policy('mine');
    const theirs = policy('limits', { apiVersion: 'v1', kind: 'ConfigMap' });
    const byName = binding('by-name', 'limits', { name: 'limits', namespace: 'params' });
    const bySelector = binding('by-selector', 'limits', { selector: {} });
    const others = Array.from({ length: 1000 }, (_, i) => cm(`ns-${i}`, `other-${i}`));
    const chain = [
      theirs,
      byName,
      bySelector,
      mine,
      cm('params', 'limits'),
      cm('shop', 'a'),
      cm('shop', 'b'),
      ...others,
      crd('example.com', 'widgets'),
      crd('example.com', 'gadgets'),
    ];
    const names = clusterObjects(
      chain,
      (o) => o === mine,
    )(request).map((o) => `${(o as { kind: string }).kind} ${(o as { metadata: { name: string } }).metadata.name}`);
    expect(names).toEqual([
      'ValidatingAdmissionPolicy limits',
      'ValidatingAdmissionPolicyBinding by-name',
      'ValidatingAdmissionPolicyBinding by-selector',
      'ConfigMap limits',
      'ConfigMap a',
      'ConfigMap b',
      'CustomResourceDefinition widgets.example.com',
    ]);
  });

  it('keeps a param kind’s scope: when nothing resolves, one of its documents goes along (cluster-scoped here: all lack a namespace)', () => {
    const limits = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Limits', metadata: { name } });
    const chain = [
      policy('cluster-params', { apiVersion: 'example.com/v1', kind: 'Limits' }),
      binding('b', 'cluster-params', { name: 'missing' }),
      limits('x'),
      limits('y'),
    ];
    const names = clusterObjects(
      chain,
      () => false,
    )(request).map((o) => `${(o as { kind: string }).kind} ${(o as { metadata: { name: string } }).metadata.name}`);
    expect(names).toEqual(['ValidatingAdmissionPolicy cluster-params', 'ValidatingAdmissionPolicyBinding b', 'Limits x']);
  });
});
