/**
 * A request's later engine calls read its first batch's answers (lean-answers.ts): the mutating
 * plugins run in full ask the engine nothing the first batch answered on the same inputs, and the
 * validating plugins' second batch is the first one's where the mutations changed nothing its
 * items read. The real engine, counting what reaches it; the verdicts the full simulation's.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateBatchOnce } from '../cel';
import { useEngine } from '../cel/test-helpers';
import type { PolicyCel } from '../policy';
import { leanChain, leanSet, leanVerdicts, prepareChain, requestCel, simulatePrepared, warnersOf, type SimRequest } from './index';
import { binding, hook, mutating, namespace, pod, podRequest, policy, validating } from './test-helpers';

useEngine();

/** The real engine, counting its calls. */
function counting() {
  const n = { evaluate: 0, batches: 0 };
  const cel: PolicyCel = {
    evaluate: (e, c, i, o) => (n.evaluate++, evaluate(e, c, i, o)),
    evaluateBatch: (items, inputs) => (n.batches++, evaluateBatchOnce(items, inputs)),
  };
  return { cel, n };
}

const objects = [
  policy('MutatingAdmissionPolicy', 'thaw', {
    matchConditions: [{ name: 'frozen', expression: "has(object.metadata.labels) && 'frozen' in object.metadata.labels" }],
    mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'remove', path: '/metadata/labels/frozen'}]" } }],
  }),
  binding('MutatingAdmissionPolicyBinding', 'thaw', 'thaw'),
  mutating('annotate', hook('annotate.example.com')),
  policy('ValidatingAdmissionPolicy', 'app-label', { validations: [{ expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" }] }),
  binding('ValidatingAdmissionPolicyBinding', 'app-label', 'app-label', { validationActions: ['Warn'] }),
  policy('ValidatingAdmissionPolicy', 'not-frozen', { validations: [{ expression: "!has(object.metadata.labels) || !('frozen' in object.metadata.labels)" }] }),
  binding('ValidatingAdmissionPolicyBinding', 'not-frozen', 'not-frozen'),
  validating('review', hook('review.example.com', { matchConditions: [{ name: 'named', expression: "object.metadata.name != 'skip'" }] })),
];
const options = {
  webhooks: {
    'annotate.example.com': { patch: [{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }] },
    'review.example.com': { warnings: ['reviewed'] },
  },
  namespaces: [namespace('team-a')],
};

async function both(request: SimRequest) {
  const chain = prepareChain(objects);
  const { cel, n } = counting();
  const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), request, options, cel);
  const full = await simulatePrepared(chain, request, options, requestCel(chain.kubernetesVersion));
  return { lean, full, n };
}

describe('a request whose mutating plugins run in full', () => {
  it('asks the engine once where the patch changes nothing the expressions read', async () => {
    const { lean, full, n } = await both(podRequest());
    expect(lean).toBeDefined();
    expect(lean).toMatchObject({ allowed: full.allowed, warnings: full.warnings, mutated: full.patches.length > 0 });
    expect(lean!.mutated).toBe(true);
    expect(lean!.calls).toEqual(['annotate.example.com', 'review.example.com']);
    // the policy's matchCondition from the first batch; the validating items read labels and the name, not the annotation
    expect(n).toEqual({ evaluate: 0, batches: 1 });
  });

  it('asks again where a mutation changes what they read', async () => {
    const { lean, full, n } = await both(podRequest({ object: pod({ app: 'web', frozen: 'yes' }) }));
    expect(lean).toMatchObject({ allowed: full.allowed, warnings: full.warnings, mutated: true });
    expect(lean!.allowed).toBe(true); // the label the policy removes is not there for not-frozen
    // the mutation's expression on its own (a batch of one); the labels changed: the second batch goes to the engine
    expect(n).toEqual({ evaluate: 0, batches: 3 });
  });
});

describe('mutations before a plugin the lean path leaves to its full run', () => {
  it('are named as the full run names them', async () => {
    // a binding whose param is missing under failurePolicy Fail: the plugin runs in full and rejects after the mutation before it
    const chain = prepareChain([
      policy('MutatingAdmissionPolicy', 'add-team', {
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'team': 'platform'}}]" } }],
      }),
      binding('MutatingAdmissionPolicyBinding', 'add-team', 'add-team'),
      policy('MutatingAdmissionPolicy', 'limits', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: params.data}]" } }],
      }),
      binding('MutatingAdmissionPolicyBinding', 'limits', 'limits', { paramRef: { name: 'missing', namespace: 'team-a', parameterNotFoundAction: 'Deny' } }),
    ]);
    const opts = { namespaces: [namespace('team-a')] };
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), podRequest(), opts, counting().cel);
    const full = await simulatePrepared(chain, podRequest(), opts, requestCel(chain.kubernetesVersion));
    expect(full.allowed).toBe(false);
    expect(full.patches.map((p) => p.mutator)).toEqual(['MutatingAdmissionPolicy add-team/add-team']);
    expect(lean).toMatchObject({ allowed: false, mutated: true, mutatedBy: ['MutatingAdmissionPolicy add-team/add-team'] });
  });

  it('a webhook patch before the ValidatingAdmissionPolicies run in full is named too', async () => {
    // a validating binding whose param is missing under a failurePolicy the dispatcher does not know: the policy
    // plugin runs in full after the webhooks' patches, decided lean
    const chain = prepareChain([
      mutating('annotate', hook('annotate.example.com')),
      policy('ValidatingAdmissionPolicy', 'limits', {
        failurePolicy: 'Sometimes',
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        validations: [{ expression: 'true' }],
      }),
      binding('ValidatingAdmissionPolicyBinding', 'limits', 'limits', { paramRef: { name: 'missing', namespace: 'team-a', parameterNotFoundAction: 'Deny' } }),
    ]);
    const opts = { webhooks: options.webhooks, namespaces: [namespace('team-a')] };
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), podRequest(), opts, counting().cel);
    const full = await simulatePrepared(chain, podRequest(), opts, requestCel(chain.kubernetesVersion));
    expect(full.allowed).toBe(false);
    expect(full.patches.map((p) => p.mutator)).toEqual(['MutatingWebhookConfiguration annotate/annotate.example.com']);
    expect(lean).toMatchObject({ allowed: false, mutated: true, mutatedBy: ['MutatingWebhookConfiguration annotate/annotate.example.com'] });
  });
});

