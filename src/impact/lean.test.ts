/**
 * Lean verdicts (src/admission/lean.ts) against the full simulation: chainDecider (lean where it
 * can, the full run where it cannot) must give exactly the decisions fullDecider (simulatePrepared
 * and the probe for every request) gives, on
 *   - the admission oracle's scenarios (hand-written and generated: webhook chains, policies,
 *     selectors, matchConditions, dry runs, mutations), with their webhook answers and with every
 *     webhook allowing, each chain as the candidate beside an empty baseline and as both chains;
 *   - chains built here for what the lean path reads: the bench's 20 policies and 10 webhooks,
 *     audit annotations, messageExpressions, Warn and Audit actions, bindings with matchResources,
 *     selectors on labels, resourceNames, params, budgets, review resources, cluster-scoped objects;
 *   - the real apiserver's audit log and snapshot (tools/admission-oracle/testdata/audit): the
 *     whole report, both candidate modes.
 * And the lean path must decide a good share of them itself (else this compares the full run with itself).
 * The engine is the in-process WebAssembly one; `CEL_ENGINE=native npx vitest run src/impact/lean.test.ts` runs it on the native one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateBatch } from '../cel';
import { useEngine } from '../cel/test-helpers';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { leanChain, leanSet, leanVerdicts, prepareChain, type SimRequest, type WebhookResponse } from '../admission';
import { binding, hook, namespace, pod, podRequest, podRule, policy, validating, mutating } from '../admission/test-helpers';
import type { PolicyCel } from '../policy';
import type { AdmissionRequest } from '../request/model';
import { HAND_WRITTEN, generated } from '../../tools/admission-oracle/scenarios';
import { analyzeImpact, chainDecider, fullDecider, type ChainSpec } from './index';

useEngine();

const cel: PolicyCel = { evaluate: (e, c, i, o) => evaluate(e, c, i, o), evaluateBatch: (items, inputs) => evaluateBatch(items, inputs) };

interface Case {
  name: string;
  objects: unknown[];
  request: SimRequest;
  webhooks?: Record<string, WebhookResponse>;
  namespaceObject?: unknown;
}

/** Both deciders on every case; how many verdicts the lean path gave itself. */
async function compare(cases: readonly Case[]): Promise<{ requests: number; lean: number }> {
  let requests = 0;
  let lean = 0;
  for (const c of cases) {
    // the chain alone (beside an empty one), and twice (the chains share their items and one batch)
    for (const [baseline, candidate] of [
      [[], c.objects],
      [c.objects, c.objects],
    ] as const) {
      const spec: ChainSpec = { baseline: [...baseline], candidate: [...candidate], kubernetesVersion: DEFAULT_KUBERNETES_VERSION, ...(c.webhooks ? { webhooks: c.webhooks } : {}) };
      const request = c.request as AdmissionRequest;
      const [full, quick] = await Promise.all([fullDecider(spec)(request, c.namespaceObject), chainDecider(spec)(request, c.namespaceObject)]);
      expect(quick, `${c.name} (baseline ${baseline.length} objects, candidate ${candidate.length})`).toEqual(full);
      const set = leanSet([leanChain(prepareChain(spec.baseline)), leanChain(prepareChain(spec.candidate))]);
      const v = await leanVerdicts(set, c.request, { webhooks: spec.webhooks, namespaces: c.namespaceObject ? [c.namespaceObject] : [] }, cel);
      requests += 2;
      lean += v.filter(Boolean).length;
    }
  }
  return { requests, lean };
}

const allAllow = (c: Case): Case => ({ ...c, name: `${c.name} (every webhook allows)`, webhooks: {} });

