import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../fixtures';
import { validateRules, validatorFor } from './validate';
import { pairsOf, render, scriptedCompiler, type Pair } from './validation/testing';

const fixture = (name: string): unknown[] => loadAll(readFixture('validation', name));

describe('validateRules: dispatch', () => {
  it.each([null, undefined, 42, 'text', true, [], [{ kind: 'ValidatingWebhookConfiguration' }]])('%j is one Invalid at the root', (v) => {
    const errs = validateRules(v);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ type: 'Invalid', field: '' });
  });
  it.each([{ apiVersion: 'v1', kind: 'Pod' }, { apiVersion: 'example.com/v1', kind: 'ValidatingWebhookConfiguration' }, { apiVersion: 42, kind: [] }, {}])(
    'another kind %j gives no errors',
    (v) => expect(validateRules(v)).toEqual([]),
  );
  it.each([
    [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfigurations' },
      'kind',
      'no matches for kind "ValidatingWebhookConfigurations" in version "admissionregistration.k8s.io/v1"',
      'Did you mean ValidatingWebhookConfiguration?',
    ],
    [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'validatingadmissionpolicy' },
      'kind',
      'no matches for kind "validatingadmissionpolicy" in version "admissionregistration.k8s.io/v1"',
      'Did you mean ValidatingAdmissionPolicy?',
    ],
    [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'toString' },
      'kind',
      'no matches for kind "toString" in version "admissionregistration.k8s.io/v1"',
      'admissionregistration.k8s.io has',
    ],
    [{ apiVersion: 'admissionregistration.k8s.io/v1', metadata: { name: 'x' } }, 'kind', 'Required value: kind not set', 'has ValidatingWebhookConfiguration'],
    [{ kind: 'ValidatingWebhookConfiguration' }, 'apiVersion', 'Required value: apiVersion not set', 'is admissionregistration.k8s.io/v1'],
  ])('an object claiming our API group with no kind of it %j: one error, as kubectl refuses it', (v, field, message, hint) => {
    const errs = validateRules(v);
    expect(errs).toEqual([expect.objectContaining({ field, message })]);
    expect(errs[0]!.hint).toContain(hint);
  });
  it.each([
    [
      { apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'ValidatingWebhookConfiguration', webhooks: [{}] },
      'ValidatingWebhookConfiguration',
      'admissionregistration.k8s.io/v1beta1',
    ],
    [{ apiVersion: 'admissionregistration.k8s.io/v2', kind: 'ValidatingAdmissionPolicy' }, 'ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/v2'],
  ])('a kind of ours in a version no release serves %j: only the apiVersion error', (v, kind, apiVersion) =>
    expect(validateRules(v)).toEqual([expect.objectContaining({ field: 'apiVersion', message: `no matches for kind "${kind}" in version "${apiVersion}"` })]),
  );
  it('knows the six kinds', () => {
    for (const kind of [
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
    ])
      expect(validatorFor('admissionregistration.k8s.io/v1', kind)).toBeTypeOf('function');
  });
  it('validates an empty object of each kind', () => {
    const G = 'admissionregistration.k8s.io/v1';
    expect(pairsOf(validateRules({ apiVersion: G, kind: 'ValidatingWebhookConfiguration' }))).toEqual(['Required metadata.name']);
    expect(pairsOf(validateRules({ apiVersion: G, kind: 'ValidatingAdmissionPolicy' }))).toEqual(
      render([
        ['metadata.name', 'Required'],
        ['spec.matchConstraints', 'Required'],
        ['spec.validations', 'Required'],
        ['spec.auditAnnotations', 'Required'],
      ]),
    );
    expect(pairsOf(validateRules({ apiVersion: G, kind: 'MutatingAdmissionPolicy' }))).toEqual(
      render([
        ['metadata.name', 'Required'],
        ['spec.matchConstraints', 'Required'],
        ['spec.mutations', 'Required'],
        ['spec.reinvocationPolicy', 'Required'],
      ]),
    );
    expect(pairsOf(validateRules({ apiVersion: G, kind: 'ValidatingAdmissionPolicyBinding' }))).toEqual(
      render([
        ['metadata.name', 'Required'],
        ['spec.policyName', 'Required'],
        ['spec.validationActions', 'Required'],
      ]),
    );
    expect(pairsOf(validateRules({ apiVersion: G, kind: 'MutatingAdmissionPolicyBinding' }))).toEqual(
      render([
        ['metadata.name', 'Required'],
        ['spec.policyName', 'Required'],
      ]),
    );
  });
  it('validates the defaulted object without changing the input', () => {
    const obj = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: { matchConstraints: {}, validations: [{ expression: 'true' }] },
    };
    const before = JSON.stringify(obj);
    expect(pairsOf(validateRules(obj))).toEqual(['Required spec.matchConstraints.resourceRules']);
    expect(JSON.stringify(obj)).toBe(before);
  });
  it('reads a null list element as the zero struct (an empty Helm list item), as Go decodes it', () => {
    const G = 'admissionregistration.k8s.io/v1';
    expect(pairsOf(validateRules({ apiVersion: G, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'x' }, webhooks: [null] }))).toEqual(
      render([
        ['webhooks[0].name', 'Required'],
        ['webhooks[0].sideEffects', 'Required'],
        ['webhooks[0].clientConfig', 'Required'],
        ['webhooks[0].admissionReviewVersions', 'Required'],
      ]),
    );
    const vap = {
      apiVersion: G,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: { matchConstraints: { resourceRules: [null] }, matchConditions: [null], validations: [null] },
    };
    expect(pairsOf(validateRules(vap))).toEqual(
      render([
        ['spec.matchConstraints.resourceRules[0].operations', 'Required'],
        ['spec.matchConstraints.resourceRules[0].apiGroups', 'Required'],
        ['spec.matchConstraints.resourceRules[0].apiVersions', 'Required'],
        ['spec.matchConstraints.resourceRules[0].resources', 'Required'],
        ['spec.matchConditions[0].expression', 'Required'],
        ['spec.matchConditions[0].name', 'Required'],
        ['spec.validations[0].expression', 'Required'],
      ]),
    );
  });
  it('the reserved .static.k8s.io suffix: an error at 1.37, a warning at 1.36, nothing before', () => {
    const b = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: 'x.static.k8s.io' },
      spec: { policyName: 'p' },
    };
    const detail = 'names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';
    expect(validateRules(b)).toEqual([{ type: 'Invalid', field: 'metadata.name', message: `Invalid value: "x.static.k8s.io": ${detail}` }]);
    // the warning's text is the apiserver's: `metadata.name: names ending with …`
    expect(validateRules(b, { kubernetesVersion: '1.36' })).toEqual([{ type: 'Invalid', field: 'metadata.name', severity: 'warning', message: detail }]);
    // 1.35 does not serve this kind in v1 (an apiVersion error), and has no rule for the suffix
    expect(validateRules(b, { kubernetesVersion: '1.35' }).map((e) => e.field)).toEqual(['apiVersion']);
  });
  it('1.37 warns about webhook rules naming resources webhooks never see, and reports identical errors once', () => {
    const [, reviews, repeated] = fixture('release-1-37.yaml');
    const warnings = (v?: '1.36') => validateRules(reviews, v && { kubernetesVersion: v }).map((e) => `${e.severity} ${e.field}: ${e.message}`);
    expect(warnings()).toEqual([
      'warning webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect',
      'warning webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect',
      'warning webhooks[0].rules[2]: selfsubjectrulesreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect',
    ]);
    expect(warnings('1.36')).toEqual([]);
    const texts = (v?: '1.36') => validateRules(repeated, v && { kubernetesVersion: v }).map((e) => `${e.field}: ${e.message}`);
    // `resources[1]: … must not specify */*` twice at 1.36 (once per other '*/*'), once at 1.37
    expect(texts('1.36')).toHaveLength(3);
    expect(texts()).toEqual([...new Set(texts('1.36'))]);
    expect(texts()).toHaveLength(2);
  });
  it('prefixes List items', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b' } },
        'junk',
      ],
    };
    expect(pairsOf(validateRules(list))).toEqual(['Required items[1].spec.policyName']);
  });
  it('passes the compiler through', () => {
    const cel = scriptedCompiler();
    const vwc = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'x' },
      webhooks: [
        {
          name: 'a.b.c',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://a' },
          matchConditions: [{ name: 'm', expression: 'BAD' }],
        },
      ],
    };
    expect(pairsOf(validateRules(vwc, { cel }))).toEqual(['Invalid webhooks[0].matchConditions[0].expression']);
  });
});

