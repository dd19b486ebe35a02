/**
 * The objects Kyverno's generator writes (pkg/admissionpolicy/builder.go), without what only a
 * running Kyverno sets: the `app.kubernetes.io/managed-by: kyverno` label (Kyverno's controller
 * would take them for its own) and owner references (they need the live policy's UID).
 */
import type { Obj } from '../../base/json';

const AR = 'admissionregistration.k8s.io';

/** Drops keys whose value is undefined (the builder leaves nil fields out). */
const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function validatingPolicy(name: string, spec: Obj): Obj {
  return { apiVersion: `${AR}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: defined(spec) };
}

/** BuildValidatingAdmissionPolicyBinding: `<policy>-binding`. */
export function validatingBinding(policyName: string, validationActions: string[], extra: Obj = {}): Obj {
  return {
    apiVersion: `${AR}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: `${policyName}-binding` },
    spec: defined({ policyName, validationActions, ...extra }),
  };
}

export function mutatingPolicy(apiVersion: string, name: string, spec: Obj): Obj {
  return { apiVersion, kind: 'MutatingAdmissionPolicy', metadata: { name }, spec: defined(spec) };
}

export function mutatingBinding(apiVersion: string, policyName: string, extra: Obj = {}): Obj {
  return { apiVersion, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: `${policyName}-binding` }, spec: defined({ policyName, ...extra }) };
}

/** `kind/name`, as RuleResult.produced lists them. */
export const ref = (o: Obj): string => `${String(o.kind)}/${String((o.metadata as Obj).name)}`;

/** A namespaced source policy acts only in its namespace: the binding says so. */
export const inNamespace = (namespace: string): Obj => ({
  matchResources: { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [namespace] }] } },
});
