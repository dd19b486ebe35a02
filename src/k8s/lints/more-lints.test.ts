/** The lints added after the first table: one case that fires and one that does not, per id. */
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { fixtureFiles } from '../../../fixtures';
import { convertToV1 } from '../convert';
import { lint } from './index';

type O = Record<string, unknown>;
const webhookConfig = (webhook: O, kind = 'ValidatingWebhookConfiguration', extra: O[] = []) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind,
  metadata: { name: 'x' },
  webhooks: [
    {
      name: 'a.b.c',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: { url: 'https://hook.example.com/' },
      failurePolicy: 'Ignore',
      timeoutSeconds: 3,
      ...webhook,
    },
    ...extra,
  ],
});
const rule = (over: O = {}) => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], ...over });
const vap = (spec: O, name = 'p') => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [rule()] }, ...spec },
});
const map = (spec: O, name = 'm') => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [rule()] }, reinvocationPolicy: 'Never', ...spec },
});
const vapb = (spec: O) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'b' },
  spec: { policyName: 'p', ...spec },
});

/** `id field` of the findings of one id. */
const found = (id: string, o: unknown, ws: unknown[] = [o], options = {}) =>
  lint(o, ws, options)
    .filter((l) => l.id === id)
    .map((l) => l.field);