describe("a MutatingAdmissionPolicy's bindings", () => {
  it('a binding that changes the object mutates, though the next one changes it back (the full run records both patches)', async () => {
    const team = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a' }, data: { team: value } });
    const chain = prepareChain([
      policy('MutatingAdmissionPolicy', 'set-team', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        mutations: [
          { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'replace', path: '/metadata/labels/team', value: params.data.team}]" } },
        ],
      }),
      binding('MutatingAdmissionPolicyBinding', 'a', 'set-team', { paramRef: { name: 'first', namespace: 'team-a' } }),
      binding('MutatingAdmissionPolicyBinding', 'b', 'set-team', { paramRef: { name: 'second', namespace: 'team-a' } }),
      team('first', 'other'),
      team('second', 'web'),
    ]);
    const opts = { namespaces: [namespace('team-a')] };
    const request = podRequest({ object: pod({ team: 'web' }) });
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), request, opts, counting().cel);
    const full = await simulatePrepared(chain, request, opts, requestCel(chain.kubernetesVersion));
    expect(full.patches.map((p) => p.mutator)).toEqual(['MutatingAdmissionPolicy set-team/a', 'MutatingAdmissionPolicy set-team/b']);
    expect(lean).toMatchObject({ allowed: true, mutated: true, mutatedBy: full.patches.map((p) => p.mutator) });
  });
});

