/**
 * matchconditions.Matcher.Match (k8s.io/apiserver pkg/admission/plugin/webhook/
 * matchconditions/matcher.go), for webhooks and policies: conditions in order under one
 * cost budget (runtimeCelCostBudgetMatchConditions; over it → an error at once); any
 * false skips, even after errors; else errors → error (the caller applies failurePolicy);
 * else match.
 */
import { CEL_LIMITS, type CelCompileOptions, type CelInputs } from '../cel/types';
import { list, obj, str } from '../base/json';
import { aggregate, evalExpr, OUT_OF_BUDGET, type ExpressionTrace, type PolicyCel, type PolicyExpression } from './expressions';

/** The contexts matchConditions are compiled in. */
export type MatchConditionContext = 'vap-matchCondition' | 'map-matchCondition' | 'webhook-matchCondition';

export interface MatchConditionTrace extends ExpressionTrace {
  name: string;
}

export interface MatchConditionsTrace {
  conditions: MatchConditionTrace[];
  /** match: all true; skip: one false (its name in failedCondition); error: errors and no false. */
  outcome: 'match' | 'skip' | 'error';
  failedCondition?: string;
  error?: string;
  cost: number;
}

/** Collect: the expressions runMatchConditions may ask for (every condition: it stops at the budget only). */
export function matchConditionExpressions(owner: unknown, context: MatchConditionContext, options: CelCompileOptions): PolicyExpression[] {
  return list(obj(owner).matchConditions).map((mc) => ({ expression: str(obj(mc).expression), context, options }));
}

/** The matchConditions of `owner` (a webhook, or a policy spec); undefined when it has none. */
export async function runMatchConditions(
  cel: PolicyCel,
  owner: unknown,
  context: MatchConditionContext,
  inputs: CelInputs,
  options: CelCompileOptions,
): Promise<MatchConditionsTrace | undefined> {
  const mcs = list(obj(owner).matchConditions);
  if (mcs.length === 0) return undefined;
  const conditions: MatchConditionTrace[] = [];
  let cost = 0;
  for (const mc of mcs) {
    const t = await evalExpr(cel, str(obj(mc).expression), context, inputs, options);
    conditions.push({ ...t, name: str(obj(mc).name) });
    cost += t.cost;
    if (cost > CEL_LIMITS.runtimeCelCostBudgetMatchConditions) break; // the rest are not evaluated
  }
  return matchConditionsTrace(conditions);
}

/**
 * The matcher's answer on the conditions' traces in order (each until the shared budget is past:
 * evaluated one by one, or answered together in a batch, src/admission/lean-webhooks.ts).
 */
export function matchConditionsTrace(evaluated: readonly MatchConditionTrace[]): MatchConditionsTrace {
  const conditions: MatchConditionTrace[] = [];
  let cost = 0;
  for (const t of evaluated) {
    conditions.push(t);
    cost += t.cost;
    if (cost > CEL_LIMITS.runtimeCelCostBudgetMatchConditions) return { conditions, outcome: 'error', error: OUT_OF_BUDGET, cost };
  }
  const errors: string[] = [];
  for (const c of conditions) {
    if (!c.ok) errors.push(c.error ?? '');
    // any false skips, even after errors
    else if (c.value === false) return { conditions, outcome: 'skip', failedCondition: c.name, cost };
  }
  if (errors.length) return { conditions, outcome: 'error', error: aggregate(errors), cost };
  return { conditions, outcome: 'match', cost };
}

/**
 * The failurePolicy of a defaulted webhook or policy spec (withDefaults sets it by apiVersion:
 * Fail in v1, Ignore for v1beta1 webhooks). Read, never defaulted again here.
 */
export const failurePolicyOf = (defaulted: unknown): string => str(obj(defaulted).failurePolicy);

/** What the apiserver does with the matcher's answer: the one decision for runs, the simulator and the editor. */
export interface MatchConditionsDecision {
  /** match: the webhook is called / the policy evaluated; skip: it is not; reject: the request is rejected. */
  action: 'match' | 'skip' | 'reject';
  /** all conditions true (or none), one false, an evaluation error, or the shared cost budget exceeded. */
  cause: 'true' | 'false' | 'error' | 'budget';
  /** The condition that decided (the false one, or the first that failed to evaluate). */
  index?: number;
  failurePolicy: string;
}

/**
 * matcher.go's answer under the defaulted failurePolicy: any false skips (errors then do not
 * matter); else an error (or the budget cut-off) rejects under Fail and skips under Ignore;
 * else the webhook or policy matches. No trace (no matchConditions) matches.
 */
export function decideMatchConditions(trace: MatchConditionsTrace | undefined, failurePolicy: string): MatchConditionsDecision {
  if (!trace || trace.outcome === 'match') return { action: 'match', cause: 'true', failurePolicy };
  if (trace.outcome === 'skip') return { action: 'skip', cause: 'false', index: trace.conditions.findIndex((c) => c.ok && c.value === false), failurePolicy };
  const index = trace.conditions.findIndex((c) => !c.ok);
  return {
    action: failurePolicy === 'Ignore' ? 'skip' : 'reject',
    cause: trace.error === OUT_OF_BUDGET ? 'budget' : 'error',
    ...(index >= 0 ? { index } : {}),
    failurePolicy,
  };
}
