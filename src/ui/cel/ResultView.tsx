/** One evaluation result: the value with its CEL type, or the error with its stage; cost and time. */
import { CEL_LIMITS, type CelEvalFailure } from '../../cel/types';
import { showValue, type Evaluation } from './use-cel';
import './cel.css';

const n = (x: number) => x.toLocaleString('en-US');

/** Why an evaluation stopped, in words a user can act on (by its kind; the message is the apiserver's). */
export function explainError(failure: Pick<CelEvalFailure, 'kind' | 'limit'>): string | undefined {
  switch (failure.kind) {
    case 'cost-exceeded':
      return failure.limit === 'budget'
        ? `The evaluation ran out of the runtime cost budget (${n(CEL_LIMITS.runtimeCelCostBudget)} per policy, ${n(CEL_LIMITS.runtimeCelCostBudgetMatchConditions)} for match conditions): the apiserver stops it too.`
        : `The expression exceeded the per-expression cost limit (${n(CEL_LIMITS.perCallLimit)}): the apiserver cancels it too.`;
    case 'timeout':
      return 'The evaluation ran past the worker deadline and was stopped; the engine restarts in the background.';
    case 'unavailable':
      return 'The CEL engine is not available: nothing was evaluated.';
    case 'engine':
      return 'The CEL engine failed to answer: this is a fault of the Workbench, not of the expression.';
    default:
      return undefined;
  }
}

/** The label of a failure: where it stopped, or that the engine did not answer. */
const STAGE_LABEL: Record<CelEvalFailure['kind'], string> = {
  compile: 'Compile error',
  runtime: 'Runtime error',
  'cost-exceeded': 'Runtime error',
  inputs: 'Invalid inputs',
  engine: 'Engine error',
  unavailable: 'Not evaluated',
  timeout: 'Not evaluated',
};

export function ResultView({ result, running, waiting }: { result: Evaluation | undefined; running: boolean; waiting?: string }) {
  if (!result)
    return (
      <div className="cel-result pending" data-testid="cel-result">
        {waiting ?? (running ? 'Evaluating…' : 'Not evaluated yet.')}
      </div>
    );
  if (result.ok) {
    const display = result.display ?? showValue(result.value);
    return (
      <div className={`cel-result ok ${running ? 'stale' : ''}`} data-testid="cel-result" data-ok="true">
        <span className="cel-result-label">Result</span>{' '}
        <code className="cel-value" data-testid="cel-value">
          {display}
        </code>{' '}
        <span className="cel-type" title="The runtime CEL type">
          {result.type}
        </span>
        <span className="cel-metrics">
          cost {result.cost.toLocaleString('en-US')} · {result.ms.toFixed(1)} ms
        </span>
      </div>
    );
  }
  const hint = explainError(result);
  return (
    <div className={`cel-result error ${running ? 'stale' : ''}`} data-testid="cel-result" data-ok="false">
      <span className="cel-stage" data-kind={result.kind}>
        {STAGE_LABEL[result.kind]}
      </span>{' '}
      <span className="cel-message">{result.message}</span>
      {hint ? <div className="cel-hint">{hint}</div> : null}
      <span className="cel-metrics">{result.ms.toFixed(1)} ms</span>
    </div>
  );
}
