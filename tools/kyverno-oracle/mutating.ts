/**
 * The differential of the MutatingPolicy converter (test support): Kyverno's own CEL mutating
 * engine (this folder's oracle, mutating.go) on the source MutatingPolicy and the Workbench's
 * admission chain on the produced MutatingAdmissionPolicy and binding mutate the same admission
 * requests (a kyverno-test's resources and mutants of them, CREATE and UPDATE, in the Namespaces
 * its values file labels); the objects the apiserver would store are compared (decoded into the
 * kind's Go type, as the mutate-rule differential compares them), or both must refuse the request.
 */
import { prepareChain } from '../../src/admission';
import { kindOf, namespaceOf, obj, str, type Obj } from '../../src/base/json';
import { BUILTIN_RESOURCES, NAMESPACE_NAME_LABEL } from '../../src/k8s/resources';
import type { Conversion, RuleResult } from '../../src/migrate';
import { invalidPodSpec, stored, workbenchMutation } from '../../src/migrate/kyverno-pattern/mutate-helpers';
import { gvrOf } from '../../src/migrate/kyverno-pattern/test-helpers';
import { namespaceObject } from '../../src/request/system-requests';
import { mutants } from './mutants';
import { decideKyverno, type KyvernoAnswer } from './oracle';

/**
 * What Kyverno's webhook makes of its engine's answer (pkg/webhooks/resource/mpol admissionResponse):
 * a rule error blocks the request under failurePolicy Fail (the default); otherwise the patched
 * resource is admitted (the request's object when nothing was patched).
 */
export function kyvernoOutcome(answer: KyvernoAnswer, policy: Obj, resource: unknown): string {
  if (answer.error) return `error: ${answer.error}`;
  if (answer.results.some((r) => r.status === 'error') && str(obj(policy.spec).failurePolicy) !== 'Ignore') return 'error';
  return stored(answer.patched ?? resource);
}

export interface MutatingDifferential {
  rule: RuleResult;
  /** Requests both decided. */
  tried: number;
  /** Of them, those Kyverno changed the object of or refused. */
  acted: number;
  disagreements: { resource: unknown; operation: string; namespaceLabels: Record<string, string>; kyverno: string; workbench: string }[];
}

/** The Namespace a request for `object` is in ('' for a cluster-scoped kind), as `kyverno test` puts it: its own, else default. */
function namespaceFor(object: Obj): string {
  return BUILTIN_RESOURCES.find((r) => r.kind === kindOf(object))?.namespaced === false ? '' : namespaceOf(object) || 'default';
}

/**
 * The differential of one MutatingPolicy's conversion: its test resources and `perResource` mutants
 * of each (every third request an UPDATE from the same object), mutated by both.
 */
export async function mutatingDifferential(
  policy: Obj,
  conversion: Conversion,
  resources: readonly Obj[],
  labels: Map<string, Record<string, string>>,
  perResource: number,
): Promise<MutatingDifferential> {
  const rule = conversion.rules[0]!;
  const out: MutatingDifferential = { rule, tried: 0, acted: 0, disagreements: [] };
  const chain = prepareChain(conversion.objects);
  const requests: { admitted: unknown; workbench: string; operation: 'CREATE' | 'UPDATE'; namespaceLabels: Record<string, string> }[] = [];
  const seen = new Set<string>();
  let i = 0;
  for (const seed of resources)
    for (const object of [seed, ...(mutants(seed, perResource) as Obj[])]) {
      const operation = i++ % 3 === 2 ? 'UPDATE' : 'CREATE';
      const ns = namespaceFor(object);
      // the apiserver labels every Namespace with its name; the values file gives the others
      const namespaceLabels = ns ? { ...(labels.get(ns) ?? {}), [NAMESPACE_NAME_LABEL]: ns } : {};
      const w = await workbenchMutation(chain, object, operation, ns ? [namespaceObject(ns, namespaceLabels)] : undefined);
      // an object the apiserver refuses whatever admission does: nothing to compare
      if (w.outcome === 'invalid' || invalidPodSpec(w.admitted)) continue;
      const key = JSON.stringify([w.admitted, operation, namespaceLabels]);
      if (seen.has(key)) continue;
      seen.add(key);
      requests.push({ admitted: w.admitted, workbench: w.outcome, operation, namespaceLabels });
    }
  const answers = await decideKyverno(
    requests.map((r) => ({
      policy,
      resource: r.admitted,
      operation: r.operation,
      plural: gvrOf(r.admitted as Obj).resource,
      ...(Object.keys(r.namespaceLabels).length ? { namespaceLabels: r.namespaceLabels } : {}),
    })),
  );
  requests.forEach((r, n) => {
    const kyverno = kyvernoOutcome(answers[n]!, policy, r.admitted);
    out.tried++;
    if (kyverno !== stored(r.admitted)) out.acted++;
    if (kyverno !== r.workbench)
      out.disagreements.push({ resource: r.admitted, operation: r.operation, namespaceLabels: r.namespaceLabels, kyverno, workbench: r.workbench });
  });
  // the smallest first: the easiest to read
  out.disagreements.sort((a, b) => JSON.stringify(a.resource).length - JSON.stringify(b.resource).length);
  return out;
}

/** One line of a report: the rule, its status and what the differential saw. */
export const describeDifferential = (d: MutatingDifferential): string =>
  `${d.rule.source.kind}/${d.rule.source.name}: ${d.rule.status}, ${d.tried} requests (${d.acted} mutated or refused by Kyverno), ${d.disagreements.length} disagreements`;
