/**
 * An expression as text with the values of a traced run: each labelled sub-expression's value
 * after it (hover: the whole value), and what did not run greyed (src/cel/trace.ts picks both).
 */
import { Fragment, useState, type ReactNode } from 'react';
import type { CelTraceNode } from '../../cel/types';
import { notRun, traceLabels } from '../../store/cel';
import './cel.css';

/** The whole value in a tooltip, cut beyond this; "show all" opens it in full. */
const TITLE_MAX = 2000;

export function TracedExpression({ expression, trace }: { expression: string; trace: readonly CelTraceNode[] | undefined }) {
  if (!trace) return <code>{expression}</code>;
  const labels = traceLabels(expression, trace);
  const grey = notRun(expression, trace);
  // Cut points: range edges and label positions.
  const cuts = new Set<number>([0, expression.length]);
  for (const r of grey) cuts.add(r.from).add(r.to);
  for (const l of labels) cuts.add(l.at);
  const points = [...cuts].filter((p) => p >= 0 && p <= expression.length).sort((a, b) => a - b);
  const parts: ReactNode[] = [];
  for (let i = 0; i < points.length; i++) {
    const at = points[i]!;
    for (const l of labels.filter((x) => x.at === at)) {
      parts.push(<TraceValue key={`v${l.from}-${l.at}`} source={expression.slice(l.from, l.at)} text={l.text} full={l.full} error={l.error} />);
    }
    const next = points[i + 1];
    if (next === undefined || next <= at) continue;
    const text = expression.slice(at, next);
    const skipped = grey.some((r) => r.from <= at && next <= r.to);
    parts.push(
      skipped ? (
        <span key={`t${at}`} className="cel-trace-notrun" data-testid="trace-notrun" title="not evaluated in this run">
          {text}
        </span>
      ) : (
        <Fragment key={`t${at}`}>{text}</Fragment>
      ),
    );
  }
  return (
    <code className="cel-traced" data-testid="traced-expression">
      {parts}
    </code>
  );
}

function TraceValue({ source, text, full, error }: { source: string; text: string; full: string; error: boolean }) {
  const [all, setAll] = useState(false);
  const long = full.length > TITLE_MAX;
  return (
    <>
      <span
        className={error ? 'cel-trace-value error' : 'cel-trace-value'}
        data-testid="trace-value"
        data-source={source}
        title={long ? `${full.slice(0, TITLE_MAX)}…` : full}
      >
        {text}
        {long && !all ? (
          <button type="button" className="link small" onClick={() => setAll(true)}>
            show all
          </button>
        ) : null}
      </span>
      {all ? <pre className="cel-trace-full">{full}</pre> : null}
    </>
  );
}