describe('a webhook patch that changes what a selector reads', () => {
  it('plans the validating plugins again, though their expressions read nothing it changed', async () => {
    const chain = prepareChain([
      mutating('label', hook('label.example.com')),
      policy('ValidatingAdmissionPolicy', 'one-container', { validations: [{ expression: 'size(object.spec.containers) <= 1' }] }),
      binding('ValidatingAdmissionPolicyBinding', 'one-container', 'one-container'),
      validating('strict', hook('strict.example.com', { objectSelector: { matchLabels: { strict: 'yes' } } })),
    ]);
    const opts = {
      webhooks: {
        'label.example.com': { patch: [{ op: 'add', path: '/metadata/labels/strict', value: 'yes' }] },
        'strict.example.com': 'deny' as const,
      },
      namespaces: [namespace('team-a')],
    };
    const { cel, n } = counting();
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), podRequest(), opts, cel);
    const full = await simulatePrepared(chain, podRequest(), opts, requestCel(chain.kubernetesVersion));
    expect(full.allowed).toBe(false); // the label the patch adds selects the webhook that denies
    expect(lean).toMatchObject({ allowed: false, deniedBy: { webhook: 'strict.example.com', message: full.deniedBy!.message }, mutated: true });
    expect(n.batches).toBe(1); // the policy's validation answered once: the second plan reads the first batch's answer
  });
});

describe('MutatingAdmissionPolicies one after another', () => {
  const podRule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] };
  const labelPatch = (op: string, key: string) =>
    op === 'remove'
      ? { patchType: 'JSONPatch', jsonPatch: { expression: `[JSONPatch{op: 'remove', path: '/metadata/labels/${key}'}]` } }
      : { patchType: 'JSONPatch', jsonPatch: { expression: `[JSONPatch{op: 'add', path: '/metadata/labels/${key}', value: 'yes'}]` } };
  const denyLabel = (key: string) => [
    policy('ValidatingAdmissionPolicy', `no-${key}`, {
      validations: [{ expression: `!has(object.metadata.labels) || !('${key}' in object.metadata.labels)`, message: `no ${key}` }],
    }),
    binding('ValidatingAdmissionPolicyBinding', `no-${key}`, `no-${key}`),
  ];
  async function compare(objects: unknown[], object: unknown) {
    const chain = prepareChain(objects);
    const opts = { namespaces: [namespace('team-a')] };
    const request = podRequest({ object });
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), request, opts, counting().cel);
    const full = await simulatePrepared(chain, request, opts, requestCel(chain.kubernetesVersion));
    expect(lean).toMatchObject({
      allowed: full.allowed,
      mutated: full.patches.length > 0,
      mutatedBy: full.patches.map((p) => p.mutator),
      ...(full.allowed ? {} : { deniedBy: { message: full.deniedBy!.message } }),
    });
    return full;
  }

  it("a later policy's conditions read the object as the earlier one left it", async () => {
    const full = await compare(
      [
        policy('MutatingAdmissionPolicy', 'a-thaw', { mutations: [labelPatch('remove', 'frozen')] }),
        binding('MutatingAdmissionPolicyBinding', 'a-thaw', 'a-thaw'),
        policy('MutatingAdmissionPolicy', 'b-refreeze', {
          matchConditions: [{ name: 'frozen', expression: "has(object.metadata.labels) && 'frozen' in object.metadata.labels" }],
          mutations: [labelPatch('add', 'refrozen')],
        }),
        binding('MutatingAdmissionPolicyBinding', 'b-refreeze', 'b-refreeze'),
        ...denyLabel('refrozen'),
      ],
      pod({ app: 'web', frozen: 'yes' }),
    );
    expect(full.allowed).toBe(true); // the label the second policy's condition reads is gone
  });

  it("a webhook's matchConditions read the object as the policies left it", async () => {
    const chain = prepareChain([
      policy('MutatingAdmissionPolicy', 'thaw', { mutations: [labelPatch('remove', 'frozen')] }),
      binding('MutatingAdmissionPolicyBinding', 'thaw', 'thaw'),
      mutating(
        'mark',
        hook('mark.example.com', { matchConditions: [{ name: 'frozen', expression: "has(object.metadata.labels) && 'frozen' in object.metadata.labels" }] }),
      ),
      ...denyLabel('marked'),
    ]);
    const opts = {
      webhooks: { 'mark.example.com': { patch: [{ op: 'add', path: '/metadata/labels/marked', value: 'yes' }] } },
      namespaces: [namespace('team-a')],
    };
    const request = podRequest({ object: pod({ app: 'web', frozen: 'yes' }) });
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), request, opts, counting().cel);
    const full = await simulatePrepared(chain, request, opts, requestCel(chain.kubernetesVersion));
    expect(full.allowed).toBe(true); // the policy removed the label the webhook's condition reads: not called
    expect(lean).toMatchObject({ allowed: true, mutated: true, calls: [] });
  });

  it('a later policy is matched on the object as the earlier one left it', async () => {
    const full = await compare(
      [
        policy('MutatingAdmissionPolicy', 'a-gild', { mutations: [labelPatch('add', 'gold')] }),
        binding('MutatingAdmissionPolicyBinding', 'a-gild', 'a-gild'),
        policy('MutatingAdmissionPolicy', 'b-gilded', {
          matchConstraints: { resourceRules: [podRule], objectSelector: { matchLabels: { gold: 'yes' } } },
          mutations: [labelPatch('add', 'seen')],
        }),
        binding('MutatingAdmissionPolicyBinding', 'b-gilded', 'b-gilded'),
        ...denyLabel('seen'),
      ],
      pod({ app: 'web' }),
    );
    expect(full.allowed).toBe(false); // the label the first policy adds selects the second
  });
});