describe('webhook lints', () => {
  it('W06 operations-wildcard: * or CONNECT where it cannot happen', () => {
    expect(found('W06', webhookConfig({ rules: [rule({ operations: ['*'] })] }))).toEqual(['webhooks[0].rules[0].operations']);
    expect(found('W06', webhookConfig({ rules: [rule({ operations: ['CREATE', 'CONNECT'] })] }))).toEqual(['webhooks[0].rules[0].operations']);
    expect(found('W06', webhookConfig({ rules: [rule({ operations: ['CONNECT'], resources: ['pods/exec'] })] }))).toEqual([]);
  });

  it('W12 matchpolicy-exact: quiet when every rule names every group and version (as Convert to v1 writes them)', () => {
    const exact = (...rules: O[]) => webhookConfig({ matchPolicy: 'Exact', rules });
    expect(found('W12', exact(rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] })))).toEqual([]);
    expect(found('W12', exact(rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['deployments'] })))).toEqual([]);
    expect(found('W12', exact(rule({ apiGroups: ['apps'], apiVersions: ['*'], resources: ['deployments'] })))).toEqual(['webhooks[0].matchPolicy']);
    expect(found('W12', exact(rule({ apiGroups: ['*'], apiVersions: ['*'] }), rule({ apiGroups: ['apps'], apiVersions: ['v1'] })))).toEqual([
      'webhooks[0].matchPolicy',
    ]);
    // the reproduction: a v1beta1 webhook on everything, converted to v1 (which writes matchPolicy: Exact)
    const old = {
      ...webhookConfig({ matchPolicy: undefined, rules: [rule({ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] })] }),
      apiVersion: 'admissionregistration.k8s.io/v1beta1',
    };
    const { object } = convertToV1(old);
    expect((object as { webhooks: { matchPolicy?: string }[] }).webhooks[0]!.matchPolicy).toBe('Exact');
    expect(found('W12', object)).toEqual([]);
  });

  it('W11 side-effects-dryrun: NoneOnDryRun is a promise to check', () => {
    expect(found('W11', webhookConfig({ sideEffects: 'NoneOnDryRun' }))).toEqual(['webhooks[0].sideEffects']);
    expect(found('W11', webhookConfig({}))).toEqual([]);
  });

  it('W13 unstable-or-removed-version: only beta versions named', () => {
    expect(found('W13', webhookConfig({ rules: [rule({ apiGroups: ['extensions'], apiVersions: ['v1beta1'], resources: ['ingresses'] })] }))).toEqual([
      'webhooks[0].rules[0].apiVersions',
    ]);
    expect(found('W13', webhookConfig({ rules: [rule({ apiVersions: ['v1', 'v1beta1'] })] }))).toEqual([]);
  });

  it('W15 no-self-trigger-guard: a mutating webhook on events with nothing excluded', () => {
    const events = rule({ resources: ['events'] });
    expect(found('W15', webhookConfig({ rules: [events] }, 'MutatingWebhookConfiguration'))).toEqual(['webhooks[0].rules']);
    expect(found('W15', webhookConfig({ rules: [events], objectSelector: { matchLabels: { mine: 'no' } } }, 'MutatingWebhookConfiguration'))).toEqual([]);
  });

  it('W16 mirror-pods: a pod mutator that does not skip mirror pods', () => {
    const pods = rule({ resources: ['pods'] });
    expect(found('W16', webhookConfig({ rules: [pods] }, 'MutatingWebhookConfiguration'))).toEqual(['webhooks[0].matchConditions']);
    const fixed = lint(webhookConfig({ rules: [pods] }, 'MutatingWebhookConfiguration'))
      .find((l) => l.id === 'W16')!
      .fixes![0]!.apply(webhookConfig({ rules: [pods] }, 'MutatingWebhookConfiguration')).object;
    expect(found('W16', fixed)).toEqual([]);
  });

  it('W17 reinvocation-idempotency: IfNeeded', () => {
    expect(found('W17', webhookConfig({ reinvocationPolicy: 'IfNeeded' }, 'MutatingWebhookConfiguration'))).toEqual(['webhooks[0].reinvocationPolicy']);
    expect(found('W17', webhookConfig({}, 'MutatingWebhookConfiguration'))).toEqual([]);
  });

  it('W20 namespaceselector-on-cluster-scoped: a selector cannot exclude nodes', () => {
    const sel = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] };
    expect(found('W20', webhookConfig({ namespaceSelector: sel, rules: [rule({ resources: ['nodes'] })] }))).toEqual(['webhooks[0].namespaceSelector']);
    expect(found('W20', webhookConfig({ namespaceSelector: sel, rules: [rule({ resources: ['nodes'], scope: 'Namespaced' })] }))).toEqual([]);
  });

  it('W21 matchcondition-error-prone: unguarded label read with Fail', () => {
    const mc = [{ name: 'team', expression: "object.metadata.labels.team == 'a'" }];
    expect(found('W21', webhookConfig({ failurePolicy: 'Fail', matchConditions: mc }))).toEqual(['webhooks[0].matchConditions[0].expression']);
    expect(
      found(
        'W21',
        webhookConfig({
          failurePolicy: 'Fail',
          matchConditions: [{ name: 'team', expression: "has(object.metadata.labels) && object.metadata.labels.team == 'a'" }],
        }),
      ),
    ).toEqual([]);
    expect(found('W21', webhookConfig({ failurePolicy: 'Ignore', matchConditions: mc }))).toEqual([]);
  });

  it('W22 matchcondition-cost: authorizer checks and nested comprehensions', () => {
    const authz = "authorizer.group('').resource('pods').check('create').allowed()";
    expect(found('W22', webhookConfig({ matchConditions: [{ name: 'a', expression: authz }] }))).toEqual(['webhooks[0].matchConditions[0].expression']);
    const nested = 'object.spec.containers.all(c, object.spec.volumes.exists(v, v.name == c.name))';
    expect(found('W22', webhookConfig({ matchConditions: [{ name: 'n', expression: nested }] }))).toEqual(['webhooks[0].matchConditions[0].expression']);
    expect(found('W22', webhookConfig({ matchConditions: [{ name: 'c', expression: "object.spec.containers.all(c, c.image != '')" }] }))).toEqual([]);
  });

  it('W23 consolidate: two webhooks, same endpoint, overlapping rules', () => {
    const second = {
      name: 'd.e.f',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: { url: 'https://hook.example.com/' },
      rules: [rule({ operations: ['UPDATE'] })],
    };
    expect(found('W23', webhookConfig({ rules: [rule()] }, 'ValidatingWebhookConfiguration', [second]))).toEqual(['webhooks[1].clientConfig']);
    expect(found('W23', webhookConfig({ rules: [rule({ resources: ['secrets'] })] }, 'ValidatingWebhookConfiguration', [second]))).toEqual([]);
  });

  it('W25 ha-hint: fail-closed service webhook', () => {
    const svc = { clientConfig: { service: { name: 's', namespace: 'n' }, caBundle: 'Cg==' } };
    expect(found('W25', webhookConfig({ ...svc, failurePolicy: 'Fail' }))).toEqual(['webhooks[0].clientConfig.service']);
    expect(found('W25', webhookConfig(svc))).toEqual([]);
  });

  it('W26 connect-exec-fail-closed: * on pods/exec with Fail', () => {
    expect(found('W26', webhookConfig({ failurePolicy: 'Fail', rules: [rule({ operations: ['*'], resources: ['*/*'], apiGroups: ['*'] })] }))).toEqual([
      'webhooks[0].rules[0].operations',
    ]);
    expect(found('W26', webhookConfig({ failurePolicy: 'Fail', rules: [rule({ operations: ['*'], resources: ['pods'] })] }))).toEqual([]);
  });

  it('W09 still flags admissionregistration resources (never sent to webhooks)', () => {
    expect(found('W09', webhookConfig({ rules: [rule({ apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies'] })] }))).toEqual(
      ['webhooks[0].rules'],
    );
  });

  it('W03 is quiet once control-plane users and nodes skip the webhook and no critical request reaches it', () => {
    const excluded = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] };
    const hook = webhookConfig({ failurePolicy: 'Fail', namespaceSelector: excluded, rules: [rule({ resources: ['pods'] })] });
    const l = lint(hook).find((x) => x.id === 'W03')!;
    expect(l.fixes!.map((f) => f.title)).toEqual(['Skip control-plane users and nodes (matchCondition)', 'Set failurePolicy: Ignore (fail open)']);
    expect(found('W03', l.fixes![0]!.apply(hook).object)).toEqual([]);
  });

  it('W03 fixes: the guard alone does not stop kube-system pods (a controller creates them), so it comes with the exclusion; none stops namespace deletion but failing open', () => {
    const pods = webhookConfig({ failurePolicy: 'Fail', rules: [rule({ resources: ['pods'] })] });
    const l = lint(pods).find((x) => x.id === 'W03')!;
    expect(l.fixes!.map((f) => f.title)).toEqual([
      'Skip control-plane users and nodes, and exclude kube-system and kube-node-lease',
      'Set failurePolicy: Ignore (fail open)',
    ]);
    expect(found('W03', l.fixes![0]!.apply(pods).object)).toEqual([]);
    const namespaces = webhookConfig({ failurePolicy: 'Fail', rules: [rule({ operations: ['*'], resources: ['namespaces'] })] });
    expect(
      lint(namespaces)
        .find((x) => x.id === 'W03')!
        .fixes!.map((f) => f.title),
    ).toEqual(['Set failurePolicy: Ignore (fail open)']);
  });
});

describe('policy lints', () => {
  it('P03 deny-first-rollout: Deny everywhere from the start', () => {
    expect(found('P03', vapb({ validationActions: ['Deny'] }))).toEqual(['spec.validationActions']);
    expect(found('P03', vapb({ validationActions: ['Warn', 'Audit'] }))).toEqual([]);
    expect(found('P03', vapb({ validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { a: 'b' } } } }))).toEqual([]);
  });

  it('P04 fail-with-unguarded-access: optional fields read without has()', () => {
    expect(found('P04', vap({ validations: [{ expression: "object.metadata.labels.team != ''" }] }))).toEqual(['spec.validations[0].expression']);
    expect(found('P04', vap({ failurePolicy: 'Ignore', validations: [{ expression: "object.metadata.labels.team != ''" }] }))).toEqual([]);
    expect(found('P04', vap({ validations: [{ expression: "object.?metadata.?labels.team.orValue('') != ''" }] }))).toEqual([]);
  });

  it('P09 wildcard-blocks-typecheck: * or more than 10 types', () => {
    expect(found('P09', vap({ matchConstraints: { resourceRules: [rule({ resources: ['*'] })] } }))).toEqual(['spec.matchConstraints.resourceRules']);
    const many = 'a b c d e f g h i j k'.split(' ');
    expect(found('P09', vap({ matchConstraints: { resourceRules: [rule({ resources: many })] } }))).toEqual(['spec.matchConstraints.resourceRules']);
    expect(found('P09', vap({}))).toEqual([]);
  });

  it('P12 messageexpression-fallback: line breaks in the message', () => {
    expect(found('P12', vap({ validations: [{ expression: 'true', messageExpression: '"a\\nb"' }] }))).toEqual(['spec.validations[0].messageExpression']);
    expect(found('P12', vap({ validations: [{ expression: 'true', messageExpression: '"a, b"' }] }))).toEqual([]);
  });

  it('P13 reason-default: a security check without reason', () => {
    const priv = 'object.spec.containers.all(c, !has(c.securityContext) || c.securityContext.privileged != true)';
    expect(found('P13', vap({ validations: [{ expression: priv }] }))).toEqual(['spec.validations[0].reason']);
    expect(found('P13', vap({ validations: [{ expression: priv, reason: 'Forbidden' }] }))).toEqual([]);
  });

  it('P14 cost-risk: nested comprehensions or many authorizer checks', () => {
    expect(found('P14', vap({ validations: [{ expression: 'object.a.all(x, object.b.all(y, x != y))' }] }))).toEqual(['spec.validations[0].expression']);
    const three =
      "authorizer.group('').resource('a').check('get').allowed() && authorizer.group('').resource('b').check('get').allowed() && authorizer.group('').resource('c').check('get').allowed()";
    expect(found('P14', vap({ validations: [{ expression: three }] }))).toEqual(['spec.validations[0].expression']);
    expect(found('P14', vap({ validations: [{ expression: 'object.a.all(x, x > 0)' }] }))).toEqual([]);
  });

  it('P15 kube-system-unexcluded: a Deny binding of a pod policy', () => {
    const pods = vap({ matchConstraints: { resourceRules: [rule({ resources: ['pods'] })] } });
    const b = vapb({ validationActions: ['Deny'] });
    expect(found('P15', b, [pods, b])).toEqual(['spec.matchResources.namespaceSelector']);
    const excluded = vapb({
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } },
    });
    expect(found('P15', excluded, [pods, excluded])).toEqual([]);
    expect(found('P15', b, [vap({}), b])).toEqual([]);
    // the policy's matchConditions keep kube-system away: no finding; ones that do not, the finding
    const guarded = (expression: string) =>
      vap({ matchConstraints: { resourceRules: [rule({ resources: ['pods'] })] }, matchConditions: [{ name: 'scope', expression }] });
    expect(found('P15', b, [guarded("request.namespace.startsWith('team-')"), b])).toEqual([]);
    expect(found('P15', b, [guarded("!(request.namespace in ['kube-system', 'kube-public'])"), b])).toEqual([]);
    expect(found('P15', b, [guarded("request.namespace.startsWith('kube-')"), b])).toEqual(['spec.matchResources.namespaceSelector']);
    expect(found('P15', b, [guarded("request.namespace != 'default'"), b])).toEqual(['spec.matchResources.namespaceSelector']);
  });

  it('P16 library-newer-than-target: semver needs 1.34 to be written', () => {
    const p = vap({ validations: [{ expression: 'isSemver(object.metadata.name)' }] });
    expect(found('P16', p, [p], { kubernetesVersion: '1.33' })).toEqual(['spec.validations[0].expression']);
    expect(found('P16', p, [p], { kubernetesVersion: '1.34' })).toEqual([]);
    const ip = vap({ validations: [{ expression: 'isIP(object.spec.clusterIP)' }] });
    expect(found('P16', ip, [ip], { kubernetesVersion: '1.30' })).toEqual(['spec.validations[0].expression']);
    expect(found('P16', p, [p])).toEqual([]);
    // includes() (Kubernetes lists v1, introduced in 1.37) is written from 1.38 on: every target before that
    const inc = vap({ validations: [{ expression: "['a'].includes(object.metadata.name)" }] });
    expect(found('P16', inc, [inc], { kubernetesVersion: '1.37' })).toEqual(['spec.validations[0].expression']);
    // two-variable comprehensions (1.32's library), exists_one as well as existsOne: written from 1.33
    // (the 1.32 apiserver: "undeclared reference to 'exists_one'"; tools/cel-oracle)
    for (const expression of ["object.spec.containers.exists_one(i, c, c.name == 'a')", 'object.spec.containers.existsOne(i, c, i == 0)']) {
      const two = vap({ validations: [{ expression }] });
      expect(found('P16', two, [two], { kubernetesVersion: '1.32' }), expression).toEqual(['spec.validations[0].expression']);
      expect(found('P16', two, [two], { kubernetesVersion: '1.33' }), expression).toEqual([]);
    }
  });
});

