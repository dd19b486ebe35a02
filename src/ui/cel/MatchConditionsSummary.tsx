/**
 * All matchConditions of a webhook (or policy) evaluated with the document's shared test
 * inputs, and the decision the apiserver would take (src/policy decideMatchConditions under the
 * defaulted failurePolicy): any false → skipped (errors then do not matter); else any error →
 * failurePolicy (Fail → request rejected, Ignore → skipped); else all true → called / evaluated.
 * Conditions share a cost budget (runtimeCelCostBudgetMatchConditions).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { CEL_LIMITS, type CelCompileOptions, type CelContext, type CelInputs } from '../../cel/types';
import { isObject as isRecord } from '../../base/json';
import type { PathSegment } from '../../base/path';
import {
  decideMatchConditions,
  failurePolicyOf,
  runMatchConditions,
  type MatchConditionContext,
  type MatchConditionsTrace,
} from '../../policy/match-conditions';
import { withDefaults } from '../../k8s/defaults';
import { formatPath } from '../../base/path-format';
import { convertDraft } from '../../store/test-inputs';
import { useForm } from '../form-context';
import { DEBOUNCE_MS, evaluateShared, showValue, useCelOptions, useCelState, useDocInputs, useDocObject, type Evaluation } from './use-cel';
import './cel.css';

export type Decision =
  | { kind: 'called'; text: string }
  | { kind: 'skipped'; text: string }
  | { kind: 'rejected'; text: string }
  | { kind: 'pending'; text: string };

/** The apiserver's decision (decideMatchConditions: the one the runs and the simulator take) in words. */
export function decide(trace: MatchConditionsTrace | undefined, names: readonly string[], failurePolicy: string, subject: 'webhook' | 'policy'): Decision {
  if (!trace) return { kind: 'pending', text: 'Evaluating…' };
  const called = subject === 'webhook' ? 'the webhook is called' : 'the policy is evaluated';
  const skipped = subject === 'webhook' ? 'the webhook is skipped' : 'the policy is skipped';
  const d = decideMatchConditions(trace, failurePolicy);
  if (d.action === 'match') return { kind: 'called', text: `All conditions are true: ${called}.` };
  if (d.cause === 'false') return { kind: 'skipped', text: `“${names[d.index ?? -1] ?? trace.failedCondition}” is false: ${skipped}.` };
  const why =
    d.cause === 'budget'
      ? `The conditions ran out of their cost budget: failurePolicy ${failurePolicy}`
      : `“${names[d.index ?? -1] ?? ''}” failed and none is false: failurePolicy ${failurePolicy}`;
  return d.action === 'skip' ? { kind: 'skipped', text: `${why} → ${skipped}.` } : { kind: 'rejected', text: `${why} → the request is rejected.` };
}

