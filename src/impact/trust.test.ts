/**
 * Where analyzeImpact must doubt rather than answer: the target release, inputs that are not what
 * they were given as, old objects it does not know, chains the log changes, and webhooks the
 * apiserver never called. Real engine and simulator; shards in this thread behind structuredClone.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { analyzeImpact, baselineNote, chainDecider, readSnapshot, shardServer, type ImpactInput, type OpenShard } from './index';

useEngine();

const AR = 'admissionregistration.k8s.io/v1';
const ns = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
});
const deployment = (name: string, replicas: number, image = 'docker.io/nginx:1.27', namespace = 'apps') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
  },
});
const cm = (name: string, namespace: string, data: Record<string, string>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...metadata },
  data,
});
const vap = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { failurePolicy: 'Fail', ...spec },
});
const binding = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName: name, validationActions: ['Deny'], ...spec },
});
const rules = (resources: string[], operations = ['CREATE', 'UPDATE'], apiGroups = ['apps']) => ({
  resourceRules: [{ apiGroups, apiVersions: ['v1'], operations, resources }],
});

let id = 0;
let second = 0;
/** An audit event as the apiserver writes it (objectRef before the objects, the timestamp last). */
function event(verb: string, ref: Record<string, string>, extra: Record<string, unknown> = {}): string {
  const code = (extra.code as number | undefined) ?? (verb === 'create' ? 201 : 200);
  const { code: _, time, ...rest } = extra;
  const group = ref.apiGroup ? `/apis/${ref.apiGroup}/v1` : '/api/v1';
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `t-${++id}`,
    stage: 'ResponseComplete',
    requestURI: `${group}${ref.namespace ? `/namespaces/${ref.namespace}` : ''}/${ref.resource}${ref.name ? `/${ref.name}` : ''}`,
    verb,
    user: { username: 'alice', groups: ['system:authenticated'] },
    objectRef: { resource: ref.resource, ...(ref.namespace ? { namespace: ref.namespace } : {}), name: ref.name, apiGroup: ref.apiGroup, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code },
    ...rest,
    requestReceivedTimestamp: (time as string | undefined) ?? new Date(Date.UTC(2026, 10, 20, 10, 0, ++second)).toISOString(),
  });
}
const at = (s: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString();
const createDeployment = (d: ReturnType<typeof deployment>, extra: Record<string, unknown> = {}) =>
  event(
    'create',
    { resource: 'deployments', apiGroup: 'apps', namespace: d.metadata.namespace, name: d.metadata.name },
    { requestObject: d, responseObject: d, ...extra },
  );
const updateDeployment = (d: ReturnType<typeof deployment>, extra: Record<string, unknown> = {}) =>
  event(
    'update',
    { resource: 'deployments', apiGroup: 'apps', namespace: d.metadata.namespace, name: d.metadata.name },
    { requestObject: d, responseObject: d, ...extra },
  );

/** A shard in this thread: setup, batches and answers cloned as a thread's messages are. */
const inThread: OpenShard = (setup, { answer }) => {
  const serve = shardServer(structuredClone(setup), chainDecider, (a) => setTimeout(() => answer(structuredClone(a))));
  return { send: (b) => setTimeout(() => serve(structuredClone(b))), close() {} };
};

describe('webhooks called', () => {
  it('a webhook whose matchCondition errors under failurePolicy Fail rejects the request without a call: it is not listed as called', async () => {
    const strict = {
      apiVersion: AR,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'strict' },
      webhooks: [
        {
          name: 'strict.example.com',
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://strict.example.com' },
          rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
          matchConditions: [{ name: 'tier', expression: "object.metadata.annotations['tier'] == 'gold'" }],
        },
      ],
    };
    const r = await analyzeImpact({ workspace: [strict], cluster: [ns('apps')], audit: createDeployment(deployment('web', 1)), options: { existing: false } });
    const c = r.events[0]!.candidate;
    expect(c.allowed).toBe(false);
    expect(c.deniedBy?.message).toContain('no such key');
    expect(c.calls).toEqual([]);
    expect(r.summary.webhookCalls).toEqual([]);
  });
});

