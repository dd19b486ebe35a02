/**
 * Lean verdicts with mutations, params and webhook answers (src/admission/lean.ts) against the full
 * simulation: chainDecider must give exactly the decisions fullDecider gives (verdict, denier and
 * every denial, warnings, audit annotation keys, calls, mutated) on generated chains of
 * MutatingAdmissionPolicies (JSONPatch and ApplyConfiguration, matchConditions, reinvocation,
 * failurePolicy), mutating webhooks whose assumed answer patches, denies or fails, policies with
 * params (found, missing, selected by labels) and validating webhooks that deny, warn or fail;
 * and on the real apiserver's audit log with a mutating webhook that patches. The lean path must
 * decide most of them itself (fully, or with only the mutating or the policy plugin run in full),
 * else this compares the full run with itself.
 * `CEL_ENGINE=native npx vitest run src/impact/lean-mutations.test.ts` runs it on the native engine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../cel';
import { useEngine } from '../cel/test-helpers';
import { CEL_LIMITS } from '../cel/types';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { leanFallbacks, type SimRequest, type WebhookResponse } from '../admission';
import { binding, hook, mutating, namespace, pod, podRequest, policy, validating } from '../admission/test-helpers';
import type { AdmissionRequest } from '../request/model';
import { analyzeImpact, chainDecider, fullDecider, type ChainSpec } from './index';

useEngine();

/** The lean path's counts (leanFallbacks) since `before`: how many verdicts fell back to the full simulation, how many ran a plugin in full, how many had webhooks' patches applied lean. */
function countsSince(before: Map<string, number>): { full: number; partly: number; patched: number; reasons: Record<string, number> } {
  let full = 0;
  let partly = 0;
  let patched = 0;
  const reasons: Record<string, number> = {};
  for (const [k, n] of leanFallbacks()) {
    const d = n - (before.get(k) ?? 0);
    if (d) reasons[k] = d;
    if (k.startsWith('partly: ')) partly += d;
    else if (k.startsWith('lean: ')) patched += d;
    else full += d;
  }
  return { full, partly, patched, reasons };
}

let seed = 4401;
const rand = () => {
  // mulberry32: the same chains on every run
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const maybe = (p: number) => rand() < p;

const teamA = namespace('team-a', { env: 'prod' });
const params = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team-a', labels: { tier: 'gold' } }, data: { max: '2', name: 'web-param' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict', namespace: 'team-a', labels: { tier: 'gold' } }, data: { max: '1', name: 'deny-p' } },
];

const MUTATIONS = [
  { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/mutated', value: 'yes'}]" } },
  { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'remove', path: '/metadata/labels/frozen'}]" } },
  { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } },
  { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: {"seen": object.metadata.name}}}' } },
];
const CONDITIONS = [
  "has(object.metadata.labels) && 'frozen' in object.metadata.labels",
  "object.metadata.name.startsWith('mut')",
  'true',
  "object.metadata.labels.missing == 'x'",
];
const VALIDATIONS = [
  "!has(object.metadata.labels) || !('mutated' in object.metadata.labels) || object.metadata.name != 'mut-deny'",
  "!has(object.metadata.labels) || !('frozen' in object.metadata.labels)",
  "!object.metadata.name.startsWith('deny')",
  "!has(object.metadata.labels) || !('team' in object.metadata.labels) || object.metadata.labels.team == 'a'",
];
/** Validations that read what the webhooks' patches change (the `patches` chains). */
const PATCH_VALIDATIONS = [
  "!has(object.metadata.labels) || !('patched' in object.metadata.labels) || object.metadata.name.startsWith('web')",
  "!has(object.metadata.labels) || !('app' in object.metadata.labels) || object.metadata.labels.app == 'web'",
];
/** The `patches` chains' answers: mostly patches that apply, one of them the label a later webhook's objectSelector reads (the others' answers: WEBHOOK_ANSWERS). */
const PATCH_ANSWERS: WebhookResponse[] = [
  { patch: [{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }] },
  { patch: [{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }] },
  { patch: [{ op: 'replace', path: '/metadata/labels/app', value: 'other' }] },
  { warnings: ['careful'] },
  'allow',
];
const WEBHOOK_ANSWERS: WebhookResponse[] = [
  'allow',
  'deny',
  'unavailable',
  { warnings: ['careful'] },
  { patch: [{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }] },
  { patch: [{ op: 'replace', path: '/metadata/labels/app', value: 'other' }] },
  { patch: [{ op: 'remove', path: '/spec/missing' }] },
  { patch: [] },
];

