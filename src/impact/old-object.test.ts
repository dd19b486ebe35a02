/**
 * Writes whose old object the replay does not know, where matching reads it: an objectSelector
 * matches the old object's labels too (predicates/object/matcher.go MatchObjectSelector), so a
 * plugin it may select makes the decision undetermined; and where nothing that may match reads
 * the old object, the write is decided on the lean path, as the full simulation decides it.
 */
import { describe, expect, it } from 'vitest';
import { leanFallbacks } from '../admission';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { useEngine } from '../cel/test-helpers';
import type { AdmissionRequest } from '../request/model';
import { analyzeImpact, chainDecider, fullDecider, type ChainSpec } from './index';

useEngine();

const AR = 'admissionregistration.k8s.io/v1';
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
const guard = {
  apiVersion: AR,
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'deletion-guard' },
  webhooks: [
    {
      name: 'guard.example.com',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: { url: 'https://guard.example.com' },
      rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['DELETE', 'UPDATE'], resources: ['deployments'] }],
      objectSelector: { matchLabels: { protected: 'true' } },
    },
  ],
};
/** A policy on ConfigMaps that reads the old object. */
const immutable = [
  {
    apiVersion: AR,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'immutable' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] }] },
      validations: [{ expression: 'object.data == oldObject.data' }],
    },
  },
  { apiVersion: AR, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'immutable' }, spec: { policyName: 'immutable', validationActions: ['Deny'] } },
];

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

describe('an old object the replay does not know, that nothing reads', () => {
  const spec: ChainSpec = {
    baseline: [guard],
    candidate: [guard, ...immutable],
    kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
    webhooks: { 'guard.example.com': 'deny' },
  };
  const write = (operation: 'UPDATE' | 'DELETE', resource: string, kind: string, group: string, object?: unknown): AdmissionRequest =>
    ({
      operation,
      resource: { group, version: 'v1', resource },
      kind: { group, version: 'v1', kind },
      name: 'x',
      namespace: 'apps',
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      ...(object ? { object } : {}),
    }) as AdmissionRequest;
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
    const unknownOld = () => leanFallbacks().get('the old object is unknown and may be read') ?? 0;
    const before = unknownOld();
    const [full, lean] = await Promise.all([fullDecider(spec)(request, APPS), chainDecider(spec)(request, APPS)]);
    expect(lean).toEqual(full);
    expect(unknownOld() - before).toBe(mayRead ? 1 : 0);
    expect(!!(full.baseline.undetermined || full.candidate.undetermined)).toBe(mayRead);
  });
});