describe('mutating policy lints', () => {
  it('M01 exempt-kinds', () => {
    expect(found('M01', map({ matchConstraints: { resourceRules: [rule({ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] })] } }))).toEqual([
      'spec.matchConstraints.resourceRules',
    ]);
    expect(found('M01', map({}))).toEqual([]);
  });

  it('M02 apply-config-atomic: setting an atomic selector in an apply configuration', () => {
    const ac = (expression: string) => map({ mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }] });
    expect(found('M02', ac("Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'a': 'b'}}}}"))).toEqual([
      'spec.mutations[0].applyConfiguration.expression',
    ]);
    expect(found('M02', ac("Object{metadata: Object.metadata{labels: {'a': 'b'}}}"))).toEqual([]);
  });

  it('M03 jsonpatch-unescaped-key and M04 jsonpatch-not-idempotent', () => {
    const jp = (expression: string, extra: O = {}) => map({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression } }], ...extra });
    const concat = "[JSONPatch{op: 'add', path: '/metadata/labels/' + params.key, value: 'x'}]";
    expect(found('M03', jp(concat))).toEqual(['spec.mutations[0].jsonPatch.expression']);
    expect(found('M03', jp("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey(params.key), value: 'x'}]"))).toEqual([]);
    const append = "[JSONPatch{op: 'add', path: '/spec/containers/-', value: Object.spec.containers{name: 'side'}}]";
    expect(found('M04', jp(append))).toEqual(['spec.mutations[0].jsonPatch.expression']);
    expect(found('M04', jp(append, { matchConditions: [{ name: 'no-side', expression: "!object.spec.containers.exists(c, c.name == 'side')" }] }))).toEqual([]);
    expect(found('M04', jp("[JSONPatch{op: 'replace', path: '/spec/tolerations', value: []}]"))).toEqual(['spec.mutations[0].jsonPatch.expression']);
  });

  it('M05 map-fail-closed: on pods', () => {
    expect(found('M05', map({ matchConstraints: { resourceRules: [rule({ resources: ['pods'] })] } }))).toEqual(['spec.failurePolicy']);
    expect(found('M05', map({ failurePolicy: 'Ignore', matchConstraints: { resourceRules: [rule({ resources: ['pods'] })] } }))).toEqual([]);
  });
});

