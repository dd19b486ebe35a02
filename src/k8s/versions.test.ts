/**
 * The target release (1.30–1.37) in validation: served apiVersions per kind and release,
 * the hints, older releases' wording, the release passed to the CEL compiler, and `null`
 * inside string lists decoded to "" as the apiserver's decoder does.
 */
import { describe, expect, it } from 'vitest';
import { servingOfObject } from './registry';
import { validate } from './validate-all';
import { scriptedCompiler } from './validation/testing';
import { KUBERNETES_VERSIONS, type KubernetesVersion } from '../base/releases';

const G = 'admissionregistration.k8s.io';

const minimal: Record<string, object> = {
  ValidatingWebhookConfiguration: { metadata: { name: 'w' } },
  MutatingWebhookConfiguration: { metadata: { name: 'w' } },
  ValidatingAdmissionPolicy: {
    metadata: { name: 'p' },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      validations: [{ expression: 'true' }],
    },
  },
  ValidatingAdmissionPolicyBinding: { metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'] } },
  MutatingAdmissionPolicy: {
    metadata: { name: 'm' },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
      reinvocationPolicy: 'Never',
    },
  },
  MutatingAdmissionPolicyBinding: { metadata: { name: 'b' }, spec: { policyName: 'm' } },
};

/**
 * What each release does with each apiVersion, written out by hand from the releases' sources
 * (storage_apiserver.go, instance.go; see docs/versions.md): S served by default, O opt-in
 * (present, off by default), - not in that release. Columns: 1.30 … 1.38.
 */
const EXPECTED: Record<string, string> = {
  'ValidatingWebhookConfiguration/v1': 'SSSSSSSSS',
  'ValidatingWebhookConfiguration/v1beta1': '---------',
  'MutatingWebhookConfiguration/v1': 'SSSSSSSSS',
  'MutatingWebhookConfiguration/v1beta1': '---------',
  'ValidatingAdmissionPolicy/v1': 'SSSSSSSSS',
  'ValidatingAdmissionPolicy/v1beta1': 'OOOOOOOOO',
  'ValidatingAdmissionPolicy/v1alpha1': 'OOO------',
  'ValidatingAdmissionPolicyBinding/v1': 'SSSSSSSSS',
  'ValidatingAdmissionPolicyBinding/v1beta1': 'OOOOOOOOO',
  'ValidatingAdmissionPolicyBinding/v1alpha1': 'OOO------',
  'MutatingAdmissionPolicy/v1': '------SSS',
  'MutatingAdmissionPolicy/v1beta1': '----OOOOO',
  'MutatingAdmissionPolicy/v1alpha1': '--OOOOOOO',
  'MutatingAdmissionPolicyBinding/v1': '------SSS',
  'MutatingAdmissionPolicyBinding/v1beta1': '----OOOOO',
  'MutatingAdmissionPolicyBinding/v1alpha1': '--OOOOOOO',
};

const cases = Object.entries(EXPECTED).flatMap(([kv, row]) =>
  KUBERNETES_VERSIONS.map((release, i) => [kv, release, row[i]!] as [string, KubernetesVersion, string]),
);

describe('served apiVersions per target release', () => {
  it.each(cases)('%s at %s: %s', (kv, release, expected) => {
    const [kind, version] = kv.split('/') as [string, string];
    const obj = { apiVersion: `${G}/${version}`, kind, ...minimal[kind] };
    const errs = validate(obj, { kubernetesVersion: release });
    const apiVersionErrors = errs.filter((e) => e.field === 'apiVersion');
    if (expected === 'S') {
      expect(errs).toEqual([]);
      return;
    }
    expect(apiVersionErrors).toEqual([
      expect.objectContaining({ type: 'NotSupported', message: `no matches for kind "${kind}" in version "${G}/${version}"` }),
    ]);
    if (expected === 'O') {
      expect(apiVersionErrors[0]!.hint).toContain(`--runtime-config=${G}/${version}=true`);
      expect(errs).toHaveLength(1); // the rules ran and found nothing else
    } else {
      expect(errs).toHaveLength(1); // not in the release: nothing else is checked
      expect(apiVersionErrors[0]!.hint).not.toContain(`--runtime-config=${G}/${version}=true`);
    }
  });

  it('servingOfObject: what the simulator and lints ask of a document', () => {
    expect(servingOfObject({ apiVersion: `${G}/v1`, kind: 'MutatingAdmissionPolicy' }, '1.36')).toBe('served');
    expect(servingOfObject({ apiVersion: `${G}/v1beta1`, kind: 'MutatingAdmissionPolicy' }, '1.34')).toBe('opt-in');
    expect(servingOfObject({ apiVersion: `${G}/v1`, kind: 'MutatingAdmissionPolicy' }, '1.35')).toBeUndefined();
    expect(servingOfObject({ apiVersion: 'v1', kind: 'ConfigMap' }, '1.36')).toBeUndefined();
  });

  it('defaults to 1.37', () => {
    const map = { apiVersion: `${G}/v1`, kind: 'MutatingAdmissionPolicy', ...minimal.MutatingAdmissionPolicy };
    expect(validate(map)).toEqual([]);
    expect(validate(map, { kubernetesVersion: '1.35' })).toHaveLength(1);
  });
});