describe('validateRules: fixtures modelled on real configurations', () => {
  it.each<[string, Pair[][]]>([
    ['knative-webhooks-without-rules.yaml', [[], []]],
    ['gatekeeper-wildcards.yaml', [[]]],
    ['helm-nulls.yaml', [[]]],
    ['cabundle-multiline.yaml', [[]]],
    ['kyaml-flow.yaml', [[]]],
    ['v1-list.yaml', [[]]],
    [
      'rejected-docs-match-conditions.yaml',
      [
        [
          ['metadata.name', 'Required'],
          ['webhooks[0].clientConfig.caBundle', 'Invalid'],
          ['webhooks[0].admissionReviewVersions', 'Required'],
        ],
      ],
    ],
    [
      'rejected-binding-and-map.yaml',
      [
        [['spec.paramRef.parameterNotFoundAction', 'Required']],
        [
          ['spec.matchConstraints.resourceRules.operations', 'NotSupported'],
          ['spec.reinvocationPolicy', 'Required'],
        ],
      ],
    ],
  ])('%s', (name, expected) => {
    const docs = fixture(name);
    expect(docs.map((d) => pairsOf(validateRules(d)))).toEqual(expected.map(render));
  });
  it('the multi-line caBundle really spans lines', () => {
    const [doc] = fixture('cabundle-multiline.yaml') as [{ webhooks: [{ clientConfig: { caBundle: string } }] }];
    expect(doc.webhooks[0].clientConfig.caBundle.split('\n').length).toBeGreaterThan(3);
  });
});

