import { describe, expect, it } from 'vitest';
import { convertToV1 } from './convert';
import { withDefaults } from './defaults';
import { validate } from './validate-all';

const G = 'admissionregistration.k8s.io';

/** Deep-freeze: conversion must never change its input. */
function frozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    Object.values(v).forEach(frozen);
    Object.freeze(v);
  }
  return v;
}

const oldHook = (extra: object = {}) => ({
  name: 'check.example.com',
  clientConfig: { service: { namespace: 'ns', name: 'svc' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  ...extra,
});
const oldVwc = (hooks: object[]) =>
  frozen({ apiVersion: `${G}/v1beta1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'legacy' }, webhooks: hooks });

/** The v1beta1 webhook defaults, as pkg/apis/admissionregistration/v1beta1/defaults.go sets them. */
const V1BETA1_WEBHOOK_DEFAULTS = {
  failurePolicy: 'Ignore',
  matchPolicy: 'Exact',
  timeoutSeconds: 30,
  admissionReviewVersions: ['v1beta1'],
  namespaceSelector: {},
  objectSelector: {},
};

describe('convertToV1: webhook configurations v1beta1 → v1', () => {
  it('makes the v1beta1 defaults that differ from v1 explicit, and leaves sideEffects to the user', () => {
    const { object, notes } = convertToV1(oldVwc([oldHook()]));
    const hook = (object as { webhooks: Record<string, unknown>[] }).webhooks[0]!;
    expect((object as { apiVersion: string }).apiVersion).toBe(`${G}/v1`);
    expect(hook).toMatchObject({ failurePolicy: 'Ignore', matchPolicy: 'Exact', timeoutSeconds: 30, admissionReviewVersions: ['v1beta1'] });
    expect(hook).not.toHaveProperty('sideEffects');
    expect(hook).not.toHaveProperty('namespaceSelector'); // same default in both versions: left implicit
    expect(notes).toEqual([
      `apiVersion: ${G}/v1beta1 → ${G}/v1`,
      'webhooks[0].failurePolicy: Ignore (the v1beta1 default; v1 would default to Fail)',
      'webhooks[0].matchPolicy: Exact (the v1beta1 default; v1 would default to Equivalent)',
      'webhooks[0].timeoutSeconds: 30 (the v1beta1 default; v1 would default to 10)',
      'webhooks[0].admissionReviewVersions: ["v1beta1"] (the v1beta1 default; v1 has none)',
      'webhooks[0].sideEffects: unset (v1beta1 defaulted it to Unknown); v1 accepts only None or NoneOnDryRun: choose one',
    ]);
    // the one error left is the choice the conversion does not make
    expect(validate(object).map((e) => `${e.field} ${e.type}`)).toEqual(['webhooks[0].sideEffects Required']);
  });

  it('keeps behaviour: the converted object defaults (as v1) to what the old one defaulted to (as v1beta1)', () => {
    const old = oldVwc([
      oldHook({ sideEffects: 'None' }),
      oldHook({ name: 'b.example.com', failurePolicy: 'Fail', admissionReviewVersions: [], sideEffects: 'NoneOnDryRun' }),
    ]);
    const { object } = convertToV1(old);
    const before = withDefaults(old) as { webhooks: Record<string, unknown>[] };
    const after = withDefaults(object) as { webhooks: Record<string, unknown>[] };
    expect(after.webhooks).toEqual(before.webhooks);
    expect(before.webhooks[0]).toMatchObject(V1BETA1_WEBHOOK_DEFAULTS);
    expect(after.webhooks[1]).toMatchObject({ failurePolicy: 'Fail', admissionReviewVersions: ['v1beta1'] });
    expect(validate(object)).toEqual([]);
  });

  it('keeps explicit values and makes nothing explicit that v1 defaults the same (mutating: reinvocationPolicy Never)', () => {
    const old = frozen({
      ...oldVwc([]),
      kind: 'MutatingWebhookConfiguration',
      webhooks: [oldHook({ sideEffects: 'None', failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 5, admissionReviewVersions: ['v1'] })],
    });
    const { object, notes } = convertToV1(old);
    expect(notes).toEqual([`apiVersion: ${G}/v1beta1 → ${G}/v1`]);
    expect((object as { webhooks: object[] }).webhooks[0]).toEqual(old.webhooks[0]);
    expect(validate(object)).toEqual([]);
  });

  it('sideEffects Some (explicit) stays and is reported', () => {
    const { object, notes } = convertToV1(oldVwc([oldHook({ sideEffects: 'Some' })]));
    expect(notes).toContain('webhooks[0].sideEffects: Some; v1 accepts only None or NoneOnDryRun: choose one');
    expect(validate(object).map((e) => `${e.field} ${e.type}`)).toEqual(['webhooks[0].sideEffects NotSupported']);
  });
});

describe('convertToV1: policies and bindings', () => {
  const rule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
  it.each(['v1alpha1', 'v1beta1'])('ValidatingAdmissionPolicy %s → v1: same defaults, only the apiVersion changes', (v) => {
    const old = frozen({
      apiVersion: `${G}/${v}`,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'true' }] },
    });
    const { object, notes } = convertToV1(old);
    expect(notes).toEqual([`apiVersion: ${G}/${v} → ${G}/v1`]);
    expect(object).toEqual({ ...old, apiVersion: `${G}/v1` });
    expect(validate(object)).toEqual([]);
  });

  it('v1alpha1 bindings: paramRef.parameterNotFoundAction Deny made explicit (v1 requires it)', () => {
    const old = frozen({
      apiVersion: `${G}/v1alpha1`,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'b' },
      spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'cfg', namespace: 'ns' } },
    });
    const { object, notes } = convertToV1(old);
    expect((object as { spec: { paramRef: object } }).spec.paramRef).toEqual({ name: 'cfg', namespace: 'ns', parameterNotFoundAction: 'Deny' });
    expect(notes).toContain('spec.paramRef.parameterNotFoundAction: Deny (the v1alpha1 default; v1 has none)');
    expect(validate(object)).toEqual([]);
    expect(validate({ ...old, apiVersion: `${G}/v1` }).map((e) => e.field)).toEqual(['spec.paramRef.parameterNotFoundAction']);
  });

  it.each(['v1alpha1', 'v1beta1'])('MutatingAdmissionPolicy and binding %s → v1 validate at 1.36', (v) => {
    const map = frozen({
      apiVersion: `${G}/${v}`,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'm' },
      spec: {
        matchConstraints: { resourceRules: [rule] },
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
        reinvocationPolicy: 'Never',
      },
    });
    const binding = frozen({
      apiVersion: `${G}/${v}`,
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: 'mb' },
      spec: { policyName: 'm', paramRef: { name: 'x', namespace: 'n' } },
    });
    expect(validate(map).map((e) => e.field)).toEqual(['apiVersion']);
    expect(validate(convertToV1(map).object)).toEqual([]);
    const b = convertToV1(binding).object as { spec: { paramRef: Record<string, unknown> } };
    expect(b.spec.paramRef.parameterNotFoundAction).toBe(v === 'v1alpha1' ? 'Deny' : undefined);
  });
});

describe('convertToV1: nothing to do', () => {
  it.each([{ apiVersion: `${G}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'x' } }, { apiVersion: 'v1', kind: 'ConfigMap' }, null, 'text'])(
    '%j is returned as is',
    (o) => {
      expect(convertToV1(o)).toEqual({ object: o, notes: [] });
      expect(convertToV1(o).object).toBe(o);
    },
  );
});