describe('hints for versions a release does not serve', () => {
  const hint = (kind: string, version: string, release: KubernetesVersion): string =>
    validate({ apiVersion: `${G}/${version}`, kind, ...minimal[kind] }, { kubernetesVersion: release }).find((e) => e.field === 'apiVersion')?.hint ?? '';

  it('v1beta1 webhook configurations: removed in 1.22, convert to v1', () => {
    const h = hint('ValidatingWebhookConfiguration', 'v1beta1', '1.36');
    expect(h).toContain('Kubernetes 1.22 removed admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration');
    expect(h).toContain(`serves ValidatingWebhookConfiguration as ${G}/v1`);
    expect(h).toContain(`Convert it to ${G}/v1 (Convert to v1 keeps its behaviour).`);
  });
  it('MutatingAdmissionPolicy v1 before 1.36: what the release has, off by default, and the flags', () => {
    const h = hint('MutatingAdmissionPolicy', 'v1', '1.35');
    expect(h).toContain('Kubernetes 1.35 has MutatingAdmissionPolicy only as v1beta1 and v1alpha1, off by default');
    expect(h).toContain('--feature-gates=MutatingAdmissionPolicy=true');
    expect(h).toContain('served by default from Kubernetes 1.36');
    expect(h).not.toMatch(/convert/i);
  });
  it('MutatingAdmissionPolicy before 1.32: the release has no such kind', () => {
    expect(hint('MutatingAdmissionPolicy', 'v1alpha1', '1.31')).toContain(
      'Kubernetes 1.31 has no MutatingAdmissionPolicy (it first appears in Kubernetes 1.32)',
    );
  });
  it('v1alpha1 ValidatingAdmissionPolicy after 1.32: removed in 1.33', () => {
    expect(hint('ValidatingAdmissionPolicy', 'v1alpha1', '1.33')).toContain(
      'Kubernetes 1.33 removed admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicy',
    );
  });
});