/** A v1 MutatingAdmissionPolicy (served from 1.36) that labels Deployments, and a VAP that wants the label. */
const mapAndVap = [
  {
    apiVersion: AR,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'add-owner' },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: rules(['deployments'], ['CREATE']),
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"owner": "platform"}}}' } }],
    },
  },
  { apiVersion: AR, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'add-owner' }, spec: { policyName: 'add-owner' } },
  vap('want-owner', {
    matchConstraints: rules(['deployments'], ['CREATE']),
    validations: [{ expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels", message: 'an owner label' }],
  }),
  binding('want-owner'),
];

describe('the target release', () => {
  it('runs at the chosen release: a kind it does not serve is left out of the candidate, and the headline says so', async () => {
    const input = (kubernetesVersion: '1.30' | '1.37'): ImpactInput => ({
      workspace: mapAndVap,
      cluster: [ns('apps')],
      audit: createDeployment(deployment('web', 1)),
      options: { existing: false, kubernetesVersion },
    });
    const now = await analyzeImpact(input('1.37'));
    expect(now.events.map((e) => e.change)).toEqual(['newly-mutated']);
    expect(now.summary.warnings).toEqual([]);
    const old = await analyzeImpact(input('1.30'));
    expect(old.summary.kubernetesVersion).toBe('1.30');
    // no MutatingAdmissionPolicy at 1.30: nothing adds the label, the VAP denies
    expect(old.events.map((e) => e.change)).toEqual(['newly-denied']);
    expect(old.summary.refused.map((x) => [x.kind, x.name, x.leftOut])).toEqual([
      ['MutatingAdmissionPolicy', 'add-owner', true],
      ['MutatingAdmissionPolicyBinding', 'add-owner', true],
    ]);
    expect(old.summary.headline).toMatch(
      /^The candidate would have denied 1 of 1 writes: .* \(warning: Kubernetes 1\.30 does not serve MutatingAdmissionPolicy add-owner \(apiVersion: no matches for kind/,
    );
  });

  it('an object the release would not store is kept, and said', async () => {
    const hook = {
      apiVersion: AR,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'slow' },
      webhooks: [
        {
          name: 'slow.example.com',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 45,
          clientConfig: { url: 'https://slow.example.com' },
        },
      ],
    };
    const r = await analyzeImpact({ workspace: [hook], cluster: [ns('apps')], options: { kubernetesVersion: '1.37' } });
    expect(r.summary.refused).toEqual([expect.objectContaining({ kind: 'ValidatingWebhookConfiguration', name: 'slow', leftOut: false })]);
    expect(r.summary.warnings[0]).toMatch(
      /^Kubernetes 1\.37 would not store ValidatingWebhookConfiguration slow \(webhooks\[0\]\.timeoutSeconds: .*the result is for a configuration the cluster cannot hold$/,
    );
  });
});

const requireTeam = [
  vap('require-team', {
    matchConstraints: rules(['deployments']),
    validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'a team label' }],
  }),
  binding('require-team'),
];
const snapshotText = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [ns('apps'), deployment('old', 2), deployment('other', 3)] }, null, 2);
const goodLog = [createDeployment(deployment('a', 1)), createDeployment(deployment('b', 1))].join('\n');

async function snapshotOf(text: string): Promise<{ objects: unknown[]; problems: string[] }> {
  const out = { objects: [] as unknown[], problems: [] as string[] };
  for await (const r of readSnapshot([new TextEncoder().encode(text)], 'snapshot.json'))
    'object' in r ? out.objects.push(r.object) : out.problems.push(r.problem);
  return out;
}

