import { describe, expect, it } from 'vitest';
import { withDefaults } from './defaults';

/** Deep-freeze so that any mutation of the input throws. */
function frozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    Object.values(v).forEach(frozen);
    Object.freeze(v);
  }
  return v;
}

const G = 'admissionregistration.k8s.io';

describe('withDefaults: webhook configurations (v1)', () => {
  const vwc = frozen({
    apiVersion: `${G}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'x' },
    webhooks: [{ name: 'a.b.c', clientConfig: { service: { name: 's', namespace: 'n' } }, rules: [{ operations: ['CREATE'] }] }],
  });

  it('fills every v1 webhook default and nothing else', () => {
    expect(withDefaults(vwc)).toEqual({
      ...vwc,
      webhooks: [
        {
          name: 'a.b.c',
          clientConfig: { service: { name: 's', namespace: 'n', port: 443 } },
          rules: [{ operations: ['CREATE'], scope: '*' }],
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
          timeoutSeconds: 10,
        },
      ],
    });
  });
  it('adds reinvocationPolicy Never to mutating webhooks only', () => {
    expect((withDefaults({ ...vwc, kind: 'MutatingWebhookConfiguration' }).webhooks[0] as Record<string, unknown>).reinvocationPolicy).toBe('Never');
    expect(withDefaults(vwc).webhooks[0]).not.toHaveProperty('reinvocationPolicy');
  });
  it('does not default sideEffects or admissionReviewVersions', () => {
    expect(withDefaults(vwc).webhooks[0]).not.toHaveProperty('sideEffects');
    expect(withDefaults(vwc).webhooks[0]).not.toHaveProperty('admissionReviewVersions');
  });
  it('replaces nulls left by Helm', () => {
    const out = withDefaults({ ...vwc, webhooks: [{ ...vwc.webhooks[0], objectSelector: null, failurePolicy: null, timeoutSeconds: null }] });
    expect(out.webhooks[0]).toMatchObject({ objectSelector: {}, failurePolicy: 'Fail', timeoutSeconds: 10 });
  });
  it('keeps explicit zero values', () => {
    const hook = {
      ...vwc.webhooks[0],
      failurePolicy: '',
      timeoutSeconds: 0,
      clientConfig: { service: { name: 's', namespace: 'n', port: 0 } },
      rules: [{ scope: '' }],
    };
    expect(withDefaults({ ...vwc, webhooks: [hook] }).webhooks[0]).toMatchObject({
      failurePolicy: '',
      timeoutSeconds: 0,
      clientConfig: { service: { port: 0 } },
      rules: [{ scope: '' }],
    });
  });
  it('does not add a service port to url webhooks', () => {
    const out = withDefaults({ ...vwc, webhooks: [{ name: 'a.b.c', clientConfig: { url: 'https://x' } }] });
    expect(out.webhooks[0]!.clientConfig).toEqual({ url: 'https://x' });
  });
  it('never mutates the input; an unchanged element defaults to the very same object (validation reuses its results)', () => {
    const a = withDefaults(vwc);
    const b = withDefaults(vwc);
    expect(a).not.toBe(vwc);
    expect(a.webhooks[0]).not.toBe(vwc.webhooks[0]);
    expect(b.webhooks[0]).toBe(a.webhooks[0]);
    const edited = { ...vwc, webhooks: [{ ...(vwc.webhooks[0] as object), timeoutSeconds: 3 }] };
    expect(withDefaults(edited).webhooks[0]).not.toBe(a.webhooks[0]);
  });
  it('defaults v1beta1 webhook configurations with the v1beta1 defaults (pkg/apis/admissionregistration/v1beta1/defaults.go)', () => {
    const old = frozen({ ...vwc, apiVersion: `${G}/v1beta1`, webhooks: [{ name: 'a', admissionReviewVersions: [] }] });
    expect(withDefaults(old).webhooks[0]).toEqual({
      name: 'a',
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      namespaceSelector: {},
      objectSelector: {},
      sideEffects: 'Unknown',
      timeoutSeconds: 30,
      admissionReviewVersions: ['v1beta1'],
    });
    const mutating = frozen({ ...old, kind: 'MutatingWebhookConfiguration' });
    expect(withDefaults(mutating).webhooks[0]).toMatchObject({ reinvocationPolicy: 'Never', failurePolicy: 'Ignore' });
  });
  it('skips elements of the wrong type', () => {
    const odd = frozen({ ...vwc, webhooks: ['x', 3] });
    expect(withDefaults(odd)).toEqual(odd);
  });
  it('defaults a null element as the zero struct, as Go decodes it', () => {
    const out = withDefaults(frozen({ ...vwc, webhooks: [null] }));
    expect(out.webhooks[0]).toEqual({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10 });
  });
});

describe.each(['v1', 'v1beta1', 'v1alpha1'])('withDefaults: policies and bindings (%s)', (v) => {
  it('defaults policy failurePolicy and a present matchConstraints', () => {
    const vap = frozen({
      apiVersion: `${G}/${v}`,
      kind: 'ValidatingAdmissionPolicy',
      spec: { matchConstraints: { resourceRules: [{}], excludeResourceRules: [{ scope: 'Cluster' }] } },
    });
    expect(withDefaults(vap).spec).toEqual({
      failurePolicy: 'Fail',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ scope: '*' }],
        excludeResourceRules: [{ scope: 'Cluster' }],
      },
    });
  });
  it('does not create matchConstraints or reinvocationPolicy', () => {
    const map = frozen({ apiVersion: `${G}/${v}`, kind: 'MutatingAdmissionPolicy', spec: {} });
    expect(withDefaults(map).spec).toEqual({ failurePolicy: 'Fail' });
  });
  it('defaults a binding matchResources only when present, and parameterNotFoundAction only in v1alpha1', () => {
    const b = frozen({ apiVersion: `${G}/${v}`, kind: 'ValidatingAdmissionPolicyBinding', spec: { paramRef: { name: 'x' } } });
    if (v === 'v1alpha1') expect(withDefaults(b).spec).toEqual({ paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } });
    else {
      expect(withDefaults(b)).toEqual(b);
      expect(withDefaults(b)).not.toBe(b);
      expect(withDefaults(b).spec).toBe(b.spec); // untouched subtrees are shared
    }
    const withMR = frozen({ ...b, kind: 'MutatingAdmissionPolicyBinding', spec: { matchResources: {} } });
    expect(withDefaults(withMR).spec).toEqual({ matchResources: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} } });
  });
});

describe('withDefaults: anything else', () => {
  it.each([null, 42, 'x', [], { kind: 'Pod', apiVersion: 'v1' }, { kind: 'ValidatingAdmissionPolicy' }])('returns %j unchanged', (v) => {
    expect(withDefaults(v)).toBe(v);
  });
});
