/**
 * The "Test" area beside a CEL expression: the document's shared test inputs (a request form,
 * YAML for object / oldObject / params / namespaceObject, authorizer rules), the live result,
 * and named cases with expectations, all re-run on every edit (debounced).
 */
import { useId, useMemo, useState } from 'react';
import type { AuthorizerRule, CelCompileOptionsExt, CelContext } from '../../cel/types';
import {
  celTests,
  expectationText,
  newCaseId,
  passes,
  toCelInputs,
  useCelTests,
  type InputError,
  type InputsDraft,
  type RequestDraft,
  type TestCase,
} from '../../store/cel-tests';
import { ResultView } from './ResultView';
import { setDocInputs, useCelState, useDocInputs, useEvaluations, type Evaluation } from './use-cel';
import './cel.css';

const NO_CASES: TestCase[] = [];

export interface TestPanelProps {
  docId: string;
  path: string;
  context: CelContext;
  expression: string;
  options: CelCompileOptionsExt;
}

export function TestPanel({ docId, path, context, expression, options }: TestPanelProps) {
  const open = useCelTests((s) => s.docs[docId]?.open.includes(path) ?? false);
  const cases = useCelTests((s) => s.docs[docId]?.cases[path] ?? NO_CASES);
  const { draft, edited } = useDocInputs(docId);
  const celState = useCelState();
  const current = toCelInputs(draft);
  const inputsList = useMemo(() => [current.inputs, ...cases.map((c) => toCelInputs(c.inputs).inputs)], [current.inputs, cases]);
  const enabled = (open || cases.length > 0) && expression.trim() !== '';
  const { results, running } = useEvaluations(expression, context, inputsList, options, enabled);
  const caseResults = results.slice(1);
  const passed = cases.filter((c, i) => caseResults[i] && passes(c.expect, outcomeOf(caseResults[i]!))).length;
  const bodyId = useId();
  const known = cases.filter((_, i) => caseResults[i]).length;
  const summary = !cases.length ? '' : known === cases.length ? `${passed}/${cases.length} pass` : `${passed}/${cases.length} pass, ${cases.length - known} running`;
  const waiting = celState === 'failed' ? 'The CEL engine is unavailable.' : celState !== 'ready' ? 'Waiting for the CEL engine…' : undefined;
  return (
    <div className="cel-test" data-testid="cel-test" data-expression-path={path}>
      <div className="cel-test-head">
        <button
          type="button"
          className="small cel-test-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => celTests.getState().setOpen(docId, path, !open)}
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
            <ResultView result={expression.trim() ? results[0] : undefined} running={running} waiting={!expression.trim() ? 'Type an expression to evaluate it.' : waiting} />
            <InputsEditor docId={docId} path={path} draft={draft} edited={edited} errors={current.errors} context={context} hasParams={!!options.hasParams} />
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

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const DECISIONS: AuthorizerRule['decision'][] = ['allow', 'deny', 'noOpinion'];
type YamlKey = 'object' | 'oldObject' | 'params' | 'namespaceObject';

function InputsEditor({
  docId,
  path,
  draft,
  edited,
  errors,
  context,
  hasParams,
}: {
  docId: string;
  path: string;
  draft: InputsDraft;
  edited: boolean;
  errors: InputError[];
  context: CelContext;
  hasParams: boolean;
}) {
  const uid = useId();
  const set = (patch: Partial<InputsDraft>) => setDocInputs(docId, { ...draft, ...patch });
  const setReq = (patch: Partial<RequestDraft>) => set({ request: { ...draft.request, ...patch } });
  const r = draft.request;
  const text = (key: keyof RequestDraft, label: string, wide = false) => (
    <label className={`cel-req-field ${wide ? 'wide' : ''}`}>
      <span>{label}</span>
      <input type="text" value={String(r[key])} spellCheck={false} autoComplete="off" data-input={`request.${key}`} onChange={(e) => setReq({ [key]: e.target.value })} />
    </label>
  );
  const yamlKeys: { key: YamlKey; label: string }[] = [
    { key: 'object', label: 'object' },
    { key: 'oldObject', label: 'oldObject' },
    ...(hasParams ? [{ key: 'params' as const, label: 'params' }] : []),
    { key: 'namespaceObject', label: 'namespaceObject' },
  ];
  const hasAuthorizer = context !== 'vap-messageExpression';
  return (
    <div className="cel-inputs" aria-label="Test inputs" role="group">
      <div className="cel-inputs-head">
        <strong>Test inputs</strong> <span className="muted">shared by this document's expressions{edited ? '' : ' · defaults from its rules'}</span>
        {edited ? (
          <button type="button" className="small" onClick={() => celTests.getState().resetInputs(docId)}>
            Reset to defaults
          </button>
        ) : null}
      </div>
      <fieldset className="cel-request">
        <legend>request</legend>
        <label className="cel-req-field">
          <span>operation</span>
          <select value={r.operation} data-input="request.operation" onChange={(e) => setReq({ operation: e.target.value })}>
            {OPERATIONS.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>
        {text('group', 'group')}
        {text('version', 'version')}
        {text('kind', 'kind')}
        {text('resource', 'resource')}
        {text('subResource', 'subResource')}
        {text('namespace', 'namespace')}
        {text('name', 'name')}
        {text('username', 'userInfo.username', true)}
        <label className="cel-req-field wide">
          <span>userInfo.groups (comma-separated)</span>
          <input
            type="text"
            value={r.groups.join(', ')}
            spellCheck={false}
            autoComplete="off"
            data-input="request.groups"
            onChange={(e) =>
              setReq({
                groups: e.target.value
                  .split(',')
                  .map((g) => g.trim())
                  .filter(Boolean),
              })
            }
          />
        </label>
        <label className="cel-req-field check">
          <input type="checkbox" checked={r.dryRun} data-input="request.dryRun" onChange={(e) => setReq({ dryRun: e.target.checked })} />
          <span>dryRun</span>
        </label>
      </fieldset>
      {yamlKeys.map(({ key, label }) => {
        const err = errors.find((e) => e.field === key);
        const id = `${uid}-${key}`;
        return (
          <div key={key} className="cel-yaml-input">
            <label htmlFor={id}>
              {label} <span className="muted">(YAML{key === 'object' || key === 'oldObject' ? '; empty = null' : ''})</span>
            </label>
            <textarea
              id={id}
              className="mono"
              rows={Math.min(14, Math.max(2, draft[key].split('\n').length))}
              value={draft[key]}
              spellCheck={false}
              data-input={key}
              aria-invalid={err ? true : undefined}
              aria-describedby={err ? `${id}-err` : undefined}
              onChange={(e) => set({ [key]: e.target.value })}
            />
            {err ? (
              <div className="cel-input-error" id={`${id}-err`} role="alert">
                line {err.line}, column {err.column}: {err.message}
              </div>
            ) : null}
          </div>
        );
      })}
      {hasAuthorizer ? <AuthorizerTable rules={draft.authorizer} onChange={(authorizer) => set({ authorizer })} path={path} /> : null}
    </div>
  );
}

function AuthorizerTable({ rules, onChange, path }: { rules: AuthorizerRule[]; onChange(r: AuthorizerRule[]): void; path: string }) {
  const cols: (keyof AuthorizerRule)[] = ['verb', 'group', 'resource', 'namespace', 'name'];
  const setRow = (i: number, patch: Partial<AuthorizerRule>) => onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="cel-authorizer">
      <div className="cel-inputs-sub">
        authorizer rules <span className="muted">(first match wins; no match = noOpinion; empty cell = any)</span>
      </div>
      {rules.length ? (
        <table>
          <thead>
            <tr>
              {cols.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
              <th scope="col">decision</th>
              <th scope="col">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r, i) => (
              <tr key={i}>
                {cols.map((c) => (
                  <td key={c}>
                    <input
                      type="text"
                      aria-label={`Rule ${i + 1} ${c}`}
                      value={String(r[c] ?? '')}
                      spellCheck={false}
                      autoComplete="off"
                      onChange={(e) => setRow(i, { [c]: e.target.value })}
                    />
                  </td>
                ))}
                <td>
                  <select aria-label={`Rule ${i + 1} decision`} value={r.decision} onChange={(e) => setRow(i, { decision: e.target.value as AuthorizerRule['decision'] })}>
                    {DECISIONS.map((d) => (
                      <option key={d}>{d}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <button type="button" className="icon danger" aria-label={`Remove rule ${i + 1}`} onClick={() => onChange(rules.filter((_, j) => j !== i))}>
                    ×
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <button type="button" className="small" onClick={() => onChange([...rules, { verb: 'get', group: '', resource: '', namespace: '', name: '', decision: 'allow' }])}>
        + Add authorizer rule
      </button>
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
  cases: TestCase[];
  results: (Evaluation | undefined)[];
  draft: InputsDraft;
  current: Evaluation | undefined;
}) {
  const uid = useId();
  const [name, setName] = useState('');
  const store = () => celTests.getState();
  const save = () => {
    const expect: TestCase['expect'] = current && !current.ok ? { error: true } : { error: false, value: current?.ok ? expectationText(current.value) : 'true' };
    store().addCase(docId, path, { id: newCaseId(), name: name.trim() || `case ${cases.length + 1}`, inputs: draft, expect });
    setName('');
  };
  return (
    <div className="cel-cases">
      <div className="cel-inputs-sub">Test cases</div>
      <div className="cel-case-new">
        <label htmlFor={`${uid}-name`}>Case name</label>
        <input id={`${uid}-name`} type="text" value={name} placeholder={`case ${cases.length + 1}`} autoComplete="off" onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), save())} />
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
                    <input type="text" aria-label={`Name of case ${i + 1}`} value={c.name} onChange={(e) => store().updateCase(docId, path, c.id, { name: e.target.value })} />
                  </td>
                  <td className="cel-case-expect">
                    <select
                      aria-label={`Expectation kind of ${c.name}`}
                      value={c.expect.error ? 'error' : 'value'}
                      onChange={(e) => store().updateCase(docId, path, c.id, { expect: e.target.value === 'error' ? { error: true } : { error: false, value: 'true' } })}
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
                        onChange={(e) => store().updateCase(docId, path, c.id, { expect: { error: false, value: e.target.value } })}
                      />
                    ) : null}
                  </td>
                  <td className="mono cel-case-actual">{r ? (r.ok ? (r.display ?? JSON.stringify(r.value)) : `error: ${r.message}`) : '…'}</td>
                  <td className={ok ? 'pass' : ok === false ? 'fail' : ''}>{ok === undefined ? '…' : ok ? '✓ pass' : '✗ fail'}</td>
                  <td className="cel-case-actions">
                    <button type="button" className="small" aria-label={`Load the inputs of ${c.name}`} onClick={() => setDocInputs(docId, c.inputs)}>
                      Load
                    </button>
                    <button type="button" className="small" aria-label={`Update ${c.name} with the current inputs`} onClick={() => store().updateCase(docId, path, c.id, { inputs: draft })}>
                      Update
                    </button>
                    <button type="button" className="icon danger" aria-label={`Delete ${c.name}`} onClick={() => store().removeCase(docId, path, c.id)}>
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