describe('inputs that are not what they were given as', () => {
  it('an HTML page as the audit log is an input error, not an all-clear', async () => {
    const snap = await snapshotOf(snapshotText);
    const html = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body>…</body></html>\n';
    const r = await analyzeImpact({ workspace: requireTeam, cluster: snap.objects, audit: html });
    expect(r.summary.inputErrors).toEqual([
      'the audit log holds no readable audit event in 3 lines (the first: line 1, not a JSON object): it looks like HTML or XML, not an audit log',
    ]);
    expect(r.summary.headline).toMatch(/^Input error: the audit log holds no readable audit event/);
  });

  it('an empty log is an input error', async () => {
    const snap = await snapshotOf(snapshotText);
    const r = await analyzeImpact({ workspace: requireTeam, cluster: snap.objects, audit: '\n\n' });
    expect(r.summary.inputErrors).toEqual(['the audit log is empty']);
    expect(r.summary.headline).toMatch(/^Input error: the audit log is empty\. /);
  });

  it('a snapshot and a log swapped: both are input errors that say so', async () => {
    const asSnapshot = await snapshotOf(goodLog);
    const r = await analyzeImpact({ workspace: requireTeam, cluster: asSnapshot.objects, audit: snapshotText });
    expect(r.summary.inputErrors).toEqual([
      'the snapshot holds audit events, not cluster objects: it is an audit log (were the snapshot and the log swapped?)',
      expect.stringMatching(
        /^the audit log holds no readable audit event in \d+ lines .*: it looks like a cluster snapshot .*were the snapshot and the log swapped\?\)$/,
      ),
    ]);
    expect(r.summary.headline).toMatch(/^Input error: the snapshot holds audit events/);
  });

  it('a snapshot with no readable object is an input error; one read in part, or cut off, a warning in the headline', async () => {
    const none = await analyzeImpact({ workspace: requireTeam, cluster: [], clusterProblems: ['snapshot.json:1: not JSON: unexpected "<"'], audit: goodLog });
    expect(none.summary.inputErrors).toEqual(['the snapshot holds no readable object (snapshot.json:1: not JSON: unexpected "<")']);
    const cut = await snapshotOf(snapshotText.slice(0, snapshotText.indexOf('"other"')));
    expect(cut.objects).toHaveLength(2);
    const r = await analyzeImpact({ workspace: requireTeam, cluster: cut.objects, clusterProblems: cut.problems, audit: goodLog });
    expect(r.summary.inputErrors).toEqual([]);
    expect(r.summary.warnings).toEqual([expect.stringMatching(/^the snapshot is cut off: snapshot\.json:\d+: .*; only the 2 objects before it were read$/)]);
    expect(r.summary.headline).toMatch(/^The candidate would have denied 2 of 2 writes: .*\(warning: the snapshot is cut off: /);
  });
});

/** scale-guard: a Deployment's replicas never grow by more than 2 in one update (reads oldObject). */
const scaleGuard = [
  vap('scale-guard', {
    matchConstraints: rules(['deployments'], ['UPDATE']),
    validations: [{ expression: 'object.spec.replicas <= oldObject.spec.replicas + 2', message: 'at most two more replicas at a time' }],
  }),
  binding('scale-guard'),
];