describe('cross-document lints', () => {
  it('G03 overlapping-policies: a MAP mutates what a VAP validates', () => {
    const v = vap({});
    expect(found('G03', v, [v, map({})])).toEqual(['spec.matchConstraints.resourceRules']);
    expect(found('G03', v, [v, map({ matchConstraints: { resourceRules: [rule({ resources: ['secrets'] })] } })])).toEqual([]);
  });

  it('G04 policy-and-webhook-mutate: a MAP and a mutating webhook on the same resources', () => {
    const m = map({});
    const hook = webhookConfig({ rules: [rule({ operations: ['*'], resources: ['*'] })] }, 'MutatingWebhookConfiguration');
    expect(found('G04', m, [m, hook])).toEqual(['spec.matchConstraints.resourceRules']);
    expect(found('G04', m, [m, webhookConfig({ rules: [rule({ resources: ['secrets'] })] }, 'MutatingWebhookConfiguration')])).toEqual([]);
  });
});

describe('refinements found on the real-world corpus', () => {
  it('M02 is quiet for atomic fields of a list item the configuration adds (the Kubernetes docs sidecar example)', () => {
    const ac = (expression: string) => map({ mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }] });
    expect(found('M02', ac('Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "proxy", args: ["a"]}]}}'))).toEqual([]);
    expect(found('M02', ac('Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "a"}]}}'))).toEqual([
      'spec.mutations[0].applyConfiguration.expression',
    ]);
  });

  it('W13 is about Kubernetes APIs, not custom resources with their own alpha versions', () => {
    expect(found('W13', webhookConfig({ rules: [rule({ apiGroups: ['policy.linkerd.io'], apiVersions: ['v1alpha1'], resources: ['servers'] })] }))).toEqual([]);
  });
});

describe('help text', () => {
  it('every finding on the fixtures and the real-world copies says what to do (a hint)', () => {
    const files = [...fixtureFiles('fixes'), ...fixtureFiles('realworld')];
    const missing = new Set<string>();
    let findings = 0;
    for (const f of files) {
      const ws = (loadAll(readFileSync(f, 'utf8')) as { kind?: string; items?: unknown[] }[]).flatMap((d) =>
        d?.kind === 'List' ? (d.items ?? []) : d ? [d] : [],
      );
      for (const o of ws)
        for (const l of lint(o, ws, { kubernetesVersion: '1.30' })) {
          findings++;
          if (!l.hint) missing.add(`${l.id}: ${l.message}`);
        }
    }
    expect(findings).toBeGreaterThan(500);
    expect([...missing]).toEqual([]);
  });
});
