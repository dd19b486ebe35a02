/**
 * Writes whose old object, Namespace or authorizer answers the replay does not know, where CEL or matching reads them: an
 * objectSelector matches the old object's labels too (predicates/object/matcher.go
 * MatchObjectSelector), a namespaceSelector the Namespace's, so a plugin they may select makes the
 * decision undetermined; and where nothing that may match reads them, the write is decided on the
 * lean path, as the full simulation decides it.
 */
import { describe, expect, it } from 'vitest';
import { leanFallbacks } from '../admission';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { useEngine } from '../cel/test-helpers';
import type { AdmissionRequest } from '../request/model';
import { binding, hook, policy, validating } from '../admission/test-helpers';
import { analyzeImpact, chainDecider, fullDecider, type ChainSpec } from './index';

useEngine();

/** The lean path's count of requests decided in full for what they may read of the unknown (decide.ts). */
const UNKNOWN_READ = 'what the replay does not know of the request may be read';

/** A ValidatingAdmissionPolicy (failurePolicy Fail) with one validation, and its Deny binding. */
const vap = (name: string, matchConstraints: Record<string, unknown>, expression: string) => [
  policy('ValidatingAdmissionPolicy', name, { failurePolicy: 'Fail', matchConstraints, validations: [{ expression }] }),
  binding('ValidatingAdmissionPolicyBinding', name, name),
];
const APPS = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', labels: { 'kubernetes.io/metadata.name': 'apps' } } };
const deployment = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'apps', labels: { app: name, ...labels } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

/** A validating webhook on deletes and updates of Deployments labelled protected=true, the kind a deletion guard is. */
const guard = validating(
  'deletion-guard',
  hook('guard.example.com', {
    failurePolicy: 'Fail',
    rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['DELETE', 'UPDATE'], resources: ['deployments'] }],
    objectSelector: { matchLabels: { protected: 'true' } },
  }),
);
/** A policy on ConfigMaps that reads the old object. */
const immutable = vap(
  'immutable',
  { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] }] },
  'object.data == oldObject.data',
);

let second = 0;
function event(verb: string, name: string, objects: Record<string, unknown> = {}): string {
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `o-${++second}`,
    stage: 'ResponseComplete',
    requestURI: `/apis/apps/v1/namespaces/apps/deployments/${name}`,
    verb,
    user: { username: 'alice', groups: ['system:authenticated'] },
    objectRef: { resource: 'deployments', namespace: 'apps', name, apiGroup: 'apps', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    ...objects,
    requestReceivedTimestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, second)).toISOString(),
  });
}
const update = (d: ReturnType<typeof deployment>) => event('update', d.metadata.name, { requestObject: d, responseObject: d });

describe('an old object the replay does not know, read by matching', () => {
  const log = [
    event('delete', 'kept'), // in the snapshot, protected
    event('delete', 'plain'), // in the snapshot, not protected
    event('delete', 'gone'), // unknown: its labels decide whether the guard is called
    update(deployment('gone-2')), // unknown, the new object unlabelled: the old one's labels decide
    update(deployment('gone-3', { protected: 'true' })), // unknown, but the new object is selected: decided
  ].join('\n');
  const cluster = [APPS, deployment('kept', { protected: 'true' }), deployment('plain')];
  const options = { existing: false, webhooks: { 'guard.example.com': 'deny' as const } };

  it('a plugin an objectSelector may select by the old labels makes the decision undetermined', async () => {
    const r = await analyzeImpact({ workspace: [guard], cluster, audit: log, options });
    expect(r.events.map((e) => [e.request.name, e.oldObject, e.change])).toEqual([
      ['kept', 'snapshot', 'newly-denied'],
      ['plain', 'snapshot', 'unchanged'],
      ['gone', 'unknown', 'undetermined'],
      ['gone-2', 'unknown', 'undetermined'],
      ['gone-3', 'unknown', 'newly-denied'],
    ]);
    expect(r.events[2]!.candidate.undetermined).toEqual(['ValidatingWebhookConfiguration deletion-guard: guard.example.com']);
    expect(r.events[2]!.baseline.undetermined).toBeUndefined();
  });

  it('the same plugin in both chains, deciding alike, changes nothing', async () => {
    const r = await analyzeImpact({ workspace: immutable, cluster: [...cluster, guard], audit: log, options });
    expect(r.events.map((e) => e.change)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
  });
});

/** A request on `resource` in `namespace` (an object only where given). */
const write = (
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  resource: string,
  kind: string,
  group: string,
  object?: unknown,
  namespace = 'apps',
): AdmissionRequest =>
  ({
    operation,
    resource: { group, version: 'v1', resource },
    kind: { group, version: 'v1', kind },
    name: 'x',
    namespace,
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    ...(object ? { object } : {}),
  }) as AdmissionRequest;

describe('an old object the replay does not know, that nothing reads', () => {
  const spec: ChainSpec = {
    baseline: [guard],
    candidate: [guard, ...immutable],
    kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
    webhooks: { 'guard.example.com': 'deny' },
  };
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'apps' }, data: { a: '1' } };
  const requests: [string, AdmissionRequest, boolean][] = [
    // [what, request, whether the old object may be read]
    ['a ConfigMap deleted', write('DELETE', 'configmaps', 'ConfigMap', ''), false],
    ['a ConfigMap updated (the policy reads oldObject)', write('UPDATE', 'configmaps', 'ConfigMap', '', configMap), true],
    ['a Deployment deleted (the guard may select it)', write('DELETE', 'deployments', 'Deployment', 'apps'), true],
    [
      'a protected Deployment updated (the guard selects it)',
      write('UPDATE', 'deployments', 'Deployment', 'apps', deployment('x', { protected: 'true' })),
      false,
    ],
    ['a Secret updated', write('UPDATE', 'secrets', 'Secret', '', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'apps' } }), false],
  ];

  it.each(requests)('%s: decided as the full simulation decides it, on the lean path where nothing may read the old object', async (_, request, mayRead) => {
    const unknownOld = () => leanFallbacks().get(UNKNOWN_READ) ?? 0;
    const before = unknownOld();
    const [full, lean] = await Promise.all([fullDecider(spec)(request, APPS), chainDecider(spec)(request, APPS)]);
    expect(lean).toEqual(full);
    expect(unknownOld() - before).toBe(mayRead ? 1 : 0);
    expect(!!(full.baseline.undetermined || full.candidate.undetermined)).toBe(mayRead);
  });
});

