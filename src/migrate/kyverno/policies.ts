/**
 * policies.kyverno.io ValidatingPolicy / MutatingPolicy (and their namespaced forms) → native
 * admission policies, as kyverno v1.19 generates them (pkg/admissionpolicy/builder.go
 * BuildValidatingAdmissionPolicy's ValidatingPolicy branch, BuildMutatingAdmissionPolicy{V1,Beta,}
 * and their bindings; names from pkg/controllers/admissionpolicygenerator: `vpol-<name>`,
 * `mpol-<name>`, bindings `<policy>-binding`). Kyverno refuses what it cannot generate
 * (generate-map.go mapGenerationSkipReason); its opt-in flags (generate: true) are not required
 * here: converting is the user's request.
 */
import { isObject, obj, objList, str, strList, type Obj } from '../../base/json';
import { releaseOf, type KubernetesVersion } from '../../base/releases';
import type { RuleResult } from '../types';
import { celAutogen, celCustomControllers, mpolAutogen } from './autogen';
import { orValueDifference } from './cel-rule';
import { kyvernoOnlyReason, type SourceExpression } from './libraries';
import { inNamespace, mutatingBinding, mutatingPolicy, ref, validatingBinding, validatingPolicy } from './objects';

export const VALIDATING_KINDS = ['ValidatingPolicy', 'NamespacedValidatingPolicy'];
export const MUTATING_KINDS = ['MutatingPolicy', 'NamespacedMutatingPolicy'];

function specExpressions(spec: Obj): SourceExpression[] {
  const out: SourceExpression[] = [];
  objList(spec.matchConditions).forEach((c, i) => out.push({ path: `spec.matchConditions[${i}].expression`, expression: str(c.expression) }));
  objList(spec.variables).forEach((v, i) => out.push({ path: `spec.variables[${i}].expression`, expression: str(v.expression) }));
  objList(spec.validations).forEach((v, i) => {
    out.push({ path: `spec.validations[${i}].expression`, expression: str(v.expression) });
    if (v.messageExpression) out.push({ path: `spec.validations[${i}].messageExpression`, expression: str(v.messageExpression) });
  });
  objList(spec.auditAnnotations).forEach((a, i) => out.push({ path: `spec.auditAnnotations[${i}].valueExpression`, expression: str(a.valueExpression) }));
  objList(spec.mutations).forEach((m, i) => {
    const e = str(obj(m.applyConfiguration).expression) || str(obj(m.jsonPatch).expression);
    out.push({ path: `spec.mutations[${i}].${isObject(m.applyConfiguration) ? 'applyConfiguration' : 'jsonPatch'}.expression`, expression: e });
  });
  return out;
}

const source = (policy: Obj) => ({
  kind: str(policy.kind),
  name: str(obj(policy.metadata).name),
  ...(str(obj(policy.metadata).namespace) ? { namespace: str(obj(policy.metadata).namespace) } : {}),
  // a CEL policy is one rule: named after the policy
  rule: str(obj(policy.metadata).name),
});

/**
 * The produced name: `vpol-<name>` / `mpol-<name>`; a namespaced policy's also names its namespace
 * (Kyverno generates none for them). `suffix` follows (`-2`: the second policy of its kind and name in the input).
 */
function producedName(prefix: string, policy: Obj, suffix: string): string {
  const ns = str(obj(policy.metadata).namespace);
  return `${
    ns && policy.kind !== 'ValidatingPolicy' && policy.kind !== 'MutatingPolicy'
      ? `n${prefix}-${ns}-${str(obj(policy.metadata).name)}`
      : `${prefix}-${str(obj(policy.metadata).name)}`
  }${suffix}`;
}

function namespacedDifference(policy: Obj): string | undefined {
  const ns = str(obj(policy.metadata).namespace);
  if (str(policy.kind).startsWith('Namespaced'))
    return `Kyverno generates no admission policy for a ${String(policy.kind)}; the binding is limited to namespace '${ns}' (cluster-scoped resources are not limited by it)`;
}

/** The policy's produced objects and its rule: exact unless Kyverno would do something they do not (the differences, its reason). */
function converted(src: RuleResult['source'], objects: Obj[], differences: string[]): { objects: Obj[]; rule: RuleResult } {
  return {
    objects,
    rule: {
      source: src,
      status: differences.length ? 'different' : 'exact',
      ...(differences.length ? { reason: differences.join('; ') } : {}),
      produced: objects.map(ref),
    },
  };
}

