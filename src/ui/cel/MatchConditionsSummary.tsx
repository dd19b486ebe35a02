/**
 * All matchConditions of a webhook (or policy) evaluated with the document's shared test
 * inputs, and the decision the apiserver would take (k8s.io/apiserver matchconditions):
 * any false → skipped (errors then do not matter); else any error → failurePolicy
 * (Fail → request rejected, Ignore → skipped); else all true → called / evaluated.
 * Conditions share a cost budget (runtimeCelCostBudgetMatchConditions).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { CEL_LIMITS, type CelContext, type CelInputs } from '../../cel/types';
import { formatPath, type PathSegment } from '../../k8s/path';
import { convertDraft } from '../../store/test-inputs';
import { useForm } from '../form-context';
import { showValue } from './ResultView';
import { DEBOUNCE_MS, evaluateShared, useCelOptions, useCelState, useDocInputs, useDocObject, type Evaluation } from './use-cel';
import './cel.css';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type Decision =
  | { kind: 'called'; text: string }
  | { kind: 'skipped'; text: string }
  | { kind: 'rejected'; text: string }
  | { kind: 'pending'; text: string };

/** The apiserver's decision from the conditions' results. */
export function decide(
  names: readonly string[],
  results: readonly (Evaluation | undefined)[],
  failurePolicy: string,
  subject: 'webhook' | 'policy',
): Decision {
  if (results.length < names.length || results.some((r) => !r)) return { kind: 'pending', text: 'Evaluating…' };
  const called = subject === 'webhook' ? 'the webhook is called' : 'the policy is evaluated';
  const skipped = subject === 'webhook' ? 'the webhook is skipped' : 'the policy is skipped';
  const falseAt = results.findIndex((r) => r!.ok && r!.value === false);
  if (falseAt >= 0) return { kind: 'skipped', text: `“${names[falseAt]}” is false: ${skipped}.` };
  const errorAt = results.findIndex((r) => !r!.ok);
  if (errorAt >= 0) {
    const why = `“${names[errorAt]}” failed and none is false: failurePolicy ${failurePolicy}`;
    return failurePolicy === 'Ignore' ? { kind: 'skipped', text: `${why} → ${skipped}.` } : { kind: 'rejected', text: `${why} → the request is rejected.` };
  }
  return { kind: 'called', text: `All conditions are true: ${called}.` };
}

export function MatchConditionsSummary({ path, value }: { path: readonly PathSegment[]; value: unknown }) {
  const { docId } = useForm();
  const object = useDocObject(docId);
  const celState = useCelState();
  const owner = path.slice(0, -1);
  const subject: 'webhook' | 'policy' = owner[0] === 'webhooks' ? 'webhook' : 'policy';
  const kind = isRecord(object) && typeof object.kind === 'string' ? object.kind : '';
  const context: CelContext = subject === 'webhook' ? 'webhook-matchCondition' : kind.startsWith('Mutating') ? 'map-matchCondition' : 'vap-matchCondition';
  let ownerValue: unknown = object;
  for (const seg of owner) ownerValue = isRecord(ownerValue) || Array.isArray(ownerValue) ? (ownerValue as Record<string | number, unknown>)[seg] : undefined;
  const failurePolicy = isRecord(ownerValue) && typeof ownerValue.failurePolicy === 'string' ? ownerValue.failurePolicy : 'Fail';
  const conditions = (Array.isArray(value) ? value : []).map((c, i) => ({
    name: isRecord(c) && typeof c.name === 'string' && c.name ? c.name : `condition ${i + 1}`,
    expression: isRecord(c) && typeof c.expression === 'string' ? c.expression : '',
  }));
  const p = formatPath(path);
  const options = useCelOptions(docId, `${p}[0].expression`, context);
  const { draft } = useDocInputs(docId);
  const inputs = convertDraft(draft).cel;
  // One evaluation per condition: all with the same inputs, each its own expression.
  const joined = JSON.stringify(conditions.map((c) => c.expression));
  const exprs = useMemo(() => JSON.parse(joined) as string[], [joined]);
  const results = useEvaluationsOfExpressions(exprs, context, inputs, options, celState === 'ready' && conditions.length > 0);
  if (!conditions.length) return null;
  const decision: Decision = celState !== 'ready' ? { kind: 'pending', text: celState === 'failed' ? 'The CEL engine is unavailable.' : 'Waiting for the CEL engine…' } : decide(conditions.map((c) => c.name), results.results, failurePolicy, subject);
  const total = results.results.reduce((n, r) => n + (r?.ok ? r.cost : 0), 0);
  const budget = CEL_LIMITS.runtimeCelCostBudgetMatchConditions;
  return (
    <div className="cel-matchconditions" data-testid="cel-matchconditions" aria-label="matchConditions with the test inputs" role="group">
      <div>
        <strong>With the test inputs</strong>{' '}
        <span className="muted">(edit them in any expression's Test area; failurePolicy {failurePolicy})</span>
      </div>
      <ul>
        {conditions.map((c, i) => {
          const r = results.results[i];
          const cls = !r ? '' : r.ok ? String(r.value === true ? 'true' : r.value === false ? 'false' : 'error') : 'error';
          return (
            <li key={i} data-testid="cel-mc-row">
              <span className={`cel-mc-outcome ${cls}`}>{!r ? '…' : r.ok ? (r.display ?? showValue(r.value)) : 'error'}</span>
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

/** Each expression against the same inputs (one run, debounced; the list is small). */
function useEvaluationsOfExpressions(
  expressions: readonly string[],
  context: CelContext,
  inputs: CelInputs,
  options: ReturnType<typeof useCelOptions>,
  enabled: boolean,
): { results: (Evaluation | undefined)[] } {
  const [state, setState] = useState<{ results: (Evaluation | undefined)[] }>({ results: [] });
  const seq = useRef(0);
  useEffect(() => {
    if (!enabled) return;
    const mine = ++seq.current;
    const t = setTimeout(async () => {
      const results: Evaluation[] = [];
      for (const e of expressions) {
        if (mine !== seq.current) return;
        results.push(e.trim() ? await evaluateShared(e, context, inputs, options) : { ok: false, stage: 'compile', message: 'expression is empty', ms: 0 });
      }
      if (mine === seq.current) setState({ results });
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [expressions, context, inputs, options, enabled]);
  return state;
}
