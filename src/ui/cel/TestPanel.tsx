/**
 * The "Test" area beside a CEL expression: the document's shared test inputs (the one test-input
 * form: request, YAML for object / oldObject / params / namespaceObject, authorizer rules), the live result,
 * and named cases with expectations, all re-run on every edit (debounced).
 */
import { lazy, useEffect, useId, useMemo } from 'react';
import { OnDemand } from '../OnDemand';
import type { CelCompileOptions, CelContext } from '../../cel/types';
import { passes } from '../../request';
import { convertDraft, testInputs, useCelCases, useTestOpen } from '../../store/test-inputs';
import { setCelTrace } from '../../store/cel';
import { outcomeOf, useCelState, useDocInputs, useEvaluations } from './use-cel';
import './cel.css';

// The open area (its result, inputs form and cases) loads when a Test area is first opened.
const TestPanelBody = lazy(() => import('./TestPanelBody'));

export interface TestPanelProps {
  docId: string;
  path: string;
  context: CelContext;
  expression: string;
  options: CelCompileOptions;
}

export function TestPanel({ docId, path, context, expression, options }: TestPanelProps) {
  const open = useTestOpen(docId, path);
  const cases = useCelCases(docId, path);
  const { draft, edited } = useDocInputs(docId);
  const celState = useCelState();
  // The inputs' YAML is parsed only when something reads it: a closed panel with no cases does not.
  const used = open || cases.length > 0;
  const current = used ? convertDraft(draft) : undefined;
  // current is converted anew each render: the memo follows its CEL inputs (converted once per draft)
  const currentCel = current?.cel;
  const inputsList = useMemo(() => (currentCel ? [currentCel, ...cases.map((c) => convertDraft(c.input).cel)] : []), [currentCel, cases]);
  const enabled = used && expression.trim() !== '';
  // Traced: the editor shows the live result's sub-expression values (the result and cost are the same).
  const traced = useMemo(() => ({ ...options, trace: true }), [options]);
  const { results, running } = useEvaluations(expression, context, inputsList, traced, enabled);
  const live = results[0];
  useEffect(() => {
    setCelTrace(docId, path, open && live?.trace && !running ? { expression, trace: live.trace } : undefined);
  }, [docId, path, open, live, running, expression]);
  useEffect(() => () => setCelTrace(docId, path, undefined), [docId, path]);
  const caseResults = results.slice(1);
  const passed = cases.filter((c, i) => caseResults[i] && passes(c.expect, outcomeOf(caseResults[i]!))).length;
  const bodyId = useId();
  const known = cases.filter((_, i) => caseResults[i]).length;
  const summary = !cases.length
    ? ''
    : known === cases.length
      ? `${passed}/${cases.length} pass`
      : `${passed}/${cases.length} pass, ${cases.length - known} running`;
  const waiting = celState === 'failed' ? 'The CEL engine is unavailable.' : celState !== 'ready' ? 'Waiting for the CEL engine…' : undefined;
  return (
    <div className="cel-test" data-testid="cel-test" data-expression-path={path}>
      <div className="cel-test-head">
        <button
          type="button"
          className="small cel-test-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => testInputs.getState().setOpen(docId, path, !open)}
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> Test
        </button>
        {summary ? (
          <span className={`cel-cases-summary ${passed === cases.length ? 'pass' : 'fail'}`} data-testid="cel-cases-summary" role="status">
            {summary}
          </span>
        ) : null}
      </div>
      <div id={bodyId} hidden={!open} className="cel-test-body">
        {open ? (
          <OnDemand part="the Test area" fallback={<p className="muted">Loading the Test area…</p>}>
            <TestPanelBody
              docId={docId}
              path={path}
              context={context}
              expression={expression}
              options={options}
              results={results}
              running={running}
              waiting={waiting}
              draft={draft}
              edited={edited}
              errors={current?.errors ?? []}
              cases={cases}
            />
          </OnDemand>
        ) : null}
      </div>
    </div>
  );
}