describe("the mutating webhooks' second round", () => {
  it("evaluates an earlier webhook's matchConditions again on the object a later one patched", async () => {
    const chain = prepareChain([
      mutating(
        'a-first',
        hook('first.example.com', {
          matchConditions: [{ name: 'unannotated', expression: "!has(object.metadata.annotations) || object.metadata.annotations.missing == 'x'" }],
        }),
      ),
      mutating('b-annotate', hook('annotate.example.com')),
    ]);
    const opts = {
      webhooks: { 'annotate.example.com': { patch: [{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }] } },
      namespaces: [namespace('team-a')],
    };
    const { cel } = counting();
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), podRequest(), opts, cel);
    const full = await simulatePrepared(chain, podRequest(), opts, requestCel(chain.kubernetesVersion));
    // (configurations in name order) the first round calls both; the second evaluates the first one's condition on the annotated object: no such key, failurePolicy Fail
    expect(full.allowed).toBe(false);
    expect(full.deniedBy!.message).toContain('no such key');
    expect(lean).toMatchObject({ allowed: false, deniedBy: { message: full.deniedBy!.message } });
  });

  it('runs again the policy and the webhook a change followed (reinvocationPolicy IfNeeded), each plugin keeping its own bookkeeping', async () => {
    const chain = prepareChain([
      policy('MutatingAdmissionPolicy', 'mark', {
        reinvocationPolicy: 'IfNeeded',
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/mutated', value: 'yes'}]" } }],
      }),
      binding('MutatingAdmissionPolicyBinding', 'mark', 'mark'),
      mutating('unmark', hook('unmark.example.com', { reinvocationPolicy: 'IfNeeded' })),
      policy('ValidatingAdmissionPolicy', 'unmarked', { validations: [{ expression: "!('mutated' in object.metadata.labels)", message: 'marked' }] }),
      binding('ValidatingAdmissionPolicyBinding', 'unmarked', 'unmarked'),
    ]);
    const opts = { webhooks: { 'unmark.example.com': { patch: [{ op: 'remove', path: '/metadata/labels/mutated' }] } }, namespaces: [namespace('team-a')] };
    const { cel } = counting();
    const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), podRequest(), opts, cel);
    const full = await simulatePrepared(chain, podRequest(), opts, requestCel(chain.kubernetesVersion));
    // the webhook's change makes the policy's plugin run it again (the object is not the one it left), whose change makes the webhook's call it again
    expect(full.steps.filter((s) => s.outcome === 'reinvoked').length).toBe(2);
    expect(full.allowed).toBe(true);
    expect(lean).toEqual({
      allowed: true,
      warnings: full.warnings,
      warnedBy: warnersOf(full.steps),
      audited: Object.keys(full.auditAnnotations),
      calls: ['unmark.example.com'],
      mutated: true,
      mutatedBy: full.patches.map((p) => p.mutator),
    });
  });
});