/** Every path in a JSON-like value, with its value. */
function paths(v: unknown, prefix: (string | number)[] = []): [(string | number)[], unknown][] {
  const out: [(string | number)[], unknown][] = prefix.length ? [[prefix, v]] : [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}
const typeOf = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
const render1 = (segs: (string | number)[]) => segs.map((s, i) => (typeof s === 'number' ? `[${s}]` : i ? `.${s}` : s)).join('');
function replaced(root: unknown, segs: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const s of segs.slice(0, -1)) cur = cur[s] as Record<string | number, unknown>;
  cur[segs[segs.length - 1]!] = value;
  return copy;
}

describe('validateRules: values of the wrong JSON type never throw and are never reported', () => {
  const docs = [
    ...fixture('gatekeeper-wildcards.yaml'),
    ...fixture('helm-nulls.yaml'),
    ...fixture('kyaml-flow.yaml'),
    ...(fixture('v1-list.yaml')[0] as { items: unknown[] }).items,
    ...fixture('rejected-binding-and-map.yaml'),
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p', labels: { a: 'b' }, ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: true }], finalizers: ['f'] },
      spec: {
        auditAnnotations: [{ key: 'k', valueExpression: "'v'" }],
        matchConditions: [{ name: 'n', expression: 'true' }],
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], resourceNames: ['x'] }] },
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'b' },
      spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Deny' } },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'u' },
      webhooks: [
        {
          name: 'a.b.c',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://x', caBundle: 'Cg==' },
          matchConditions: [{ name: 'm', expression: 'true' }],
        },
      ],
    },
  ];
  const wrongValues = [42, true, 'text', [], {}, [1], { a: 1 }];
  const cases: [string, unknown, unknown][] = [];
  for (const doc of docs)
    for (const [segs, value] of paths(doc)) {
      if (segs[0] === 'apiVersion' || segs[0] === 'kind' || value === null) continue;
      for (const w of wrongValues) {
        if (typeOf(w) === typeOf(value) || (typeOf(w) === 'object' && typeOf(value) === 'null')) continue;
        cases.push([render1(segs), w, replaced(doc, segs, w)]);
      }
    }
  it(`holds for ${cases.length} replacements`, () => {
    expect(cases.length).toBeGreaterThan(1000);
    const reported: string[] = [];
    for (const [path, w, obj] of cases) {
      const errs = validateRules(obj, { cel: scriptedCompiler() });
      for (const e of errs)
        if (e.field === path || e.field.startsWith(`${path}.`) || e.field.startsWith(`${path}[`))
          reported.push(`${path}=${JSON.stringify(w)}: ${e.field} ${e.message}`);
    }
    expect(reported).toEqual([]);
  });
});

describe('ownerReferences: apimachinery v0.37 words (1.37) and v0.36 (1.36), as the apiservers say them', () => {
  const vapb = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: {
      name: 'b',
      ownerReferences: [
        { apiVersion: '', kind: '', name: '', uid: '' },
        { apiVersion: 'a/b/c', kind: 'K', name: 'n', uid: 'u' },
      ],
    },
    spec: { policyName: 'p', validationActions: ['Deny'] },
  };
  const lines = (v?: '1.36') => validateRules(vapb, v && { kubernetesVersion: v }).map((e) => `${e.field}: ${e.message}`);
  it('1.37: indexed, Required', () =>
    expect(lines()).toEqual([
      'metadata.ownerReferences[0].apiVersion: Required value: must not be empty',
      'metadata.ownerReferences[0].kind: Required value: must not be empty',
      'metadata.ownerReferences[0].name: Required value: must not be empty',
      'metadata.ownerReferences[0].uid: Required value: must not be empty',
      'metadata.ownerReferences[1].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>',
    ]));
  it('1.36: no index, Invalid', () =>
    expect(lines('1.36')).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
    ]));
});
