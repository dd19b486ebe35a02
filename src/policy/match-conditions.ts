/**
 * matchconditions.Matcher.Match (k8s.io/apiserver pkg/admission/plugin/webhook/
 * matchconditions/matcher.go), for webhooks and policies: conditions in order under one
 * cost budget (runtimeCelCostBudgetMatchConditions; over it → an error at once); any
 * false skips, even after errors; else errors → error (the caller applies failurePolicy);
 * else match.
 */
import { CEL_LIMITS, type CelCompileOptionsExt, type CelInputs } from '../cel/types';
import { list, obj, str } from '../base/json';
import { aggregate, evalExpr, OUT_OF_BUDGET, type ExpressionTrace, type PolicyCel } from './expressions';

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

/** The matchConditions of `owner` (a webhook, or a policy spec); undefined when it has none. */
export async function runMatchConditions(
  cel: PolicyCel,
  owner: unknown,
  context: MatchConditionContext,
  inputs: CelInputs,
  options: CelCompileOptionsExt,
): Promise<MatchConditionsTrace | undefined> {
  const mcs = list(obj(owner).matchConditions);
  if (mcs.length === 0) return undefined;
  const conditions: MatchConditionTrace[] = [];
  let cost = 0;
  for (const mc of mcs) {
    const t = await evalExpr(cel, str(obj(mc).expression), context, inputs, options);
    conditions.push({ ...t, name: str(obj(mc).name) });
    cost += t.cost;
    if (cost > CEL_LIMITS.runtimeCelCostBudgetMatchConditions) {
      return { conditions, outcome: 'error', error: OUT_OF_BUDGET, cost };
    }
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