describe('requests alike in what a plan reads', () => {
  const kept = [
    policy('ValidatingAdmissionPolicy', 'in-namespace', {
      validations: [{ expression: 'size(object.spec.containers) <= 1', messageExpression: "'one container in ' + request.namespace" }],
    }),
    binding('ValidatingAdmissionPolicyBinding', 'in-namespace', 'in-namespace'),
    policy('ValidatingAdmissionPolicy', 'may-scale', {
      validations: [{ expression: "authorizer.group('').resource('pods').subresource('scale').check('update').allowed()", message: 'no scaling' }],
    }),
    binding('ValidatingAdmissionPolicyBinding', 'may-scale', 'may-scale', { validationActions: ['Warn'] }),
  ];
  const opts = {
    namespaces: [namespace('team-a'), namespace('team-b')],
    authorizer: [{ user: 'jane@example.com', verb: 'update', resource: 'pods', subresource: 'scale', decision: 'allow' as const }],
  };
  const containers = (n: number, ns = 'team-a') => ({
    ...pod(undefined, ns),
    spec: { containers: ['a', 'b', 'c'].slice(0, n).map((name) => ({ name, image: name })) },
  });

  /** Each request's lean verdict against the full simulation's, and the engine's batches so far after it. */
  async function replay(objects: unknown[], requests: [SimRequest, number][]) {
    const chain = prepareChain(objects);
    const set = leanSet([leanChain(chain)]);
    const { cel, n } = counting();
    for (const [request, batches] of requests) {
      const [lean] = await leanVerdicts(set, request, opts, cel);
      const full = await simulatePrepared(chain, request, opts, requestCel(chain.kubernetesVersion));
      expect(lean, request.name).toMatchObject({ allowed: full.allowed, warnings: full.warnings });
      if (!full.allowed) expect(lean!.deniedBy!.message, request.name).toBe(full.deniedBy!.message);
      expect(n.batches, request.name).toBe(batches);
    }
  }

  it('ask the engine once; the namespace a message reads is an input', () =>
    replay(kept.slice(0, 2), [
      [podRequest({ name: 'a', object: containers(3) }), 1],
      [podRequest({ name: 'b', uid: 'other', object: containers(3) }), 1], // alike in all it reads: the answers kept
      [podRequest({ name: 'c', namespace: 'team-b', object: containers(3, 'team-b') }), 2], // another namespace in the message
      [podRequest({ name: 'e', object: containers(1) }), 3],
      [podRequest({ name: 'f', namespace: 'team-b', object: containers(3, 'team-b') }), 3],
    ]));

  it('a plan that uses the authorizer reads the whole request: its user and its resource are inputs', () =>
    replay(kept, [
      [podRequest({ name: 'a', object: containers(3) }), 1],
      [podRequest({ name: 'a', object: containers(3) }), 1],
      [podRequest({ name: 'a', userInfo: { username: 'joe@example.com' }, object: containers(3) }), 2], // the warning is joe's
      [podRequest({ name: 'b', object: containers(3) }), 3],
    ]));
});
