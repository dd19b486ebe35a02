/** One evaluation result: the value with its CEL type, or the error with its stage; cost and time. */
import { CEL_LIMITS } from '../../cel/types';
import type { Evaluation } from './use-cel';
import './cel.css';

/** A value in CEL-like syntax when the engine did not render one. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** Why an evaluation stopped, in words a user can act on. */
export function explainError(message: string): string | undefined {
  if (/cost limit exceeded|budget exceeded/i.test(message))
    return `The expression exceeded the per-expression cost limit (${CEL_LIMITS.perCallLimit.toLocaleString('en-US')}): the apiserver cancels it too.`;
  if (/timed out/i.test(message)) return 'The evaluation ran past the worker deadline and was stopped; the engine restarts in the background.';
  return undefined;
}

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
        <span className="cel-result-label">Result</span> <code className="cel-value" data-testid="cel-value">{display}</code>{' '}
        <span className="cel-type" title="The runtime CEL type">{result.type}</span>
        <span className="cel-metrics">
          cost {result.cost.toLocaleString('en-US')} · {result.ms.toFixed(1)} ms
        </span>
      </div>
    );
  }
  const hint = explainError(result.message);
  return (
    <div className={`cel-result error ${running ? 'stale' : ''}`} data-testid="cel-result" data-ok="false">
      <span className="cel-stage">{result.stage === 'compile' ? 'Compile error' : 'Runtime error'}</span>{' '}
      <span className="cel-message">{result.message}</span>
      {hint ? <div className="cel-hint">{hint}</div> : null}
      <span className="cel-metrics">{result.ms.toFixed(1)} ms</span>
    </div>
  );
}