export function convertValidatingPolicy(policy: Obj, version: KubernetesVersion, suffix = ''): { objects: Obj[]; rule: RuleResult } {
  const spec = obj(policy.spec);
  const src = source(policy);
  const unsupported = (reason: string) => ({ objects: [], rule: { source: src, status: 'unsupported' as const, reason, produced: [] } });
  const only = kyvernoOnlyReason(specExpressions(spec));
  if (only) return unsupported(only);
  const evaluation = obj(spec.evaluation);
  if (str(evaluation.mode) === 'JSON') return unsupported('evaluation.mode JSON: the policy checks JSON payloads, not admission requests');
  if (obj(evaluation.admission).enabled === false)
    return unsupported('evaluation.admission.enabled is false: Kyverno runs the policy in background scans only');
  if (!isObject(spec.matchConstraints)) return unsupported('no matchConstraints: an admission policy needs them');

  const name = producedName('vpol', policy, suffix);
  const actions = strList(spec.validationActions).length ? strList(spec.validationActions) : ['Deny'];
  const ns = str(obj(policy.metadata).namespace);
  const bindingExtra = policy.kind === 'NamespacedValidatingPolicy' && ns ? inNamespace(ns) : {};
  const build = (n: string, s: Obj) => [
    validatingPolicy(n, {
      matchConstraints: s.matchConstraints,
      matchConditions: s.matchConditions,
      validations: s.validations,
      auditAnnotations: s.auditAnnotations,
      variables: s.variables,
    }),
    validatingBinding(n, actions, bindingExtra),
  ];
  const objects = build(name, spec);
  // Kyverno applies a Pod policy to the pod controllers too (autogen); so do the extra policies
  for (const g of celAutogen(spec)) objects.push(...build(`${name}-autogen-${g.config}`, g.spec));

  const differences: string[] = [];
  const nsd = namespacedDifference(policy);
  if (nsd) differences.push(nsd);
  const orValue = orValueDifference(specExpressions(spec), version);
  if (orValue) differences.push(orValue);
  if (str(spec.failurePolicy) === 'Ignore')
    differences.push("failurePolicy Ignore: Kyverno's generator does not carry it over (the admission policy fails closed)");
  const custom = celCustomControllers(spec);
  if (custom.length)
    differences.push(
      `autogen names custom workloads (${custom.join(', ')}): Kyverno finds their pod templates when it evaluates; no admission policy is produced for them`,
    );
  return converted(src, objects, differences);
}

/** The MutatingAdmissionPolicy apiVersion Kyverno prefers among those the release serves (v1, then v1beta1, then v1alpha1). */
export function mapApiVersion(version: KubernetesVersion): string {
  const served = releaseOf(version).served;
  for (const v of ['v1', 'v1beta1', 'v1alpha1'] as const) if (served[v]?.MutatingAdmissionPolicy) return `admissionregistration.k8s.io/${v}`;
  return 'admissionregistration.k8s.io/v1alpha1';
}

export function convertMutatingPolicy(policy: Obj, version: KubernetesVersion, suffix = ''): { objects: Obj[]; rule: RuleResult } {
  const spec = obj(policy.spec);
  const src = source(policy);
  const unsupported = (reason: string) => ({ objects: [], rule: { source: src, status: 'unsupported' as const, reason, produced: [] } });
  const only = kyvernoOnlyReason(specExpressions(spec));
  if (only) return unsupported(only);
  const evaluation = obj(spec.evaluation);
  if (obj(evaluation.mutateExisting).enabled === true)
    return unsupported('evaluation.mutateExisting: Kyverno mutates existing resources in the background; admission cannot');
  if (evaluation.useServerSideApply === true)
    return unsupported(
      'skip generating MutatingAdmissionPolicy: useServerSideApply is enabled, which mutates atomic fields that a native MutatingAdmissionPolicy rejects.',
    );
  if (obj(evaluation.admission).enabled === false) return unsupported('evaluation.admission.enabled is false: Kyverno runs the policy in background only');
  if (!isObject(spec.matchConstraints)) return unsupported('no matchConstraints: an admission policy needs them');

  const apiVersion = mapApiVersion(version);
  const name = producedName('mpol', policy, suffix);
  const ns = str(obj(policy.metadata).namespace);
  const bindingExtra = policy.kind === 'NamespacedMutatingPolicy' && ns ? inNamespace(ns) : {};
  const build = (n: string, s: Obj) => [
    mutatingPolicy(apiVersion, n, {
      // the whole matchConstraints (Kyverno's builder copies the resource rules only; its engine matches the selectors)
      matchConstraints: s.matchConstraints,
      matchConditions: s.matchConditions,
      mutations: objList(s.mutations).map((m) => ({
        patchType: m.patchType,
        ...(isObject(m.applyConfiguration) ? { applyConfiguration: { expression: m.applyConfiguration.expression } } : {}),
        ...(isObject(m.jsonPatch) ? { jsonPatch: { expression: m.jsonPatch.expression } } : {}),
      })),
      variables: s.variables,
      failurePolicy: s.failurePolicy,
      reinvocationPolicy: str(s.reinvocationPolicy) || 'Never',
    }),
    mutatingBinding(apiVersion, n, bindingExtra),
  ];
  const objects = build(name, spec);
  // Kyverno applies a Pod policy to the pod controllers too (autogen); so do the extra policies.
  // Custom workloads it names are skipped by its mutating engine (extraction mode): nothing to produce.
  for (const g of mpolAutogen(spec)) objects.push(...build(`${name}-autogen-${g.config}`, g.spec));

  const differences: string[] = [];
  const orValue = orValueDifference(specExpressions(spec), version);
  if (orValue) differences.push(orValue);
  const nsd = namespacedDifference(policy);
  if (nsd) differences.push(nsd);
  return converted(src, objects, differences);
}