describe('old objects the replay does not know', () => {
  const updates = [updateDeployment(deployment('old', 3)), updateDeployment(deployment('old', 9)), updateDeployment(deployment('other', 4))].join('\n');

  it('with the snapshot, the updates are decided; without it, those that read oldObject are undetermined, not denied', async () => {
    const full = await analyzeImpact({
      workspace: scaleGuard,
      cluster: [ns('apps'), deployment('old', 2), deployment('other', 3)],
      audit: updates,
      options: { existing: false },
    });
    expect(full.events.map((e) => e.change)).toEqual(['unchanged', 'newly-denied', 'unchanged']);
    const empty = await analyzeImpact({ workspace: scaleGuard, cluster: [ns('apps')], audit: updates, options: { existing: false } });
    // the first update's old object is unknown (the log has no earlier state of it); the second's is the first's
    expect(empty.events.map((e) => [e.oldObject, e.change])).toEqual([
      ['unknown', 'undetermined'],
      ['log', 'newly-denied'],
      ['unknown', 'undetermined'],
    ]);
    expect(empty.events[0]!.candidate.undetermined).toEqual(['ValidatingAdmissionPolicy scale-guard']);
    expect(empty.summary.changes).toMatchObject({ 'newly-denied': 1, undetermined: 2 });
    expect(empty.summary.newlyDeniedBy).toEqual([{ by: 'ValidatingAdmissionPolicy scale-guard', count: 1 }]);
    expect(empty.summary.headline).toBe(
      'The candidate would have denied 1 of 3 writes: 1 by ValidatingAdmissionPolicy scale-guard; 2 writes undetermined: the decision reads what the replay does not know (an old object, a Namespace, the authorizer, an object converted to another version)',
    );
  });

  it('an update whose decision does not read oldObject is decided; the same reader in both chains deciding alike is unchanged', async () => {
    const noReader = await analyzeImpact({ workspace: requireTeam, cluster: [ns('apps')], audit: updates, options: { existing: false } });
    expect(noReader.events.map((e) => e.change)).toEqual(['newly-denied', 'newly-denied', 'newly-denied']);
    // the cluster runs scale-guard already; the candidate adds a policy for Pods: nothing the old object decides can differ
    const podsOnly = [vap('pods-only', { matchConstraints: rules(['pods'], ['CREATE'], ['']), validations: [{ expression: 'false' }] }), binding('pods-only')];
    const same = await analyzeImpact({ workspace: podsOnly, cluster: [ns('apps'), ...scaleGuard], audit: updates, options: { existing: false } });
    expect(same.events.map((e) => [e.oldObject, e.change])).toEqual([
      ['unknown', 'unchanged'],
      ['log', 'unchanged'],
      ['unknown', 'unchanged'],
    ]);
    // the candidate replaces scale-guard by another version: undetermined
    const looser = [
      vap('scale-guard', { ...scaleGuard[0]!.spec, validations: [{ expression: 'object.spec.replicas <= oldObject.spec.replicas + 7' }] }),
      scaleGuard[1]!,
    ];
    const replaced = await analyzeImpact({ workspace: looser, cluster: [ns('apps'), ...scaleGuard], audit: updates, options: { existing: false } });
    expect(replaced.events.map((e) => e.change)).toEqual(['undetermined', 'no-longer-denied', 'undetermined']);
  });

  it('an old object the snapshot holds in a later version (resourceVersion) is unknown; an earlier one is the old object', async () => {
    const rv = (d: ReturnType<typeof deployment>, v: string) => ({ ...d, metadata: { ...d.metadata, resourceVersion: v } });
    const log = updateDeployment(rv(deployment('old', 9), '120'));
    const later = await analyzeImpact({
      workspace: scaleGuard,
      cluster: [ns('apps'), rv(deployment('old', 9), '130')],
      audit: log,
      options: { existing: false },
    });
    expect(later.events.map((e) => [e.oldObject, e.change, e.snapshotTime])).toEqual([['unknown', 'undetermined', 'after']]);
    expect(later.summary.notes.some((n) => n.startsWith("the snapshot was taken after the log's line 1"))).toBe(true);
    const earlier = await analyzeImpact({
      workspace: scaleGuard,
      cluster: [ns('apps'), rv(deployment('old', 2), '100')],
      audit: log,
      options: { existing: false },
    });
    expect(earlier.events.map((e) => [e.oldObject, e.change, e.snapshotTime])).toEqual([['snapshot', 'newly-denied', 'before']]);
    expect(earlier.summary.notes.some((n) => n.startsWith("the snapshot was taken before the log's line 1"))).toBe(true);
  });
});

