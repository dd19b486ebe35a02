/**
 * The open "Test" area of a CEL expression (./TestPanel.tsx): the live result, the document's test
 * inputs and the named cases. A chunk of its own, loaded when a Test area is first opened: the
 * first form draws every expression's closed Test area, never its body.
 */
import { useId, useState } from 'react';
import type { CelCompileOptions, CelContext } from '../../cel/types';
import { expectationText, newId, passes, type CelCase, type DraftError, type TestInputDraft } from '../../request';
import { testInputs } from '../../store/test-inputs';
import { TestInputForm } from '../request/TestInputForm';
import { ResultView } from './ResultView';
import { outcomeOf, setDocInputs, type Evaluation } from './use-cel';

export interface TestPanelBodyProps {
  docId: string;
  path: string;
  context: CelContext;
  expression: string;
  options: CelCompileOptions;
  results: (Evaluation | undefined)[];
  running: boolean;
  /** Why there is no result yet (the engine is starting or failed). */
  waiting: string | undefined;
  draft: TestInputDraft;
  edited: boolean;
  errors: DraftError[];
  cases: CelCase[];
}

export default function TestPanelBody({
  docId,
  path,
  context,
  expression,
  options,
  results,
  running,
  waiting,
  draft,
  edited,
  errors,
  cases,
}: TestPanelBodyProps) {
  return (
    <>
      <ResultView
        result={expression.trim() ? results[0] : undefined}
        running={running}
        waiting={!expression.trim() ? 'Type an expression to evaluate it.' : waiting}
      />
      <InputsEditor docId={docId} draft={draft} edited={edited} errors={errors} context={context} hasParams={!!options.hasParams} />
      <Cases docId={docId} path={path} cases={cases} results={results.slice(1)} draft={draft} current={results[0]} />
    </>
  );
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