describe('a Namespace the replay does not know', () => {
  const cmRules = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
  const denying = (name: string, namespaceSelector?: Record<string, unknown>, expression = 'false') =>
    vap(name, { ...cmRules, ...(namespaceSelector ? { namespaceSelector } : {}) }, expression);
  const prodOnly = denying('prod-only', { matchLabels: { env: 'prod' } });
  const byName = denying('by-name', { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['shop'] }] });
  const otherName = denying('other-name', { matchLabels: { env: 'prod', 'kubernetes.io/metadata.name': 'other' } });
  const teamLabel = denying('team-label', undefined, "has(namespaceObject.metadata.labels) && 'team' in namespaceObject.metadata.labels");
  const create = (i: number) =>
    JSON.stringify({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: `n-${i}`,
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/shop/configmaps',
      verb: 'create',
      user: { username: 'alice', groups: ['system:authenticated'] },
      objectRef: { resource: 'configmaps', namespace: 'shop', name: `c${i}`, apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'shop' }, data: { a: '1' } },
      requestReceivedTimestamp: new Date(Date.UTC(2026, 10, 20, 11, 0, i)).toISOString(),
    });
  const shop = (labels: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop', labels: { 'kubernetes.io/metadata.name': 'shop', ...labels } },
  });
  const change = async (workspace: unknown[], cluster: unknown[]) =>
    (await analyzeImpact({ workspace, cluster, audit: create(1), options: { existing: false } })).events.map((e) => [e.change, e.candidate.undetermined]);

  it('a namespaceSelector on its labels, or CEL reading namespaceObject, make the decision undetermined; on its name, not', async () => {
    const holder = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'default' }, data: {} }];
    expect(await change(prodOnly, [shop({ env: 'prod' })])).toEqual([['newly-denied', undefined]]);
    expect(await change(prodOnly, [shop({ env: 'dev' })])).toEqual([['unchanged', undefined]]);
    expect(await change(prodOnly, holder)).toEqual([['undetermined', ['ValidatingAdmissionPolicy prod-only']]]);
    expect(await change(teamLabel, holder)).toEqual([['undetermined', ['ValidatingAdmissionPolicy team-label']]]);
    expect(await change(byName, holder)).toEqual([['newly-denied', undefined]]);
    // its name is known: a selector asking for another never matches, whatever its other labels
    expect(await change(otherName, holder)).toEqual([['unchanged', undefined]]);
  });

  it.each([
    ['selected by its labels', prodOnly, true],
    ['read by CEL', teamLabel, true],
    ['selected by its name', byName, false],
    ['selected by another name', otherName, false],
  ] as const)('a policy %s: decided as the full simulation decides it, lean where nothing may read the Namespace', async (_, objects, mayRead) => {
    const spec: ChainSpec = { baseline: [], candidate: [...objects], kubernetesVersion: DEFAULT_KUBERNETES_VERSION };
    const request = write('CREATE', 'configmaps', 'ConfigMap', '', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'shop' } }, 'shop');
    const before = leanFallbacks().get(UNKNOWN_READ) ?? 0;
    const [full, lean] = await Promise.all([fullDecider(spec)(request, undefined), chainDecider(spec)(request, undefined)]);
    expect(lean).toEqual(full);
    expect((leanFallbacks().get(UNKNOWN_READ) ?? 0) - before).toBe(mayRead ? 1 : 0);
    expect(!!full.candidate.undetermined).toBe(mayRead);
  });
});