export function MatchConditionsSummary({ path, value }: { path: readonly PathSegment[]; value: unknown }) {
  const { docId } = useForm();
  const object = useDocObject(docId);
  const celState = useCelState();
  const owner = path.slice(0, -1);
  const subject: 'webhook' | 'policy' = owner[0] === 'webhooks' ? 'webhook' : 'policy';
  const kind = isRecord(object) && typeof object.kind === 'string' ? object.kind : '';
  const context: MatchConditionContext =
    subject === 'webhook' ? 'webhook-matchCondition' : kind.startsWith('Mutating') ? 'map-matchCondition' : 'vap-matchCondition';
  // the failurePolicy the apiserver reads: the defaulted one (Ignore for a v1beta1 webhook that sets none)
  const defaulted = useMemo(() => withDefaults(object), [object]);
  let ownerValue: unknown = defaulted;
  for (const seg of owner) ownerValue = isRecord(ownerValue) || Array.isArray(ownerValue) ? (ownerValue as Record<string | number, unknown>)[seg] : undefined;
  const failurePolicy = failurePolicyOf(ownerValue);
  const conditions = (Array.isArray(value) ? value : []).map((c, i) => ({
    name: isRecord(c) && typeof c.name === 'string' && c.name ? c.name : `condition ${i + 1}`,
    expression: isRecord(c) && typeof c.expression === 'string' ? c.expression : '',
  }));
  const p = formatPath(path);
  const options = useCelOptions(docId, `${p}[0].expression`, context);
  const { draft } = useDocInputs(docId);
  // The test inputs are read (their YAML parsed) once the engine can use them: not in the first render.
  const inputs = celState === 'ready' && conditions.length > 0 ? convertDraft(draft).cel : undefined;
  const run = useMatchConditions(value, context, inputs, options);
  if (!conditions.length) return null;
  const decision: Decision =
    celState !== 'ready'
      ? { kind: 'pending', text: celState === 'failed' ? 'The CEL engine is unavailable.' : 'Waiting for the CEL engine…' }
      : decide(
          run.trace,
          conditions.map((c) => c.name),
          failurePolicy,
          subject,
        );
  const total = run.trace?.cost ?? 0;
  const budget = CEL_LIMITS.runtimeCelCostBudgetMatchConditions;
  return (
    <div className="cel-matchconditions" data-testid="cel-matchconditions" aria-label="matchConditions with the test inputs" role="group">
      <div>
        <strong>With the test inputs</strong> <span className="muted">(edit them in any expression's Test area; failurePolicy {failurePolicy})</span>
      </div>
      <ul>
        {conditions.map((c, i) => {
          const r = run.evaluations[i];
          const notRun = !r && run.trace !== undefined;
          const cls = !r ? '' : r.ok ? String(r.value === true ? 'true' : r.value === false ? 'false' : 'error') : 'error';
          return (
            <li key={i} data-testid="cel-mc-row">
              <span className={`cel-mc-outcome ${cls}`}>{notRun ? 'not run' : !r ? '…' : r.ok ? (r.display ?? showValue(r.value)) : 'error'}</span>
              <span>{c.name}</span>
              {r && !r.ok ? <span className="cel-message">{r.message}</span> : null}
            </li>
          );
        })}
      </ul>
      <div className={`cel-mc-decision ${decision.kind}`} data-testid="cel-mc-decision" role="status">
        {decision.text}
      </div>
      {total > budget / 2 ? (
        <div className="cel-hint">
          Total cost {total.toLocaleString('en-US')} of the {budget.toLocaleString('en-US')} budget shared by these conditions.
        </div>
      ) : null}
    </div>
  );
}

/**
 * The matcher over the conditions (debounced): the core's runMatchConditions on the shared
 * evaluations, so the cost budget cuts off as in the apiserver; the engine's answers are kept
 * for display (conditions after a cut-off have none).
 */
function useMatchConditions(
  conditions: unknown,
  context: MatchConditionContext,
  inputs: CelInputs | undefined,
  options: ReturnType<typeof useCelOptions>,
): { trace?: MatchConditionsTrace; evaluations: Evaluation[] } {
  const [state, setState] = useState<{ trace?: MatchConditionsTrace; evaluations: Evaluation[] }>({ evaluations: [] });
  const seq = useRef(0);
  const key = JSON.stringify(conditions);
  useEffect(() => {
    if (!inputs) return;
    const mine = ++seq.current;
    const t = setTimeout(async () => {
      const evaluations: Evaluation[] = [];
      const cel = {
        evaluate: async (expression: string, ctx: CelContext, i: CelInputs, o?: CelCompileOptions) => {
          const r = await evaluateShared(expression, ctx, i, o ?? {});
          evaluations.push(r);
          return r;
        },
      };
      const trace = await runMatchConditions(cel, { matchConditions: JSON.parse(key) as unknown }, context, inputs, options);
      if (mine === seq.current) setState({ trace, evaluations });
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [key, context, inputs, options]);
  return state;
}
