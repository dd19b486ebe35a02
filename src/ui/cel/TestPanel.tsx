/**
 * The "Test" area beside a CEL expression: the document's shared test inputs (the one test-input
 * form: request, YAML for object / oldObject / params / namespaceObject, authorizer rules), the live result,
 * and named cases with expectations, all re-run on every edit (debounced).
 */
import { useEffect, useId, useMemo, useState } from 'react';
import type { CelCompileOptions, CelContext } from '../../cel/types';
import { expectationText, newId, passes, type CelCase, type DraftError, type TestInputDraft } from '../../request';
import { convertDraft, testInputs, useCelCases, useTestOpen } from '../../store/test-inputs';
import { TestInputForm } from '../request/TestInputForm';
import { ResultView } from './ResultView';
import { setCelTrace } from '../../store/cel';
import { setDocInputs, useCelState, useDocInputs, useEvaluations, type Evaluation } from './use-cel';
import './cel.css';

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
          <>
            <ResultView
              result={expression.trim() ? results[0] : undefined}
              running={running}
              waiting={!expression.trim() ? 'Type an expression to evaluate it.' : waiting}
            />
            <InputsEditor docId={docId} draft={draft} edited={edited} errors={current?.errors ?? []} context={context} hasParams={!!options.hasParams} />
            <Cases docId={docId} path={path} cases={cases} results={caseResults} draft={draft} current={results[0]} />
          </>
        ) : null}
      </div>
    </div>
  );
}

export function outcomeOf(r: Evaluation): { ok: true; value: unknown } | { ok: false } {
  return r.ok ? { ok: true, value: r.value } : { ok: false };
}

// ---------------------------------------------------------------------------
// Inputs

function InputsEditor({
  docId,
  draft,
  edited,
  errors,
  context,
  hasParams,
}: {
  docId: string;
  draft: TestInputDraft;
  edited: boolean;
  errors: DraftError[];
  context: CelContext;
  hasParams: boolean;
}) {
  return (
    <div className="cel-inputs" aria-label="Test inputs" role="group">
      <div className="cel-inputs-head">
        <strong>Test inputs</strong>{' '}
        <span className="muted">shared by this document's expressions and its test run{edited ? '' : ' · defaults from its rules'}</span>
        {edited ? (
          <button type="button" className="small" onClick={() => testInputs.getState().resetDraft(docId)}>
            Reset to defaults
          </button>
        ) : null}
      </div>
      <TestInputForm
        draft={draft}
        errors={errors}
        onChange={(d) => setDocInputs(docId, d)}
        show={{ params: hasParams || draft.params !== '', authorizer: context !== 'vap-messageExpression' }}
      />
    </div>
  );
}

// ---------------------------------------------------------------------------
// Cases

function Cases({
  docId,
  path,
  cases,
  results,
  draft,
  current,
}: {
  docId: string;
  path: string;
  cases: CelCase[];
  results: (Evaluation | undefined)[];
  draft: TestInputDraft;
  current: Evaluation | undefined;
}) {
  const uid = useId();
  const [name, setName] = useState('');
  const store = () => testInputs.getState();
  const save = () => {
    const expect: CelCase['expect'] = current && !current.ok ? { error: true } : { error: false, value: current?.ok ? expectationText(current.value) : 'true' };
    store().addCelCase(docId, path, { id: newId(), name: name.trim() || `case ${cases.length + 1}`, input: draft, expect });
    setName('');
  };
  return (
    <div className="cel-cases">
      <div className="cel-inputs-sub">Test cases</div>
      <div className="cel-case-new">
        <label htmlFor={`${uid}-name`}>Case name</label>
        <input
          id={`${uid}-name`}
          type="text"
          value={name}
          placeholder={`case ${cases.length + 1}`}
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), save())}
        />
        <button type="button" className="small" onClick={save} disabled={!current}>
          Save inputs as a case
        </button>
        <span className="muted">expects the current result; edit the expectation below.</span>
      </div>
      {cases.length ? (
        <table className="cel-case-table">
          <thead>
            <tr>
              <th scope="col">Case</th>
              <th scope="col">Expected</th>
              <th scope="col">Actual</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {cases.map((c, i) => {
              const r = results[i];
              const ok = r ? passes(c.expect, outcomeOf(r)) : undefined;
              return (
                <tr key={c.id} data-testid="cel-case" data-status={ok === undefined ? 'pending' : ok ? 'pass' : 'fail'}>
                  <td>
                    <input
                      type="text"
                      aria-label={`Name of case ${i + 1}`}
                      value={c.name}
                      onChange={(e) => store().updateCelCase(docId, path, c.id, { name: e.target.value })}
                    />
                  </td>
                  <td className="cel-case-expect">
                    <select
                      aria-label={`Expectation kind of ${c.name}`}
                      value={c.expect.error ? 'error' : 'value'}
                      onChange={(e) =>
                        store().updateCelCase(docId, path, c.id, { expect: e.target.value === 'error' ? { error: true } : { error: false, value: 'true' } })
                      }
                    >
                      <option value="value">value</option>
                      <option value="error">error</option>
                    </select>
                    {!c.expect.error ? (
                      <input
                        type="text"
                        className="mono"
                        aria-label={`Expected value of ${c.name} (YAML or JSON)`}
                        value={c.expect.value}
                        spellCheck={false}
                        onChange={(e) => store().updateCelCase(docId, path, c.id, { expect: { error: false, value: e.target.value } })}
                      />
                    ) : null}
                  </td>
                  <td className="mono cel-case-actual">{r ? (r.ok ? (r.display ?? JSON.stringify(r.value)) : `error: ${r.message}`) : '…'}</td>
                  <td className={ok ? 'pass' : ok === false ? 'fail' : ''}>{ok === undefined ? '…' : ok ? '✓ pass' : '✗ fail'}</td>
                  <td className="cel-case-actions">
                    <button type="button" className="small" aria-label={`Load the inputs of ${c.name}`} onClick={() => setDocInputs(docId, c.input)}>
                      Load
                    </button>
                    <button
                      type="button"
                      className="small"
                      aria-label={`Update ${c.name} with the current inputs`}
                      onClick={() => store().updateCelCase(docId, path, c.id, { input: draft })}
                    >
                      Update
                    </button>
                    <button type="button" className="icon danger" aria-label={`Delete ${c.name}`} onClick={() => store().removeCelCase(docId, path, c.id)}>
                      ×
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
