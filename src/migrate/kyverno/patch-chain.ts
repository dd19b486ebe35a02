/**
 * The object `kyverno test` compares a ClusterPolicy/Policy mutate rule's `patchedResources` with,
 * as the produced MutatingAdmissionPolicies that make it. It is not the rule's own output
 * (kyverno v1.19, cmd/cli/kubectl-kyverno):
 *   - commands/test/output.go checks a Mutation rule's result against the policy's EngineResponse
 *     `PatchedResource` (checkResult → getAndCompareResource), one object per policy and resource;
 *   - pkg/engine/mutation.go builds it by applying every mutate rule of the policy in turn, each to
 *     the object the rules before it left, the policy's own rules first and then the rules autogen
 *     generated from them for Pod controllers (pkg/autogen/v1 computeRules);
 *   - processor/policy_processor.go ApplyPoliciesOnResource hands each policy of the test's files,
 *     in order, the object the mutate policies before it patched (`resource = mutateResponse.PatchedResource`).
 * So the case of a rule runs the produced policies of the mutate rules before it on the resource,
 * then its own (whose outcome is the rule's result), then those of the rules after it in its policy,
 * and compares that object with the file.
 */
import { kindOf, nameOf, namespaceOf, obj, objList, str, strList, type Obj } from '../../base/json';
import { POD_CONTROLLERS } from '../kyverno-pattern/autogen';
import type { Conversion, RuleResult } from '../types';
import { parseKindSelector, wildcardRegExp } from './match';

/** The produced MutatingAdmissionPolicies (by name) applied before and after a rule's own on a resource. */
export interface PatchChain {
  before: string[];
  after: string[];
}

/** The produced policy among `objects` named in `names` whose resource rules take `resource` (group/resource), and its binding. */
export function policyFor(objects: readonly Obj[], names: readonly string[], group: string, plural: string): { policy: Obj; binding?: Obj } | undefined {
  for (const o of objects) {
    if (!names.includes(`${kindOf(o)}/${nameOf(o)}`) || !kindOf(o).endsWith('AdmissionPolicy')) continue;
    const rules = objList(obj(obj(o.spec).matchConstraints).resourceRules);
    const takes = rules.some((r) => strList(r.apiGroups).some((g) => g === '*' || g === group) && strList(r.resources).some((x) => x === '*' || x === plural));
    if (takes) return { policy: o, binding: objects.find((b) => kindOf(b) === `${kindOf(o)}Binding` && str(obj(b.spec).policyName) === nameOf(o)) };
  }
}

const LEGACY = ['ClusterPolicy', 'Policy'];

/** The kind selectors of a rule's `match` (resources, any[], all[]). */
const matchKinds = (rule: Obj): string[] => {
  const match = obj(rule.match);
  return [match, ...objList(match.any), ...objList(match.all)].flatMap((f) => strList(obj(f.resources).kinds));
};

/** Whether a rule's own `match` names `kind` (not through autogen): a selector's kind, a wildcard in it too. */
const namesKind = (rule: Obj, kind: string): boolean => matchKinds(rule).some((s) => wildcardRegExp(parseKindSelector(s).kind).test(kind));

/**
 * The chain around `rule` (a converted mutate rule of a ClusterPolicy/Policy) for a resource of
 * `kind` (`group`/`plural`): `sources`, the test's policy documents in its files' order. A mutate
 * rule on the way that is not converted and may take the resource (its match names the kind, or
 * Pods for a Pod controller) leaves the object unknown: `missing` says which.
 */
export function patchChain(
  sources: readonly Obj[],
  conversion: Conversion,
  rule: RuleResult,
  resource: { group: string; plural: string; kind: string },
): PatchChain | { missing: string } {
  const same = (p: Obj, r: RuleResult) => r.source.kind === kindOf(p) && (r.source.namespace ?? '') === namespaceOf(p) && r.source.name === nameOf(p);
  const policies = sources.filter((p) => LEGACY.includes(kindOf(p)) && str(p.apiVersion).startsWith('kyverno.io/'));
  const own = policies.findIndex((p) => same(p, rule));
  if (own < 0) return { missing: `${rule.source.kind} '${rule.source.name}' is not among the test's policy files read` };
  const chain: { name: string; mine: boolean }[] = [];
  for (const p of policies.slice(0, own + 1)) {
    const direct: typeof chain = [];
    const autogen: typeof chain = [];
    for (const r of objList(obj(p.spec).rules).filter((x) => x.mutate !== undefined)) {
      const converted = conversion.rules.find((x) => same(p, x) && x.source.rule === str(r.name));
      const named = namesKind(r, resource.kind);
      if (!converted || converted.status === 'unsupported') {
        if (named || (POD_CONTROLLERS.includes(resource.kind) && namesKind(r, 'Pod')))
          return { missing: `mutate rule '${str(r.name)}' of ${kindOf(p)} '${nameOf(p)}' is not converted` };
        continue;
      }
      const target = policyFor(conversion.objects, converted.produced, resource.group, resource.plural);
      // a rule whose produced policy does not take the kind does not match it in Kyverno either
      if (target?.policy.kind !== 'MutatingAdmissionPolicy') continue;
      (named ? direct : autogen).push({ name: nameOf(target.policy), mine: converted === rule });
    }
    chain.push(...direct, ...autogen);
  }
  const at = chain.findIndex((c) => c.mine);
  return { before: chain.slice(0, at).map((c) => c.name), after: chain.slice(at + 1).map((c) => c.name) };
}