/**
 * A generated chain and its webhooks' answers. `patches`: chains where webhooks' patches are the
 * only mutations (src/admission/lean-patch.ts decides them): MutatingAdmissionPolicies that match
 * with conditions false for most requests, mutating webhooks mostly without matchConditions and
 * never reinvoked, some selecting the label an earlier one's patch adds.
 */
function chain(k: number, patches = false): { objects: unknown[]; webhooks: Record<string, WebhookResponse> } {
  const objects: unknown[] = [teamA, ...params];
  const webhooks: Record<string, WebhookResponse> = {};
  for (let i = 0, n = patches ? Math.floor(rand() * 2) : 1 + Math.floor(rand() * 2); i < n; i++) {
    const name = `map-${k}-${i}`;
    const spec: Record<string, unknown> = {
      failurePolicy: pick(['Fail', 'Ignore']),
      reinvocationPolicy: pick(['Never', 'IfNeeded']),
      mutations: [pick(MUTATIONS)],
    };
    if (patches) spec.matchConditions = [{ name: 'c', expression: CONDITIONS[0] }];
    else if (maybe(0.7)) spec.matchConditions = [{ name: 'c', expression: pick(CONDITIONS) }];
    if (maybe(0.2)) {
      spec.paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
      spec.mutations = [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/max', value: params.data.max}]" } }];
    }
    objects.push(policy('MutatingAdmissionPolicy', name, spec));
    const b: Record<string, unknown> = spec.paramKind
      ? { paramRef: { name: pick(['limits', 'absent']), namespace: 'team-a', parameterNotFoundAction: pick(['Allow', 'Deny']) } }
      : {};
    if (maybe(0.2)) b.matchResources = { namespaceSelector: { matchLabels: { env: pick(['prod', 'dev']) } } };
    objects.push(binding('MutatingAdmissionPolicyBinding', name, name, b));
  }
  for (let i = 0, n = patches ? 1 + Math.floor(rand() * 3) : Math.floor(rand() * 3); i < n; i++) {
    const name = `mw-${k}-${i}.example.com`;
    const extra: Record<string, unknown> = {
      reinvocationPolicy: patches ? pick(['Never', 'Never', 'Never', 'IfNeeded']) : pick(['Never', 'IfNeeded']),
      failurePolicy: pick(['Fail', 'Ignore']),
    };
    if (patches && i > 0 && maybe(0.4)) extra.objectSelector = { matchLabels: { patched: 'yes' } };
    if (maybe(patches ? 0.15 : 0.3)) extra.matchConditions = [{ name: 'm', expression: pick(CONDITIONS) }];
    objects.push(mutating(`mw-${k}-${i}`, hook(name, extra)));
    webhooks[name] = pick(patches ? PATCH_ANSWERS : WEBHOOK_ANSWERS);
  }
  for (let i = 0, n = 1 + Math.floor(rand() * 3); i < n; i++) {
    const name = `vap-${k}-${i}`;
    const spec: Record<string, unknown> = {
      validations: [{ expression: pick(patches ? [...VALIDATIONS, ...PATCH_VALIDATIONS] : VALIDATIONS), message: `${name} says no` }],
    };
    const b: Record<string, unknown> = { validationActions: pick([['Deny'], ['Warn', 'Audit'], ['Deny', 'Audit']]) };
    if (maybe(0.4)) {
      spec.paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
      spec.validations = [
        { expression: 'object.metadata.name != params.data.name', messageExpression: "'no ' + params.data.name" },
        { expression: '!has(object.metadata.labels) || size(object.metadata.labels) <= int(params.data.max) + 1' },
      ];
      b.paramRef = pick([
        { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Deny' },
        { name: 'absent', namespace: 'team-a', parameterNotFoundAction: pick(['Allow', 'Deny']) },
        { selector: { matchLabels: { tier: 'gold' } }, namespace: 'team-a', parameterNotFoundAction: 'Allow' },
        { name: 'limits', parameterNotFoundAction: 'Allow' },
      ]);
    }
    if (maybe(0.3))
      spec.auditAnnotations = [{ key: 'seen', valueExpression: "'labels ' + string(has(object.metadata.labels) ? size(object.metadata.labels) : 0)" }];
    if (maybe(0.2)) spec.failurePolicy = 'Ignore';
    objects.push(policy('ValidatingAdmissionPolicy', name, spec), binding('ValidatingAdmissionPolicyBinding', name, name, b));
  }
  for (let i = 0, n = patches ? 1 + Math.floor(rand() * 3) : Math.floor(rand() * 3); i < n; i++) {
    const name = `vw-${k}-${i}.example.com`;
    const extra: Record<string, unknown> = { failurePolicy: pick(['Fail', 'Ignore']) };
    if (maybe(patches ? 0.5 : 0.3)) extra.objectSelector = { matchLabels: { patched: 'yes' } };
    // matchConditions that are true, false or err (a missing label): under Fail an error rejects before any call
    if (patches && maybe(0.5)) extra.matchConditions = [{ name: 'v', expression: pick(CONDITIONS) }];
    objects.push(validating(`vw-${k}-${i}`, hook(name, extra)));
    webhooks[name] = pick([
      'allow',
      'deny',
      'unavailable',
      { warnings: ['validating warns'] },
      { patch: [{ op: 'add', path: '/x', value: 1 }] },
    ] as WebhookResponse[]);
  }
  return { objects, webhooks };
}

const requests = (): { name: string; request: SimRequest }[] => {
  const named = (name: string, labels: Record<string, string>, extra: Partial<SimRequest> = {}) =>
    podRequest({ name, object: { ...pod(labels), metadata: { ...pod(labels).metadata, name } }, ...extra });
  return [
    { name: 'web', request: named('web', { app: 'web' }) },
    { name: 'frozen', request: named('web-frozen', { app: 'web', frozen: 'true' }) },
    { name: 'mut', request: named('mut-1', { app: 'web' }) },
    { name: 'mut-deny', request: named('mut-deny', { app: 'web', mutated: 'yes' }) },
    { name: 'deny', request: named('deny-1', { app: 'web' }) },
    { name: 'param name', request: named('web-param', { app: 'web' }) },
    { name: 'many labels', request: named('labelled', { app: 'web', a: '1', b: '2', c: '3' }) },
    { name: 'an update', request: named('mut-2', { app: 'web', frozen: 'x' }, { operation: 'UPDATE', oldObject: pod() }) },
    { name: 'a dry run', request: named('mut-3', { app: 'web' }, { dryRun: true }) },
  ];
};

describe('lean verdicts with mutations, params and webhook answers agree with the full simulation', () => {
  it('on generated chains', async () => {
    const before = new Map(leanFallbacks());
    let decisions = 0;
    let mutated = 0;
    let denied = 0;
    for (let k = 0; k < 48; k++) {
      const c = chain(k, k >= 24);
      for (const [baseline, candidate] of [
        [[], c.objects],
        [c.objects.filter((o) => !String((o as { kind: string }).kind).startsWith('Mutating')), c.objects],
        // both chains mutate the one request (they share its decoded object)
        [c.objects, c.objects],
      ] as const) {
        const spec: ChainSpec = { baseline: [...baseline], candidate: [...candidate], kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks: c.webhooks };
        const full = fullDecider(spec);
        const quick = chainDecider(spec);
        for (const r of requests()) {
          const request = r.request as AdmissionRequest;
          const [f, q] = await Promise.all([full(request, teamA), quick(request, teamA)]);
          expect(q, `chain ${k} (baseline ${baseline.length} objects): ${r.name}\n${JSON.stringify(c.objects)}\n${JSON.stringify(c.webhooks)}`).toEqual(f);
          decisions += 2;
          mutated += Number(f.candidate.mutated);
          denied += Number(!f.candidate.allowed) + Number(!f.baseline.allowed);
        }
      }
    }
    const { full, patched, reasons } = countsSince(before);
    // the comparison means something: mutations and denials of every kind, most decided (fully or partly) by the lean path,
    // webhooks' patches among them (lean-patch.ts; where it refuses, the mutating plugins' full run: the next test)
    expect(mutated).toBeGreaterThan(decisions / 20);
    expect(denied).toBeGreaterThan(decisions / 10);
    expect(full, JSON.stringify(reasons)).toBeLessThan(decisions / 4);
    expect(patched, JSON.stringify(reasons)).toBeGreaterThan(decisions / 20);
    // MutatingAdmissionPolicies' mutations applied lean (lean-patch.ts) among them
    expect(reasons["lean: the mutating plugins: a MutatingAdmissionPolicy's mutations among them"] ?? 0, JSON.stringify(reasons)).toBeGreaterThan(
      decisions / 100,
    );
    // and webhooks and policies run again in the second round (reinvocationPolicy IfNeeded, a change after their first call)
    expect(reasons['lean: the mutating plugins: a webhook or policy reinvoked (IfNeeded) among them'] ?? 0, JSON.stringify(reasons)).toBeGreaterThan(
      decisions / 100,
    );
    // and mutating webhooks and policies that reject the request (deny, unavailable under Fail, an error under Fail), the probe going on past them
    expect(reasons['lean: the mutating plugins: a webhook or policy rejects the request'] ?? 0, JSON.stringify(reasons)).toBeGreaterThan(decisions / 100);
  }, 600_000);

  it('where the lean path leaves the mutating plugins to their full run (a binding whose params do not resolve under Fail), the rest of the verdict stays lean', async () => {
    const strict = policy('MutatingAdmissionPolicy', 'strict', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/max', value: params.data.max}]" } }],
    });
    const objects = [
      teamA,
      ...params,
      strict,
      binding('MutatingAdmissionPolicyBinding', 'strict', 'strict', { paramRef: { name: 'absent', namespace: 'team-a', parameterNotFoundAction: 'Deny' } }),
      policy('ValidatingAdmissionPolicy', 'no', { validations: [{ expression: 'false', message: 'no' }] }),
      binding('ValidatingAdmissionPolicyBinding', 'no', 'no'),
      mutating('annotate', hook('annotate.example.com')),
    ];
    const webhooks: Record<string, WebhookResponse> = {
      'annotate.example.com': { patch: [{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }] },
    };
    const spec: ChainSpec = { baseline: [], candidate: objects, kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks };
    const before = new Map(leanFallbacks());
    for (const r of requests()) {
      const request = r.request as AdmissionRequest;
      const [f, q] = await Promise.all([fullDecider(spec)(request, teamA), chainDecider(spec)(request, teamA)]);
      expect(q, r.name).toEqual(f);
      // the binding's configuration error rejects, the probe goes on to the policy's denial
      expect(f.candidate.denials?.length, r.name).toBe(2);
    }
    const { full, partly } = countsSince(before);
    expect(full).toBe(0);
    expect(partly).toBe(requests().length);
  });

  it('on MutatingAdmissionPolicies with params and variables: each binding resolves its params, the mutations apply once per param (decided lean)', async () => {
    const cap = policy('MutatingAdmissionPolicy', 'cap', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'max', expression: 'params.data.max' }],
      matchConditions: [{ name: 'unnamed', expression: 'object.metadata.name != params.data.name' }],
      failurePolicy: 'Ignore',
      reinvocationPolicy: 'IfNeeded',
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"max": variables.max}}}' } }],
    });
    const notOne = policy('ValidatingAdmissionPolicy', 'not-one', {
      validations: [
        {
          expression: "!has(object.metadata.labels) || !('max' in object.metadata.labels) || object.metadata.labels.max != '1'",
          messageExpression: "'max is ' + object.metadata.labels.max",
        },
      ],
    });
    const paramRefs = [
      // both params (limits, then strict): the second's mutation on the object the first left
      { selector: { matchLabels: { tier: 'gold' } }, namespace: 'team-a', parameterNotFoundAction: 'Allow' },
      { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Deny' },
      // none: nothing to mutate; none under Deny: the binding's error, which failurePolicy Ignore drops
      { name: 'absent', namespace: 'team-a', parameterNotFoundAction: 'Allow' },
      { name: 'absent', namespace: 'team-a', parameterNotFoundAction: 'Deny' },
    ];
    const before = new Map(leanFallbacks());
    let denied = 0;
    for (const paramRef of paramRefs) {
      const objects = [
        teamA,
        ...params,
        cap,
        binding('MutatingAdmissionPolicyBinding', 'cap', 'cap', { paramRef }),
        notOne,
        binding('ValidatingAdmissionPolicyBinding', 'not-one', 'not-one'),
        // a change after the policy's: it runs again in the second round (IfNeeded)
        mutating('annotate', hook('annotate.example.com')),
      ];
      const webhooks: Record<string, WebhookResponse> = {
        'annotate.example.com': { patch: [{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }] },
      };
      const spec: ChainSpec = { baseline: [], candidate: objects, kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks };
      for (const r of requests()) {
        const request = r.request as AdmissionRequest;
        const [f, q] = await Promise.all([fullDecider(spec)(request, teamA), chainDecider(spec)(request, teamA)]);
        expect(q, `${JSON.stringify(paramRef)}: ${r.name}`).toEqual(f);
        denied += Number(!f.candidate.allowed);
      }
    }
    expect(denied).toBeGreaterThan(0);
    const { reasons } = countsSince(before);
    expect(
      Object.keys(reasons).filter((k) => !k.startsWith('lean: ')),
      JSON.stringify(reasons),
    ).toEqual([]);
    expect(reasons["lean: the mutating plugins: a MutatingAdmissionPolicy's mutations among them"], JSON.stringify(reasons)).toBeGreaterThan(0);
  });

  it('on mutating webhooks that fail open, reject the request or refuse a dry run: the client sees the first rejection, the probe goes on (decided lean)', async () => {
    const mw = (name: string, extra: Record<string, unknown> = {}) => mutating(name, hook(`${name}.example.com`, extra));
    const patch: WebhookResponse = { patch: [{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }] };
    const unpatched = policy('ValidatingAdmissionPolicy', 'unpatched', {
      validations: [{ expression: "!has(object.metadata.labels) || !('patched' in object.metadata.labels)", message: 'patched' }],
    });
    const vap = [unpatched, binding('ValidatingAdmissionPolicyBinding', 'unpatched', 'unpatched')];
    const cases: { objects: unknown[]; webhooks: Record<string, WebhookResponse>; dryRun?: true }[] = [
      // unavailable under Ignore: the request goes on (failing open), the next one patches
      { objects: [mw('a', { failurePolicy: 'Ignore' }), mw('b')], webhooks: { 'a.example.com': 'unavailable', 'b.example.com': patch } },
      // a patch, then a denial: the client sees the denial; the probe goes on to the policy, which denies the patched object
      {
        objects: [mw('a'), mw('b'), mw('c', { failurePolicy: 'Ignore' }), ...vap],
        webhooks: { 'a.example.com': patch, 'b.example.com': 'deny', 'c.example.com': 'unavailable' },
      },
      // unavailable under Fail, then an IfNeeded webhook the probe's later patch reinvokes
      { objects: [mw('a'), mw('b', { reinvocationPolicy: 'IfNeeded' }), mw('c')], webhooks: { 'a.example.com': 'unavailable', 'c.example.com': patch } },
      // matchConditions that err: under Fail the request is rejected before that webhook's call, under Ignore it is not called
      {
        objects: [
          mw('a', { matchConditions: [{ name: 'm', expression: CONDITIONS[3] }] }),
          mw('b', { failurePolicy: 'Ignore', matchConditions: [{ name: 'm', expression: CONDITIONS[3] }] }),
          mw('c'),
          ...vap,
        ],
        webhooks: { 'c.example.com': patch },
      },
      // a dry run: sideEffects Some refuses it (no call), unset fails under Ignore (no call, failing open)
      { objects: [mw('a', { sideEffects: 'Some' }), mw('b'), ...vap], webhooks: { 'b.example.com': patch }, dryRun: true },
      { objects: [mw('a', { sideEffects: undefined, failurePolicy: 'Ignore' }), mw('b')], webhooks: { 'b.example.com': patch }, dryRun: true },
    ];
    const before = new Map(leanFallbacks());
    for (const c of cases) {
      const spec: ChainSpec = { baseline: [], candidate: c.objects, kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks: c.webhooks };
      const request = podRequest(c.dryRun ? { dryRun: true } : {}) as AdmissionRequest;
      const [f, q] = await Promise.all([fullDecider(spec)(request, teamA), chainDecider(spec)(request, teamA)]);
      expect(q, JSON.stringify(c)).toEqual(f);
    }
    const { reasons } = countsSince(before);
    expect(
      Object.keys(reasons).filter((k) => !k.startsWith('lean: ')),
      JSON.stringify(reasons),
    ).toEqual([]);
    expect(reasons['lean: the mutating plugins: a webhook or policy rejects the request'], JSON.stringify(reasons)).toBeGreaterThan(0);
  });

  it("on validating webhooks whose matchConditions together run past the batch's shared budget, each within its own: the full run decides", async () => {
    // the batch charges grouped matchConditions to one budget; the plugin gives each webhook's its own
    const heavy = "authorizer.path('/x').check('get').allowed() || true";
    const one = await evaluate(heavy, 'webhook-matchCondition', {});
    expect(one.ok && one.cost < CEL_LIMITS.runtimeCelCostBudgetMatchConditions).toBe(true);
    const n = Math.floor(CEL_LIMITS.runtimeCelCostBudgetMatchConditions / (one.ok ? one.cost : 1)) + 2;
    // (each its own expression: the batch asks one item for conditions alike)
    const objects = Array.from({ length: n }, (_, i) =>
      validating(`h${i}`, hook(`h${i}.example.com`, { matchConditions: [{ name: 'heavy', expression: heavy.replace('/x', `/x${i}`) }] })),
    );
    for (const denying of [false, true]) {
      // allowed, or denied by a policy first (the probe then settles every webhook)
      const deny = denying
        ? [
            policy('ValidatingAdmissionPolicy', 'no', { validations: [{ expression: 'false', message: 'no' }] }),
            binding('ValidatingAdmissionPolicyBinding', 'no', 'no'),
          ]
        : [];
      const spec: ChainSpec = { baseline: [], candidate: [...objects, ...deny], kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks: {} };
      const request = podRequest() as AdmissionRequest;
      const [f, q] = await Promise.all([fullDecider(spec)(request, teamA), chainDecider(spec)(request, teamA)]);
      expect(q).toEqual(f);
      expect(f.candidate.allowed).toBe(!denying);
      expect(f.candidate.calls.length + (denying ? n : 0)).toBe(n);
    }
  });

  it('on validating webhooks whose matchConditions err or that refuse a dry run: under Fail the first rejects before any call, the probe goes on (decided lean)', async () => {
    const erring = (name: string, failurePolicy: string) =>
      validating(name, hook(`${name}.example.com`, { failurePolicy, matchConditions: [{ name: 'm', expression: CONDITIONS[3] }] }));
    const cases: { objects: unknown[]; webhooks: Record<string, WebhookResponse>; denials: number }[] = [
      { objects: [erring('a', 'Fail'), validating('b', hook('b.example.com'))], webhooks: { 'b.example.com': 'deny' }, denials: 2 },
      { objects: [erring('a', 'Fail'), erring('b', 'Fail')], webhooks: {}, denials: 2 },
      { objects: [erring('a', 'Ignore'), validating('b', hook('b.example.com'))], webhooks: { 'b.example.com': { warnings: ['w'] } }, denials: 0 },
      { objects: [validating('b', hook('b.example.com')), erring('a', 'Fail')], webhooks: { 'b.example.com': { warnings: ['w'] } }, denials: 1 },
    ];
    // a dry run: a webhook whose sideEffects are not None refuses it before any call (BadRequest, or unset: a call error failurePolicy decides)
    const sideEffects = (name: string, value: string | undefined, failurePolicy = 'Fail') => {
      const h = hook(`${name}.example.com`, { failurePolicy });
      if (value === undefined) delete h.sideEffects;
      else h.sideEffects = value;
      return validating(name, h);
    };
    const dryRuns: typeof cases = [
      { objects: [erring('a', 'Fail'), sideEffects('b', 'Some')], webhooks: {}, denials: 2 },
      { objects: [sideEffects('b', 'Unknown'), validating('c', hook('c.example.com'))], webhooks: { 'c.example.com': 'deny' }, denials: 2 },
      {
        objects: [sideEffects('b', undefined, 'Ignore'), validating('c', hook('c.example.com'))],
        webhooks: { 'c.example.com': { warnings: ['w'] } },
        denials: 0,
      },
      { objects: [sideEffects('b', undefined), sideEffects('d', 'NoneOnDryRun')], webhooks: {}, denials: 1 },
    ];
    const before = new Map(leanFallbacks());
    for (const c of [...cases, ...dryRuns]) {
      const spec: ChainSpec = { baseline: [], candidate: c.objects, kubernetesVersion: DEFAULT_KUBERNETES_VERSION, webhooks: c.webhooks };
      const request = (dryRuns.includes(c) ? podRequest({ dryRun: true }) : podRequest()) as AdmissionRequest;
      const [f, q] = await Promise.all([fullDecider(spec)(request, teamA), chainDecider(spec)(request, teamA)]);
      expect(q, JSON.stringify(c)).toEqual(f);
      expect(f.candidate.denials?.length ?? (f.candidate.allowed ? 0 : 1)).toBe(c.denials);
    }
    expect(countsSince(before).reasons).toEqual({});
  });

  const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
  const log = readFileSync(join(dir, 'audit.log'), 'utf8');
  const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
  const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };
  const defaults = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'defaults' },
    webhooks: [
      {
        name: 'defaults.shop.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        reinvocationPolicy: 'IfNeeded',
        clientConfig: { url: 'https://defaults.example.com/mutate' },
        rules: [{ apiGroups: ['', 'apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments', 'configmaps'] }],
      },
    ],
  };
  const webhooks: Record<string, WebhookResponse> = {
    ...candidate.webhooks,
    'defaults.shop.example.com': { patch: [{ op: 'add', path: '/metadata/labels', value: { app: 'defaulted' } }] },
  };

  for (const mode of ['overlay', 'replace'] as const) {
    it(`on the real apiserver's audit log and snapshot, with a mutating webhook that patches (${mode})`, async () => {
      const before = new Map(leanFallbacks());
      const run = (decider: typeof chainDecider) =>
        analyzeImpact({ workspace: [...candidate.objects, defaults], cluster: snapshot, audit: log, options: { candidate: mode, webhooks, decider } });
      const full = await run(fullDecider);
      const quick = await run(chainDecider);
      expect(quick.summary.events).toBeGreaterThan(20);
      expect(quick).toEqual(full);
      expect(full.summary.changes['newly-mutated'] + full.events.filter((e) => e.candidate.mutated).length).toBeGreaterThan(0);
      const { full: fellBack } = countsSince(before);
      expect(fellBack).toBeLessThan(full.summary.events / 2);
    }, 300_000);
  }
});
