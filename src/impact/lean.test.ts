/**
 * Lean verdicts (src/admission/lean.ts) against the full simulation: chainDecider must give
 * exactly the decisions fullDecider gives, on the admission oracle's scenarios, on chains built
 * for what the lean path reads (the bench's candidate, messages, validationActions, selectors,
 * params, budgets …), on generated denial sets and on the real apiserver's audit log; and the lean
 * path must decide a good share of them itself, else this compares the full run with itself.
 * It runs on the native engine when that is built (the default in Node); `CEL_ENGINE=wasm` runs it on WebAssembly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateBatch } from '../cel';
import { useEngine } from '../cel/test-helpers';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { leanChain, leanFallbacks, leanSet, leanVerdicts, prepareChain, type SimRequest, type WebhookResponse } from '../admission';
import { binding, hook, namespace, pod, podRequest, podRule, policy, validating, mutating } from '../admission/test-helpers';
import type { PolicyCel } from '../policy';
import type { AdmissionRequest } from '../request/model';
import { generated } from '../../tools/admission-oracle/random-scenarios';
import { HAND_WRITTEN } from '../../tools/admission-oracle/scenarios';
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

/** Both deciders on every case; how many verdicts the lean path gave itself, how many were denials, and of those how many the lean path decided. */
async function compare(cases: readonly Case[]): Promise<{ requests: number; lean: number; denied: number; leanDenied: number }> {
  let requests = 0;
  let lean = 0;
  let denied = 0;
  let leanDenied = 0;
  for (const c of cases) {
    // the chain alone (beside an empty one), and twice (the chains share their items and one batch)
    for (const [baseline, candidate] of [
      [[], c.objects],
      [c.objects, c.objects],
    ] as const) {
      const spec: ChainSpec = {
        baseline: [...baseline],
        candidate: [...candidate],
        kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
        ...(c.webhooks ? { webhooks: c.webhooks } : {}),
      };
      const request = c.request as AdmissionRequest;
      const [full, quick] = await Promise.all([fullDecider(spec)(request, c.namespaceObject), chainDecider(spec)(request, c.namespaceObject)]);
      expect(quick, `${c.name} (baseline ${baseline.length} objects, candidate ${candidate.length})`).toEqual(full);
      const set = leanSet([leanChain(prepareChain(spec.baseline)), leanChain(prepareChain(spec.candidate))]);
      const v = await leanVerdicts(set, c.request, { webhooks: spec.webhooks, namespaces: c.namespaceObject ? [c.namespaceObject] : [] }, cel);
      requests += 2;
      lean += v.filter(Boolean).length;
      denied += Number(!full.baseline.allowed) + Number(!full.candidate.allowed);
      leanDenied += v.filter((x) => x && !x.allowed).length;
    }
  }
  return { requests, lean, denied, leanDenied };
}

const allAllow = (c: Case): Case => ({ ...c, name: `${c.name} (every webhook allows)`, webhooks: {} });