/** allowed-registries: every image from a registry the param ConfigMap lists (params read in log order). */
const registries = [
  cm('registry-allowlist', 'policy-params', { registries: 'docker.io,ghcr.io' }),
  vap('allowed-registries', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: rules(['deployments'], ['CREATE']),
    validations: [
      {
        expression: "object.spec.template.spec.containers.all(c, params.data.registries.split(',').exists(r, c.image.startsWith(r + '/')))",
        messageExpression: "'images come from ' + params.data.registries",
      },
    ],
  }),
  binding('allowed-registries', { paramRef: { name: 'registry-allowlist', namespace: 'policy-params', parameterNotFoundAction: 'Deny' } }),
];
const patchAllowlist = (registries: string, code = 200) =>
  event(
    'patch',
    { resource: 'configmaps', namespace: 'policy-params', name: 'registry-allowlist' },
    { requestObject: { data: { registries } }, responseObject: cm('registry-allowlist', 'policy-params', { registries }), code },
  );

describe('objects the chains read, replayed in log order', () => {
  it('a param patched in the log decides the requests after it (and not those before); shards agree', async () => {
    const log = [
      createDeployment(deployment('a', 1, 'ghcr.io/a:1')),
      patchAllowlist('docker.io'),
      createDeployment(deployment('b', 1, 'ghcr.io/b:1')),
      createDeployment(deployment('c', 1, 'docker.io/c:1')),
      patchAllowlist('docker.io,ghcr.io,quay.io'),
      createDeployment(deployment('d', 1, 'ghcr.io/d:1')),
    ].join('\n');
    const input: ImpactInput = { workspace: registries, cluster: [ns('apps'), ns('policy-params')], audit: log, options: { existing: false } };
    const one = await analyzeImpact(input);
    expect(one.events.filter((e) => e.request.resource === 'deployments.apps').map((e) => [e.request.name, e.change])).toEqual([
      ['a', 'unchanged'],
      ['b', 'newly-denied'],
      ['c', 'unchanged'],
      ['d', 'unchanged'],
    ]);
    expect(one.events.find((e) => e.request.name === 'b')!.candidate.deniedBy?.message).toContain('images come from docker.io');
    for (const n of [2, 3])
      expect(await analyzeImpact({ ...input, options: { ...input.options, shards: Array.from({ length: n }, () => inThread) } })).toEqual(one);
    // a log without timestamps is followed alike
    const untimed = await analyzeImpact({ ...input, audit: log.replace(/,"requestReceivedTimestamp":"[^"]*"/g, '') });
    expect(untimed.events.map((e) => e.change)).toEqual(one.events.map((e) => e.change));
  });

  it('a CustomResourceDefinition the log creates: its objects are params from then on', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'limits.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'limits', singular: 'limit', kind: 'Limit' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    const limitObject = (max: number) => ({ apiVersion: 'example.com/v1', kind: 'Limit', metadata: { name: 'default', namespace: 'apps' }, spec: { max } });
    const capped = [
      vap('capped', {
        paramKind: { apiVersion: 'example.com/v1', kind: 'Limit' },
        matchConstraints: rules(['deployments'], ['CREATE']),
        validations: [{ expression: 'object.spec.replicas <= params.spec.max', messageExpression: "'at most ' + string(params.spec.max)" }],
      }),
      binding('capped', { paramRef: { name: 'default', parameterNotFoundAction: 'Deny' } }),
    ];
    const limitWrite = (verb: string, max: number) =>
      event(
        verb,
        { resource: 'limits', apiGroup: 'example.com', namespace: 'apps', name: 'default' },
        { requestObject: limitObject(max), responseObject: limitObject(max) },
      );
    const log = [
      createDeployment(deployment('a', 3)),
      event(
        'create',
        { resource: 'customresourcedefinitions', apiGroup: 'apiextensions.k8s.io', name: 'limits.example.com' },
        { requestObject: crd, responseObject: crd },
      ),
      limitWrite('create', 2),
      createDeployment(deployment('b', 3)),
      limitWrite('update', 4),
      createDeployment(deployment('c', 3)),
    ].join('\n');
    const r = await analyzeImpact({ workspace: capped, cluster: [ns('apps')], audit: log, options: { existing: false } });
    expect(r.events.filter((e) => e.request.resource === 'deployments.apps').map((e) => [e.request.name, e.candidate.deniedBy?.message ?? 'allowed'])).toEqual([
      ['a', expect.stringContaining('no params found')],
      ['b', expect.stringContaining('at most 2')],
      ['c', 'allowed'],
    ]);
  });

  it('a policy the log creates and then updates decides from its create on, in its version of the time', async () => {
    const base = second;
    const limit = (max: number) =>
      vap('max-replicas', {
        matchConstraints: rules(['deployments']),
        validations: [{ expression: `object.spec.replicas <= ${max}`, message: `at most ${max}` }],
      });
    const log = [
      createDeployment(deployment('a', 5), { code: 201 }),
      event(
        'create',
        { resource: 'validatingadmissionpolicies', apiGroup: 'admissionregistration.k8s.io', name: 'max-replicas' },
        { requestObject: limit(3), responseObject: limit(3) },
      ),
      event(
        'create',
        { resource: 'validatingadmissionpolicybindings', apiGroup: 'admissionregistration.k8s.io', name: 'max-replicas' },
        { requestObject: binding('max-replicas'), responseObject: binding('max-replicas') },
      ),
      createDeployment(deployment('b', 5), {
        code: 422,
        responseObject: undefined,
        responseStatus: {
          code: 422,
          message: "deployments.apps \"b\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 3",
        },
      }),
      event(
        'update',
        { resource: 'validatingadmissionpolicies', apiGroup: 'admissionregistration.k8s.io', name: 'max-replicas' },
        { requestObject: limit(6), responseObject: limit(6) },
      ),
      createDeployment(deployment('c', 5)),
    ].join('\n');
    // the snapshot after the log: the policy as the log left it, created at its create line's time
    const created = (o: { metadata: Record<string, unknown> }, s: number) => ({
      ...o,
      metadata: { ...o.metadata, creationTimestamp: at(s).replace(/\.\d+Z$/, 'Z') },
    });
    const r = await analyzeImpact({
      workspace: [],
      cluster: [ns('apps'), created(limit(6), base + 2), created(binding('max-replicas'), base + 3)],
      audit: log,
      options: { existing: false },
    });
    expect(r.events.filter((e) => e.request.resource === 'deployments.apps').map((e) => [e.request.name, e.baseline.allowed])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
    expect(r.summary.baselineDisagrees).toBe(0);
  });
});

describe('where the baseline is not the cluster', () => {
  it('names who denied what the cluster admitted: the replay lacks something the cluster had (here the param)', async () => {
    const needsParam = [
      vap('needs-param', {
        matchConstraints: rules(['deployments'], ['CREATE']),
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        validations: [{ expression: 'object.spec.replicas <= int(params.data.max)' }],
      }),
      binding('needs-param', { paramRef: { name: 'limits', namespace: 'apps', parameterNotFoundAction: 'Deny' } }),
    ];
    const log = [createDeployment(deployment('a', 1)), createDeployment(deployment('b', 1))].join('\n');
    const r = await analyzeImpact({ workspace: [], cluster: [ns('apps'), ...needsParam], audit: log, options: { existing: false } });
    expect(r.summary.baselineDisagrees).toBe(2);
    expect(r.summary.baselineDeniedBy).toEqual([{ by: 'ValidatingAdmissionPolicy needs-param', count: 2 }]);
    expect(baselineNote(r.summary)).toMatch(/; it denied 2 the cluster admitted: 2 by ValidatingAdmissionPolicy needs-param$/);
  });
});
