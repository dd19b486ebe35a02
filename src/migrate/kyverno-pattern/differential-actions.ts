/**
 * The failure action in the differential: which action Kyverno's webhook takes on a rule for a
 * request (the oracle's `action`, tools/kyverno-oracle/actions.go) and which the produced objects
 * take (the validationActions of the binding of the policy that applied), compared wherever both
 * reach the rule; and the Namespaces the mutants are put in (those the rule's overrides name).
 */
import type { Obj } from '../../base/json';

type Rec = Record<string, unknown>;

/** One line of the oracle's answer, with the action of each validate rule. */
export interface ActionAnswer {
  results: { rule: string; status: string; message?: string; action?: string }[];
  error?: string;
}

const ofRule = (rule: string, name: string) => name === rule || name === `autogen-${rule}` || name === `autogen-cronjob-${rule}`;

/** Kyverno's action on the rule (or a rule it generated from it) for the request: Enforce or Audit. */
export function kyvernoAction(answer: ActionAnswer, rule: string): string | undefined {
  return answer.results.find((r) => ofRule(rule, r.rule) && r.action)?.action;
}

/** The action of the produced objects for a request that reached `policies` (the policies that applied): Enforce when a binding denies. */
export function producedAction(produced: readonly Obj[], policies: readonly string[]): string {
  const actions = produced
    .filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding' && policies.includes(String((o.spec as Obj).policyName)))
    .map((o) => (((o.spec as Obj).validationActions as string[] | undefined) ?? []).includes('Deny'));
  return [...new Set(actions)].map((deny) => (deny ? 'Enforce' : 'Audit')).join('+');
}

/** Mutant sites on the object's Namespace: the names each override of the rule and of its policy names (wildcards hit and missed). */
export function overrideNamespaceSites(policy: Obj, rule: Obj): unknown[] {
  const own = ((rule.validate as Rec | undefined)?.failureActionOverrides as Rec[] | undefined) ?? [];
  const policyWide = ((policy.spec as Rec | undefined)?.validationFailureActionOverrides as Rec[] | undefined) ?? [];
  return [...own, ...policyWide]
    .map((o) => (Array.isArray(o?.namespaces) ? (o.namespaces as unknown[]).filter((n) => typeof n === 'string' && n !== '') : []))
    .filter((ns) => ns.length)
    .map((ns) => ({ metadata: { namespace: ns.join('|') } }));
}