describe("the authorizer's answers", () => {
  const rules = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
  const checking = (name: string, expression: string) => vap(name, rules, expression);
  const canDelete = checking('can-delete', "authorizer.group('').resource('configmaps').namespace('apps').check('delete').allowed()");
  const saCanGet = checking('sa-can-get', "authorizer.serviceAccount('apps', 'reader').group('').resource('configmaps').check('get').allowed()");
  const guarded = checking(
    'guarded',
    "!has(object.metadata.labels) || authorizer.group('').resource('configmaps').namespace('apps').check('delete').allowed()",
  );
  const by = (groups: string[], labels?: Record<string, string>) => ({
    ...write('CREATE', 'configmaps', 'ConfigMap', '', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'apps', ...(labels ? { labels } : {}) },
    }),
    userInfo: { username: 'jane', groups: [...groups, 'system:authenticated'] },
  });
  const cases: [string, unknown[], string[], Record<string, string> | undefined, string[] | undefined, number][] = [
    // [what, candidate, the user's groups, the object's labels, undetermined, decided in full]
    ["a check of the request's user, by a user the replay knows nothing of", canDelete, [], undefined, ['ValidatingAdmissionPolicy can-delete'], 1],
    ["a check of the request's user, by a member of system:masters (allowed everything)", canDelete, ['system:masters'], undefined, undefined, 0],
    ["a service account's check, by a member of system:masters", saCanGet, ['system:masters'], undefined, ['ValidatingAdmissionPolicy sa-can-get'], 1],
    // a check costs 350,000 whatever it answers: an evaluation that cost less asked none, and its
    // answers cannot have changed the decision (the lean path's, kept answers included, or the full run's)
    ['a check behind a guard the request does not pass (decided lean)', guarded, [], undefined, undefined, 0],
    ['a check behind a guard the request passes', guarded, [], { team: 'a' }, ['ValidatingAdmissionPolicy guarded'], 1],
  ];

  it.each(cases)('%s', async (_, candidate, groups, labels, undetermined, inFull) => {
    const spec: ChainSpec = { baseline: [], candidate, kubernetesVersion: DEFAULT_KUBERNETES_VERSION };
    const before = leanFallbacks().get(UNKNOWN_READ) ?? 0;
    const request = by(groups, labels);
    const [full, lean] = await Promise.all([fullDecider(spec)(request, APPS), chainDecider(spec)(request, APPS)]);
    expect(lean).toEqual(full);
    expect(full.candidate.undetermined).toEqual(undetermined);
    expect((leanFallbacks().get(UNKNOWN_READ) ?? 0) - before).toBe(inFull);
    if (!undetermined) expect(full.candidate.allowed).toBe(true);
  });

  it('a check the lean path answered before, from its kept answers (no engine call), is still seen', async () => {
    const decide = chainDecider({ baseline: [], candidate: guarded, kubernetesVersion: DEFAULT_KUBERNETES_VERSION });
    for (let i = 0; i < 3; i++) expect((await decide(by([], { team: 'a' }), APPS)).candidate.undetermined).toEqual(['ValidatingAdmissionPolicy guarded']);
  });
});

describe('an object the apiserver converts to another version whose fields differ', () => {
  // matchPolicy Equivalent: an autoscaling/v1 write reaches a policy on autoscaling/v2 converted,
  // its targetCPUUtilizationPercentage moved into v2's metrics; the replay changes only the apiVersion
  const cap = vap(
    'hpa-cap',
    { resourceRules: [{ apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'] }] },
    'object.spec.maxReplicas <= 2',
  );
  const hpa = (version: 'v1' | 'v2'): AdmissionRequest => {
    const spec =
      version === 'v1'
        ? { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 }
        : { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 };
    return {
      ...write('CREATE', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', 'autoscaling'),
      resource: { group: 'autoscaling', version, resource: 'horizontalpodautoscalers' },
      kind: { group: 'autoscaling', version, kind: 'HorizontalPodAutoscaler' },
      object: { apiVersion: `autoscaling/${version}`, kind: 'HorizontalPodAutoscaler', metadata: { name: 'x', namespace: 'apps' }, spec },
    };
  };
  const spec: ChainSpec = { baseline: [], candidate: cap, kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks: {} };

  it('is undetermined where a policy matched through the other version reads the object; a write in its own version is decided', async () => {
    for (const decider of [chainDecider(spec), fullDecider(spec)]) {
      const converted = await decider(hpa('v1'), APPS);
      expect(converted.candidate.undetermined).toEqual(['ValidatingAdmissionPolicy hpa-cap']);
      expect(converted.baseline.undetermined).toBeUndefined();
      const own = await decider(hpa('v2'), APPS);
      expect(own.candidate).toMatchObject({ allowed: false, deniedBy: { name: 'hpa-cap' } });
      expect(own.candidate.undetermined).toBeUndefined();
    }
  });
});