describe('lean verdicts agree with the full simulation', () => {
  it("on the admission oracle's scenarios", async () => {
    const cases: Case[] = [...HAND_WRITTEN, ...generated(50, 29)];
    const r = await compare([...cases, ...cases.map(allAllow)]);
    expect(r.lean).toBeGreaterThan(r.requests / 4);
    expect(r.leanDenied).toBeGreaterThan(0);
  }, 300_000);

  const vap = (name: string, spec: Record<string, unknown>, b: Record<string, unknown> = {}) => [
    policy('ValidatingAdmissionPolicy', name, spec),
    binding('ValidatingAdmissionPolicyBinding', name, name, b),
  ];
  const bench: unknown[] = [];
  for (let i = 0; i < 20; i++)
    bench.push(...vap(`policy-${i}`, { validations: [{ expression: `!object.metadata.name.startsWith('deny-${i}-')`, message: `policy ${i}` }] }));
  for (let i = 0; i < 10; i++)
    bench.push(
      validating(
        `hook-${i}`,
        hook(`hook-${i}.example.com`, {
          timeoutSeconds: 5,
          matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
        }),
      ),
    );
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
          ...vap('conditional', {
            matchConditions: [{ name: 'web', expression: "object.metadata.name.startsWith('web')" }],
            validations: [{ expression: "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))" }],
          }),
          ...vap(
            'erroring',
            { validations: [{ expression: "object.metadata.name != 'web-error' || object.spec.missing == 1" }] },
            { validationActions: ['Deny'] },
          ),
          ...vap('ignored', { failurePolicy: 'Ignore', validations: [{ expression: "object.metadata.name != 'web-ignore' || object.spec.missing == 1" }] }),
        ],
      },
      {
        name: 'selectors, matchResources, resourceNames, params',
        objects: [
          teamA,
          ...vap(
            'prod-only',
            { validations: [{ expression: "object.metadata.name != 'web-prod'" }] },
            { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } },
          ),
          ...vap('labelled', {
            matchConstraints: { resourceRules: [podRule], objectSelector: { matchLabels: { app: 'web' } } },
            validations: [{ expression: "object.metadata.name != 'web-label'" }],
          }),
          ...vap('by-name', { matchConstraints: { resourceRules: [{ ...podRule, resourceNames: ['web-named'] }] }, validations: [{ expression: 'false' }] }),
          policy('ValidatingAdmissionPolicy', 'with-params', {
            paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
            validations: [{ expression: 'object.metadata.name != params.data.name' }],
          }),
          binding('ValidatingAdmissionPolicyBinding', 'with-params', 'with-params', {
            paramRef: { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Allow' },
          }),
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team-a' }, data: { name: 'web-param' } },
          validating(
            'selective',
            hook('selective.example.com', {
              namespaceSelector: { matchLabels: { env: 'prod' } },
              objectSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
            }),
          ),
          mutating('annotate', hook('annotate.example.com', { sideEffects: 'NoneOnDryRun' })),
          validating('dry', hook('dry.example.com', { sideEffects: 'None', failurePolicy: 'Ignore', rules: [{ ...podRule, operations: ['*'] }] })),
          validating('reviews', hook('reviews.example.com', { rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] }] })),
        ],
      },
      {
        name: 'a mutating policy with a binding (the chain is left to the full run)',
        objects: [
          policy('MutatingAdmissionPolicy', 'label', {
            reinvocationPolicy: 'Never',
            mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } }],
          }),
          binding('MutatingAdmissionPolicyBinding', 'label', 'label'),
          ...bench.slice(0, 4),
        ],
      },
    ];
    const requests: { name: string; request: SimRequest; namespaceObject?: unknown }[] = [
      { name: 'a pod', request: named('web-1'), namespaceObject: teamA },
      { name: 'a pod the bench denies', request: named('deny-3-7'), namespaceObject: teamA },
      { name: 'a system user', request: named('web-2', { userInfo: { username: 'system:serviceaccount:kube-system:x', groups: ['system:serviceaccounts'] } }) },
      ...['web-warn', 'web-error', 'web-ignore', 'web-prod', 'web-label', 'web-named', 'web-param', 'other'].map((n) => ({
        name: n,
        request: named(n),
        namespaceObject: teamA,
      })),
      { name: 'unlabelled', request: podRequest({ object: pod({}) }), namespaceObject: teamA },
      { name: 'a numbered app', request: podRequest({ object: pod({ app: 'number' }) }), namespaceObject: teamA },
      { name: 'in team-b (no Namespace given)', request: podRequest({ namespace: 'team-b', object: pod({ app: 'web' }, 'team-b') }) },
      { name: 'a dry run', request: named('web-dry', { dryRun: true }), namespaceObject: teamA },
      { name: 'an update', request: named('web-1', { operation: 'UPDATE', oldObject: pod() }), namespaceObject: teamA },
      { name: 'a delete', request: { ...named('web-1', { operation: 'DELETE', oldObject: pod() }), object: undefined }, namespaceObject: teamA },
      // the replay knows no old object (decided lean where no plugin that may match reads it: decide.ts)
      { name: 'an update, the old object unknown', request: named('web-1', { operation: 'UPDATE' }), namespaceObject: teamA },
      { name: 'a delete, the old object unknown', request: { ...named('web-1', { operation: 'DELETE' }), object: undefined }, namespaceObject: teamA },
      {
        name: 'a TokenReview (a review resource)',
        request: {
          operation: 'CREATE',
          resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' },
          kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' },
          userInfo: { username: 'alice' },
          object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 't' } },
        },
      },
      {
        name: 'a Namespace',
        request: {
          operation: 'CREATE',
          resource: { group: '', version: 'v1', resource: 'namespaces' },
          kind: { group: '', version: 'v1', kind: 'Namespace' },
          name: 'team-c',
          userInfo: { username: 'alice' },
          object: namespace('team-c', { env: 'prod' }),
        },
      },
    ];
    const cases = chains.flatMap((c) =>
      requests.map((r) => ({ ...r, name: `${c.name}: ${r.name}`, objects: c.objects, ...(c.webhooks ? { webhooks: c.webhooks } : {}) })),
    );
    const r = await compare(cases);
    expect(r.lean).toBeGreaterThan(r.requests / 3);
    expect(r.leanDenied).toBeGreaterThan(0);
  }, 300_000);

  // ValidatingAdmissionPolicy denials, warnings and Audit failures the lean path decides itself:
  // every way a false validation's message is made, every combination of validationActions, several
  // bindings and several denying policies, webhooks before and after them
  const LONG = 'x'.repeat(5 * 1024 + 1);
  const MESSAGES: Record<string, Record<string, unknown>> = {
    static: { message: 'static message' },
    'static, spaced': { message: '  spaced static  ' },
    'static, blank': { message: '   ' },
    messageExpression: { messageExpression: "'name ' + object.metadata.name", message: 'not this one' },
    'messageExpression, spaced': { messageExpression: "'  name ' + object.metadata.name + '  '" },
    'messageExpression errors': { messageExpression: "'spec ' + string(object.spec.missing)", message: 'after an error' },
    'messageExpression errors, no message': { messageExpression: "'spec ' + string(object.spec.missing)" },
    'messageExpression empty': { messageExpression: "'   '", message: 'after an empty one' },
    'messageExpression over-long': { messageExpression: `'${LONG}'`, message: 'after a long one' },
    'messageExpression over-long, no message': { messageExpression: `object.metadata.name + '${LONG}'` },
    'messageExpression multi-line': { messageExpression: "'line one\\nline two'", message: 'after two lines' },
    'messageExpression multi-line, no message': { messageExpression: "object.metadata.name + '\\n'" + " + 'second'" },
    neither: {},
  };
  const ACTIONS: string[][] = [
    ['Deny'],
    ['Warn'],
    ['Audit'],
    ['Warn', 'Audit'],
    ['Audit', 'Warn'],
    ['Deny', 'Warn'],
    ['Audit', 'Deny'],
    ['Warn', 'Audit', 'Deny'],
    [],
  ];
  /** A policy that denies names starting with `deny-<tag>` or equal to `deny-all`; `validations` more after it. */
  const denying = (name: string, tag: string, message: Record<string, unknown>, extra: Record<string, unknown>[] = []) =>
    policy('ValidatingAdmissionPolicy', name, {
      validations: [{ expression: `!object.metadata.name.startsWith('deny-${tag}') && object.metadata.name != 'deny-all'`, ...message }, ...extra],
    });
  const vapBinding = (name: string, policyName: string, validationActions: string[], extra: Record<string, unknown> = {}) =>
    binding('ValidatingAdmissionPolicyBinding', name, policyName, { validationActions, ...extra });
  const deployment = (name: string) =>
    ({
      operation: 'CREATE',
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      name,
      namespace: 'team-a',
      userInfo: { username: 'jane@example.com', groups: ['system:authenticated'] },
      object: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: 'team-a' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
        },
      },
    }) as SimRequest;
  const anyRule = { apiGroups: ['', 'apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods', 'deployments'] };

  it('on ValidatingAdmissionPolicies with params: found, missing under Allow and Deny, a selector finding several (each decided lean)', async () => {
    const cm = (name: string, labels: Record<string, string>, data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'team-a', labels },
      data,
    });
    const spec = {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConditions: [{ name: 'not-skipped', expression: "params.data.name != 'skip-' + object.metadata.name" }],
      validations: [
        { expression: 'object.metadata.name != params.data.name', messageExpression: "'no ' + params.data.name" },
        { expression: 'params.data.warn != object.metadata.name', message: 'warned' },
      ],
      auditAnnotations: [{ key: 'param', valueExpression: "object.metadata.name == params.data.name ? 'hit ' + params.data.name : ''" }],
    };
    const objects = (paramRef: Record<string, unknown>, validationActions = ['Deny'], failurePolicy = 'Fail') => [
      teamA,
      cm('one', { tier: 'gold' }, { name: 'web-one', warn: 'web-3' }),
      cm('two', { tier: 'gold' }, { name: 'web-two', warn: 'web-one' }),
      cm('three', { tier: 'silver' }, { name: 'web-3', warn: 'x' }),
      ...vap('with-params', { ...spec, failurePolicy }, { paramRef: { namespace: 'team-a', ...paramRef }, validationActions }),
      ...vap('plain', { validations: [{ expression: "object.metadata.name != 'web-plain'" }] }),
    ];
    const lean: Case[] = [
      ['found', objects({ name: 'one', parameterNotFoundAction: 'Deny' })],
      ['found, Warn and Audit', objects({ name: 'two', parameterNotFoundAction: 'Deny' }, ['Warn', 'Audit'])],
      ['missing under Allow', objects({ name: 'absent', parameterNotFoundAction: 'Allow' })],
      ['missing under Deny (failurePolicy Fail: a denial)', objects({ name: 'absent', parameterNotFoundAction: 'Deny' }, ['Warn'])],
      ['missing under Deny (failurePolicy Ignore)', objects({ name: 'absent', parameterNotFoundAction: 'Deny' }, ['Deny'], 'Ignore')],
      ['a selector finding two', objects({ selector: { matchLabels: { tier: 'gold' } }, parameterNotFoundAction: 'Allow' })],
      ['a selector finding all, Deny and Warn', objects({ selector: {}, parameterNotFoundAction: 'Deny' }, ['Deny', 'Warn'])],
    ].flatMap(([name, objs]) =>
      ['web-one', 'web-two', 'web-3', 'web-plain', 'skip-web-x', 'other'].map((n) => ({
        name: `${name as string}: ${n}`,
        objects: objs as unknown[],
        request: named(n),
        namespaceObject: teamA,
      })),
    );
    const snap = new Map(leanFallbacks());
    const r = await compare(lean);
    expect(r.lean).toBe(r.requests);
    expect(r.leanDenied).toBeGreaterThan(0);
    // no plugin ran in full, nothing was left to the full simulation
    expect([...leanFallbacks()].filter(([k, v]) => v !== (snap.get(k) ?? 0))).toEqual([]);
  }, 300_000);

  it('on ValidatingAdmissionPolicy denials, warnings and Audit failures (messages, actions, bindings, several policies)', async () => {
    const messagePolicies = Object.values(MESSAGES).flatMap((message, i) => [
      denying(`message-${i}`, `m${i}-`, message),
      vapBinding(`message-${i}`, `message-${i}`, ['Deny']),
    ]);
    const actionPolicies = ACTIONS.flatMap((actions, i) => [
      denying(`actions-${i}`, `a${i}-`, MESSAGES.messageExpression!),
      vapBinding(`actions-${i}`, `actions-${i}`, actions),
    ]);
    const chains: { name: string; objects: unknown[]; webhooks?: Record<string, WebhookResponse> }[] = [
      { name: 'every message', objects: messagePolicies },
      { name: 'every action', objects: actionPolicies },
      {
        name: 'several bindings, several false validations, audit annotations, webhooks',
        objects: [
          policy('ValidatingAdmissionPolicy', 'multi', {
            matchConstraints: { resourceRules: [anyRule] },
            validations: [
              { expression: "!object.metadata.name.startsWith('deny-')", messageExpression: "'first: ' + object.metadata.name" },
              { expression: 'true', messageExpression: "'never shown'" },
              { expression: "!object.metadata.name.endsWith('-twice')", message: 'second' },
              { expression: "!object.metadata.name.endsWith('-twice')" },
            ],
            auditAnnotations: [{ key: 'name', valueExpression: "'n=' + object.metadata.name" }],
          }),
          vapBinding('multi-deny', 'multi', ['Deny']),
          vapBinding('multi-warn', 'multi', ['Warn', 'Audit']),
          vapBinding('multi-all', 'multi', ['Audit', 'Deny', 'Warn']),
          vapBinding('multi-elsewhere', 'multi', ['Deny'], { matchResources: { namespaceSelector: { matchLabels: { env: 'dev' } } } }),
          policy('ValidatingAdmissionPolicy', 'second', {
            matchConstraints: { resourceRules: [anyRule] },
            validations: [{ expression: "!object.metadata.name.startsWith('deny-')" }],
          }),
          vapBinding('second', 'second', ['Deny']),
          policy('ValidatingAdmissionPolicy', 'warn-second', {
            matchConstraints: { resourceRules: [anyRule] },
            matchConditions: [{ name: 'not-skip', expression: "!object.metadata.name.endsWith('-skip')" }],
            validations: [{ expression: "!object.metadata.name.startsWith('deny-')", message: 'warned' }],
          }),
          vapBinding('warn-second', 'warn-second', ['Warn']),
          mutating('annotate', hook('annotate.example.com', { rules: [anyRule] })),
          validating(
            'after',
            hook('after.example.com', { rules: [anyRule] }),
            hook('after-2.example.com', { rules: [anyRule], matchConditions: [{ name: 'm', expression: "!object.metadata.name.endsWith('-skip')" }] }),
          ),
        ],
        webhooks: { 'annotate.example.com': { warnings: ['mutating warns'] }, 'after.example.com': { warnings: ['validating warns'] } },
      },
    ];
    const names = [
      'web-1',
      'deny-all',
      'deny-twice',
      'deny-x-skip',
      'deny-m2-x',
      'deny-m5-x',
      'deny-m8-x',
      'deny-m11-x',
      'deny-a3-x',
      'deny-a7-x',
      'deny-a8-x',
    ];
    const requests: { name: string; request: SimRequest; namespaceObject?: unknown }[] = [
      ...names.map((n) => ({ name: n, request: named(n), namespaceObject: teamA })),
      { name: 'deny-all by generateName (no name)', request: { ...named('deny-all'), name: '' } },
      { name: 'a Deployment deny-all', request: deployment('deny-all'), namespaceObject: teamA },
      { name: 'an update to deny-twice', request: named('deny-twice', { operation: 'UPDATE', oldObject: pod() }), namespaceObject: teamA },
    ];
    const cases = chains.flatMap((c) =>
      requests.map((r) => ({ ...r, name: `${c.name}: ${r.name}`, objects: c.objects, ...(c.webhooks ? { webhooks: c.webhooks } : {}) })),
    );
    const r = await compare(cases);
    expect(r.denied).toBeGreaterThan(r.requests / 3);
    expect(r.leanDenied).toBe(r.denied);
  }, 300_000);

  it('on a generated set of policies (actions, messages, messageExpressions, bindings, several denying, errors of validations, conditions and audit annotations under either failurePolicy)', async () => {
    let seed = 2026;
    const rand = () => {
      // mulberry32: the same set on every run
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const expressions = [
      "!object.metadata.name.startsWith('deny')",
      'true',
      'object.metadata.name.size() < 8',
      "!object.metadata.name.contains('-b')",
      "!(has(object.metadata.labels) && 'tier' in object.metadata.labels)",
      // an error where the label is missing: failurePolicy decides
      "object.metadata.labels.tier == 'x'",
    ];
    const messages = Object.values(MESSAGES);
    const cases: Case[] = [];
    for (let k = 0; k < 40; k++) {
      const objects: unknown[] = [];
      const policies = 1 + Math.floor(rand() * 4);
      for (let i = 0; i < policies; i++) {
        const validations = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({ expression: pick(expressions), ...pick(messages) }));
        const spec: Record<string, unknown> = { validations };
        if (rand() < 0.3)
          spec.auditAnnotations = [{ key: 'who', valueExpression: "object.metadata.name.startsWith('deny') ? 'denied ' + object.metadata.name : ''" }];
        // an audit annotation that errs where the label is missing: under Fail it denies whatever validationActions say
        else if (rand() < 0.2) spec.auditAnnotations = [{ key: 'tier', valueExpression: 'string(object.metadata.labels.tier)' }];
        if (rand() < 0.2) spec.matchConditions = [{ name: 'not-c', expression: "!object.metadata.name.endsWith('-c')" }];
        else if (rand() < 0.1) spec.matchConditions = [{ name: 'tier', expression: "object.metadata.labels.tier != 'y'" }];
        if (rand() < 0.3) spec.failurePolicy = 'Ignore';
        objects.push(policy('ValidatingAdmissionPolicy', `gen-${k}-${i}`, spec));
        const bindings = 1 + Math.floor(rand() * 3);
        for (let j = 0; j < bindings; j++) {
          const actions = ['Deny', 'Warn', 'Audit'].filter(() => rand() < 0.5).sort(() => rand() - 0.5);
          objects.push(
            vapBinding(
              `gen-${k}-${i}-${j}`,
              `gen-${k}-${i}`,
              actions.length ? actions : [pick(['Deny', 'Warn', 'Audit'])],
              rand() < 0.2 ? { matchResources: { namespaceSelector: { matchLabels: { env: pick(['prod', 'dev']) } } } } : {},
            ),
          );
        }
      }
      const webhooks: Record<string, WebhookResponse> = {};
      if (rand() < 0.5) objects.push(mutating(`m-${k}`, hook(`m-${k}.example.com`)));
      if (rand() < 0.5) {
        objects.push(validating(`v-${k}`, hook(`v-${k}.example.com`)));
        if (rand() < 0.5) webhooks[`v-${k}.example.com`] = { warnings: [`v-${k} warns`] };
      }
      for (const n of ['web', 'deny-a', 'deny-long-b', 'deny-c']) {
        const object = { ...pod(rand() < 0.3 ? { app: 'web', tier: 'x' } : { app: 'web' }), metadata: { ...pod().metadata, name: n } };
        cases.push({ name: `generated ${k}: ${n}`, objects, request: named(n, { object }), namespaceObject: teamA, webhooks });
      }
    }
    const r = await compare(cases);
    expect(r.denied).toBeGreaterThan(r.requests / 4);
    expect(r.leanDenied).toBe(r.denied);
  }, 300_000);

  const dir = join(import.meta.dirname, '../../tools/admission-oracle/testdata/audit');
  const log = readFileSync(join(dir, 'audit.log'), 'utf8');
  const snapshot = (JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { items: unknown[] }).items;
  const candidate = JSON.parse(readFileSync(join(dir, 'candidate.json'), 'utf8')) as { objects: unknown[]; webhooks: Record<string, WebhookResponse> };

  for (const mode of ['overlay', 'replace'] as const) {
    it(`on the real apiserver's audit log and snapshot (${mode})`, async () => {
      const run = (decider: (spec: ChainSpec) => ReturnType<typeof chainDecider>) =>
        analyzeImpact({ workspace: candidate.objects, cluster: snapshot, audit: log, options: { candidate: mode, webhooks: candidate.webhooks, decider } });
      // chainDecider, counting the denials its lean path decides itself
      let leanDenied = 0;
      const counted = (spec: ChainSpec): ReturnType<typeof chainDecider> => {
        const decide = chainDecider(spec);
        const set = leanSet([
          leanChain(prepareChain(spec.baseline, { kubernetesVersion: spec.kubernetesVersion })),
          leanChain(prepareChain(spec.candidate, { kubernetesVersion: spec.kubernetesVersion, staticDocuments: spec.staticDocuments })),
        ]);
        return async (request, ns) => {
          const v = await leanVerdicts(set, request, { webhooks: spec.webhooks, namespaces: ns ? [ns] : [] }, cel);
          leanDenied += v.filter((x) => x && !x.allowed).length;
          return decide(request, ns);
        };
      };
      const [full, quick] = await Promise.all([run(fullDecider), run(counted)]);
      expect(quick.summary.events).toBeGreaterThan(20);
      expect(quick).toEqual(full);
      expect(leanDenied).toBeGreaterThan(0);
    }, 120_000);
  }
});