describe("older releases' wording", () => {
  const vap = (spec: object) => ({
    apiVersion: `${G}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p' },
    spec: { ...(minimal.ValidatingAdmissionPolicy!['spec' as never] as object), ...spec },
  });
  const lines = (o: object, release: KubernetesVersion) => validate(o, { kubernetesVersion: release }).map((e) => `${e.field}: ${e.message}`);

  it('variable names: "name is not a valid CEL identifier" until 1.33', () => {
    const o = vap({ variables: [{ name: '1x', expression: 'true' }] });
    expect(lines(o, '1.33')).toContain('spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier');
    expect(lines(o, '1.34')).toContain('spec.variables[0].name: Invalid value: "1x": must be a valid CEL identifier');
  });
  it('validation messages: "message must not contain line breaks" until 1.33', () => {
    const o = vap({ validations: [{ expression: 'true', message: 'a\nb' }] });
    expect(lines(o, '1.30')).toContain('spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks');
    expect(lines(o, '1.36')).toContain('spec.validations[0].message: Invalid value: "a\\nb": must not contain line breaks');
  });
  it('ValidatingAdmissionPolicyBinding matchResources errors at spec.matchResouces until 1.31', () => {
    const b = {
      apiVersion: `${G}/v1`,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'b' },
      spec: { policyName: 'p', validationActions: ['Deny'], matchResources: { matchPolicy: 'Sometimes' } },
    };
    expect(validate(b, { kubernetesVersion: '1.31' }).map((e) => e.field)).toEqual(['spec.matchResouces.matchPolicy']);
    expect(validate(b, { kubernetesVersion: '1.32' }).map((e) => e.field)).toEqual(['spec.matchResources.matchPolicy']);
  });
  it('annotations too long: "must have at most N bytes" until 1.31', () => {
    const o = { ...vap({}), metadata: { name: 'p', annotations: { a: 'x'.repeat(262145) } } };
    expect(lines(o, '1.31')).toContain('metadata.annotations: Too long: must have at most 262144 bytes');
    expect(lines(o, '1.32')).toContain('metadata.annotations: Too long: may not be more than 262144 bytes');
  });
});

describe("older releases' wording (found by the validation oracle)", () => {
  const hook = (extra: object) => ({
    apiVersion: `${G}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'w' },
    webhooks: [{ name: 'a.b.c', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://x' }, ...extra }],
  });
  const lines = (o: object, release: KubernetesVersion) => validate(o, { kubernetesVersion: release }).map((e) => `${e.field}: ${e.message}`);

  it('label keys and values: "bytes" from 1.35, "characters" and "a qualified name" before', () => {
    const o = hook({ objectSelector: { matchLabels: { ['k'.repeat(64)]: 'v'.repeat(64), 'a/b/c': 'x' } } });
    expect(lines(o, '1.35')).toEqual([
      `webhooks[0].objectSelector.matchLabels: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 bytes`,
      `webhooks[0].objectSelector.matchLabels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
      expect.stringMatching(/^webhooks\[0\]\.objectSelector\.matchLabels: Invalid value: "a\/b\/c": a valid label key must consist of/),
    ]);
    expect(lines(o, '1.34')).toEqual([
      `webhooks[0].objectSelector.matchLabels: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
      `webhooks[0].objectSelector.matchLabels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
      expect.stringMatching(/^webhooks\[0\]\.objectSelector\.matchLabels: Invalid value: "a\/b\/c": a qualified name must consist of/),
    ]);
  });
  it('service name and namespace: "service name is required" until 1.33', () => {
    const o = hook({ clientConfig: { service: { path: '/x' } } });
    expect(lines(o, '1.33')).toEqual([
      'webhooks[0].clientConfig.service.name: Required value: service name is required',
      'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
    ]);
    expect(lines(o, '1.34')).toEqual(['webhooks[0].clientConfig.service.name: Required value', 'webhooks[0].clientConfig.service.namespace: Required value']);
  });
  it('caBundle as a JSON array of bytes decodes (Go decodes a number array into []byte)', () => {
    expect(validate(hook({ clientConfig: { url: 'https://x', caBundle: [] } }))).toEqual([]);
    expect(validate(hook({ clientConfig: { url: 'https://x', caBundle: [45, 45] } }))).toEqual([]);
    expect(validate(hook({ clientConfig: { url: 'https://x', caBundle: [256] } })).map((e) => e.field)).toEqual(['webhooks[0].clientConfig.caBundle']);
  });
});

describe('the target release reaches the CEL compiler', () => {
  it('passes kubernetesVersion in every compile (none for 1.37, the engine default)', () => {
    const cel = scriptedCompiler();
    const o = { apiVersion: `${G}/v1`, kind: 'ValidatingAdmissionPolicy', ...minimal.ValidatingAdmissionPolicy };
    validate(o, { cel, kubernetesVersion: '1.31' });
    expect(cel.calls.length).toBeGreaterThan(0);
    expect(cel.calls.every((c) => c.options?.kubernetesVersion === '1.31')).toBe(true);
    cel.calls.length = 0;
    validate(o, { cel });
    expect(cel.calls.every((c) => c.options?.kubernetesVersion === undefined)).toBe(true);
  });
  it('does not reuse a webhook result compiled for another release', () => {
    const cel = scriptedCompiler();
    const o = {
      apiVersion: `${G}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [
        {
          name: 'a.b.c',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://x' },
          matchConditions: [{ name: 'm', expression: 'true' }],
        },
      ],
    };
    validate(o, { cel, kubernetesVersion: '1.30' });
    validate(o, { cel, kubernetesVersion: '1.37' });
    expect(cel.calls.map((c) => c.options?.kubernetesVersion)).toEqual(['1.30', undefined]);
  });
});

describe('null inside a list of strings decodes to "" (as the apiserver decoder does)', () => {
  const hook = (rule: object, extra: object = {}) => ({
    apiVersion: `${G}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'w' },
    webhooks: [
      {
        name: 'a.b.c',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        clientConfig: { url: 'https://x' },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...rule }],
        ...extra,
      },
    ],
  });
  const lines = (o: object) => validate(o).map((e) => `${e.field}: ${e.message}`);

  it.each([
    [
      { operations: ['CREATE', null] },
      'webhooks[0].rules[0].operations[1]: Unsupported value: "": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    ],
    [{ resources: ['pods', null] }, 'webhooks[0].rules[0].resources[1]: Required value'],
    [{ apiVersions: [null] }, 'webhooks[0].rules[0].apiVersions[0]: Required value'],
  ])('rules %j', (rule, expected) => expect(lines(hook(rule))).toEqual([expected]));

  it('admissionReviewVersions [v1, null]', () => {
    expect(lines(hook({}, { admissionReviewVersions: ['v1', null] }))).toEqual([
      expect.stringMatching(/^webhooks\[0\]\.admissionReviewVersions\[1\]: Invalid value: "": a DNS-1035 label/),
    ]);
  });
  it('a binding validationActions [Deny, null]', () => {
    const b = {
      apiVersion: `${G}/v1`,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'b' },
      spec: { policyName: 'p', validationActions: ['Deny', null] },
    };
    expect(lines(b)).toEqual(['spec.validationActions[1]: Unsupported value: "": supported values: "Audit", "Deny", "Warn"']);
  });
  it('null label values and selector values are "" (valid), and the input is not changed', () => {
    const o = hook({}, { namespaceSelector: { matchLabels: { a: null }, matchExpressions: [{ key: 'k', operator: 'In', values: [null] }] } });
    const before = JSON.stringify(o);
    expect(lines(o)).toEqual([]);
    expect(JSON.stringify(o)).toBe(before);
  });
});