describe('lean verdicts agree with the full simulation', () => {
  it("on the admission oracle's scenarios", async () => {
    const cases: Case[] = [...HAND_WRITTEN, ...generated(50, 29)];
    const r = await compare([...cases, ...cases.map(allAllow)]);
    expect(r.lean).toBeGreaterThan(r.requests / 4);
  }, 300_000);

  const vap = (name: string, spec: Record<string, unknown>, b: Record<string, unknown> = {}) => [policy('ValidatingAdmissionPolicy', name, spec), binding('ValidatingAdmissionPolicyBinding', name, name, b)];
  const bench: unknown[] = [];
  for (let i = 0; i < 20; i++) bench.push(...vap(`policy-${i}`, { validations: [{ expression: `!object.metadata.name.startsWith('deny-${i}-')`, message: `policy ${i}` }] }));
  for (let i = 0; i < 10; i++) bench.push(validating(`hook-${i}`, hook(`hook-${i}.example.com`, { timeoutSeconds: 5, matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }] })));
  const named = (name: string, extra: Partial<SimRequest> = {}) => podRequest({ name, object: { ...pod(), metadata: { ...pod().metadata, name } }, ...extra });
  const teamA = namespace('team-a', { env: 'prod' });

  it('on chains built for what the lean path reads', async () => {
    const chains: { name: string; objects: unknown[]; webhooks?: Record<string, WebhookResponse> }[] = [
      { name: 'bench', objects: bench },
      { name: 'bench, webhooks warn', objects: bench, webhooks: { 'hook-1.example.com': { warnings: ['careful'] }, 'hook-2.example.com': { patch: [] } } },
      { name: 'bench, a webhook denies', objects: bench, webhooks: { 'hook-3.example.com': 'deny' } },
      {
        name: 'audit annotations, messageExpressions, variables, actions',
        objects: [
          ...vap('annotated', {
            variables: [{ name: 'app', expression: "has(object.metadata.labels) && 'app' in object.metadata.labels ? object.metadata.labels.app : ''" }],
            validations: [{ expression: "variables.app != 'forbidden'", messageExpression: "'app ' + variables.app" }],
            auditAnnotations: [
              { key: 'app', valueExpression: "variables.app == '' ? null : 'app=' + variables.app" },
              { key: 'blank', valueExpression: "'  '" },
              { key: 'typed', valueExpression: "variables.app == 'number' ? 1 : null" },
            ],
          }),
          ...vap('warn-only', { validations: [{ expression: "object.metadata.name != 'web-warn'" }] }, { validationActions: ['Warn', 'Audit'] }),
          ...vap('conditional', { matchConditions: [{ name: 'web', expression: "object.metadata.name.startsWith('web')" }], validations: [{ expression: "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))" }] }),
          ...vap('erroring', { validations: [{ expression: "object.metadata.name != 'web-error' || object.spec.missing == 1" }] }, { validationActions: ['Deny'] }),
          ...vap('ignored', { failurePolicy: 'Ignore', validations: [{ expression: "object.metadata.name != 'web-ignore' || object.spec.missing == 1" }] }),
        ],
      },
      {
        name: 'selectors, matchResources, resourceNames, params',
        objects: [
          teamA,
          ...vap('prod-only', { validations: [{ expression: "object.metadata.name != 'web-prod'" }] }, { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }),
          ...vap('labelled', { matchConstraints: { resourceRules: [podRule], objectSelector: { matchLabels: { app: 'web' } } }, validations: [{ expression: "object.metadata.name != 'web-label'" }] }),
          ...vap('by-name', { matchConstraints: { resourceRules: [{ ...podRule, resourceNames: ['web-named'] }] }, validations: [{ expression: 'false' }] }),
          policy('ValidatingAdmissionPolicy', 'with-params', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "object.metadata.name != params.data.name" }] }),
          binding('ValidatingAdmissionPolicyBinding', 'with-params', 'with-params', { paramRef: { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Allow' } }),
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team-a' }, data: { name: 'web-param' } },
          validating('selective', hook('selective.example.com', { namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } })),
          mutating('annotate', hook('annotate.example.com', { sideEffects: 'NoneOnDryRun' })),
          validating('dry', hook('dry.example.com', { sideEffects: 'None', failurePolicy: 'Ignore', rules: [{ ...podRule, operations: ['*'] }] })),
          validating('reviews', hook('reviews.example.com', { rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] }] })),
        ],
      },
      {
        name: 'a mutating policy with a binding (the chain is left to the full run)',
        objects: [
          policy('MutatingAdmissionPolicy', 'label', { reinvocationPolicy: 'Never', mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } }] }),
          binding('MutatingAdmissionPolicyBinding', 'label', 'label'),
          ...bench.slice(0, 4),
        ],
      },
    ];
    const requests: { name: string; request: SimRequest; namespaceObject?: unknown }[] = [
      { name: 'a pod', request: named('web-1'), namespaceObject: teamA },
      { name: 'a pod the bench denies', request: named('deny-3-7'), namespaceObject: teamA },
      { name: 'a system user', request: named('web-2', { userInfo: { username: 'system:serviceaccount:kube-system:x', groups: ['system:serviceaccounts'] } }) },
      ...['web-warn', 'web-error', 'web-ignore', 'web-prod', 'web-label', 'web-named', 'web-param', 'other'].map((n) => ({ name: n, request: named(n), namespaceObject: teamA })),
      { name: 'unlabelled', request: podRequest({ object: pod({}) }), namespaceObject: teamA },
      { name: 'a numbered app', request: podRequest({ object: pod({ app: 'number' }) }), namespaceObject: teamA },
      { name: 'in team-b (no Namespace given)', request: podRequest({ namespace: 'team-b', object: pod({ app: 'web' }, 'team-b') }) },
      { name: 'a dry run', request: named('web-dry', { dryRun: true }), namespaceObject: teamA },
      { name: 'an update', request: named('web-1', { operation: 'UPDATE', oldObject: pod() }), namespaceObject: teamA },
      { name: 'a delete', request: { ...named('web-1', { operation: 'DELETE', oldObject: pod() }), object: undefined }, namespaceObject: teamA },
      {
        name: 'a TokenReview (a review resource)',
        request: { operation: 'CREATE', resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' }, kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' }, userInfo: { username: 'alice' }, object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 't' } } },
      },
      {
        name: 'a Namespace',
        request: { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'namespaces' }, kind: { group: '', version: 'v1', kind: 'Namespace' }, name: 'team-c', userInfo: { username: 'alice' }, object: namespace('team-c', { env: 'prod' }) },
      },
    ];
    const cases = chains.flatMap((c) => requests.map((r) => ({ ...r, name: `${c.name}: ${r.name}`, objects: c.objects, ...(c.webhooks ? { webhooks: c.webhooks } : {}) })));
    const r = await compare(cases);
    expect(r.lean).toBeGreaterThan(r.requests / 3);
  }, 300_000);

  const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
  const log = readFileSync(join(dir, 'audit.log'), 'utf8');
  const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
  const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };

  for (const mode of ['overlay', 'replace'] as const) {
    it(`on the real apiserver's audit log and snapshot (${mode})`, async () => {
      const run = (decider: (spec: ChainSpec) => ReturnType<typeof chainDecider>) =>
        analyzeImpact({ workspace: candidate.objects, cluster: snapshot, audit: log, options: { candidate: mode, webhooks: candidate.webhooks, decider } });
      const [full, quick] = await Promise.all([run(fullDecider), run(chainDecider)]);
      expect(quick.summary.events).toBeGreaterThan(20);
      expect(quick).toEqual(full);
    }, 120_000);
  }
});
