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
import { matchLabelSelector } from '../../src/policy/matching';
import { namespaceObject } from '../../src/request/system-requests';
import { mutants, podControllers, selectorProbes } from './mutants';
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
  /** Of them, by the object's kind (a Pod policy's autogen acts on Deployments, CronJobs …). */
  actedKinds: Record<string, number>;
  /** A policy with a namespaceSelector or objectSelector: the requests its selectors select and those they do not, and of the first those Kyverno acted on. */
  selectors?: { selected: number; unselected: number; actedSelected: number };
  disagreements: { resource: unknown; operation: string; namespaceLabels: Record<string, string>; kyverno: string; workbench: string }[];
}

/** `object` with `labels` as its labels (none: no labels field). */
function withLabels(object: Obj, labels: Record<string, string>): Obj {
  const { labels: _, ...metadata } = obj(object.metadata);
  return { ...object, metadata: Object.keys(labels).length || obj(object.metadata).labels ? { ...metadata, labels } : metadata };
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
  const mc = obj(obj(policy.spec).matchConstraints);
  const out: MutatingDifferential = {
    rule,
    tried: 0,
    acted: 0,
    actedKinds: {},
    ...(mc.namespaceSelector !== undefined || mc.objectSelector !== undefined ? { selectors: { selected: 0, unselected: 0, actedSelected: 0 } } : {}),
    disagreements: [],
  };
  const chain = prepareChain(conversion.objects);
  const requests: { admitted: unknown; workbench: string; operation: 'CREATE' | 'UPDATE'; namespaceLabels: Record<string, string> }[] = [];
  const seen = new Set<string>();
  let i = 0;
  // a Pod is also tried in each Pod controller's template (Kyverno's autogen), with fewer mutants
  const seeds = [
    ...resources.map((r) => [r, perResource] as const),
    ...resources.flatMap((r) => podControllers(r).map((c) => [c as Obj, Math.ceil(perResource / 3)] as const)),
  ];
  for (const [seed, count] of seeds)
    for (const [m, object] of [seed, ...(mutants(seed, count) as Obj[])].entries()) {
      const ns = namespaceFor(object);
      // the apiserver labels every Namespace with its name; the values file gives the others; the
      // policy's selectors are probed on either side (the seed with every probe, each mutant with one)
      const namespaceProbes = ns ? selectorProbes(mc.namespaceSelector, labels.get(ns) ?? {}).map((l) => ({ ...l, [NAMESPACE_NAME_LABEL]: ns })) : [{}];
      const objectProbes = selectorProbes(mc.objectSelector, obj(obj(object.metadata).labels) as Record<string, string>).map((l) => withLabels(object, l));
      const pairs = namespaceProbes.flatMap((n) => objectProbes.map((o) => [o, n] as const));
      for (const [probe, namespaceLabels] of m === 0 ? pairs : [pairs[m % pairs.length]!]) {
        const operation = i++ % 3 === 2 ? 'UPDATE' : 'CREATE';
        const w = await workbenchMutation(chain, probe, operation, ns ? [namespaceObject(ns, namespaceLabels)] : undefined);
        // an object the apiserver refuses whatever admission does: nothing to compare
        if (w.outcome === 'invalid' || invalidPodSpec(w.admitted)) continue;
        const key = JSON.stringify([w.admitted, operation, namespaceLabels]);
        if (seen.has(key)) continue;
        seen.add(key);
        requests.push({ admitted: w.admitted, workbench: w.outcome, operation, namespaceLabels });
      }
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
    const acted = kyverno !== stored(r.admitted);
    if (acted) {
      out.acted++;
      out.actedKinds[kindOf(r.admitted as Obj)] = (out.actedKinds[kindOf(r.admitted as Obj)] ?? 0) + 1;
    }
    if (out.selectors) {
      const holds = (selector: unknown, labels: Record<string, string>) => {
        const m = matchLabelSelector(selector, labels);
        return selector === undefined || (m.ok && m.matches);
      };
      const labels = obj(obj(r.admitted).metadata).labels as Record<string, string> | undefined;
      const selected = (!Object.keys(r.namespaceLabels).length || holds(mc.namespaceSelector, r.namespaceLabels)) && holds(mc.objectSelector, labels ?? {});
      if (selected) out.selectors.selected++;
      else out.selectors.unselected++;
      if (selected && acted) out.selectors.actedSelected++;
    }
    if (kyverno !== r.workbench)
      out.disagreements.push({ resource: r.admitted, operation: r.operation, namespaceLabels: r.namespaceLabels, kyverno, workbench: r.workbench });
  });
  // the smallest first: the easiest to read
  out.disagreements.sort((a, b) => JSON.stringify(a.resource).length - JSON.stringify(b.resource).length);
  return out;
}

/** One line of a report: the rule, its status and what the differential saw. */
export const describeDifferential = (d: MutatingDifferential): string =>
  `${d.rule.source.kind}/${d.rule.source.name}: ${d.rule.status}, ${d.tried} requests (${d.acted} mutated or refused by Kyverno: ${Object.entries(d.actedKinds)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}), ${d.disagreements.length} disagreements${
    d.selectors ? ` (selectors: ${d.selectors.selected} selected, ${d.selectors.actedSelected} of them acted on, ${d.selectors.unselected} not selected)` : ''
  }`;
