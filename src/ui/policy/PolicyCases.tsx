/**
 * Saved test cases of a policy: the current inputs with the outcome the user expects,
 * all re-run on every change of the policy or the workspace, with a pass/fail summary,
 * and an export in kaptest's test-manifest format for CI.
 */
import { useEffect, useState } from 'react';
import type { CaseOutcome, CasesReport } from '../../policy';
import { useWorkspace, workspace, type WorkspaceDoc } from '../../store';
import { caseFromInputs, docCaseCoverage, draftOfCase, kaptestExport, type PolicyRunOutcome } from '../../store/policy-run';
import { setDocCoverage, useDocCoverage } from '../../store/coverage';
import { testInputs, usePolicyCases } from '../../store/test-inputs';
import { expectedOutcome, type TestInputDraft } from '../../request';
import { download } from '../download';
import { nameOf } from '../../base/json';
import { zipFiles } from '../../share/zip';

const OUTCOMES: CaseOutcome[] = ['admit', 'deny', 'warn', 'skip', 'error'];
const RUN_DELAY_MS = 300;

/** What the current run produced, as an expectation. */
function currentExpectation(run: PolicyRunOutcome | undefined): { outcome: CaseOutcome; message?: string; object?: unknown } | undefined {
  if (!run?.ok) return undefined;
  if (run.kind === 'mutating') {
    const r = run.result;
    return {
      outcome: r.errors.length && r.outcome !== 'admit' ? 'error' : r.outcome,
      message: r.decision.message,
      object: r.outcome === 'admit' ? r.object : undefined,
    };
  }
  const r = run.result;
  return { outcome: r.outcome, message: r.decision.message ?? r.warnings[0] };
}

export function PolicyCases({ doc, draft, run }: { doc: WorkspaceDoc; draft: TestInputDraft; run: PolicyRunOutcome | undefined }) {
  const cases = usePolicyCases(doc.id);
  const docs = useWorkspace((s) => s.docs);
  const celState = useWorkspace((s) => s.celState);
  const [report, setReport] = useState<CasesReport | undefined>();
  const [name, setName] = useState('');
  const current = currentExpectation(run);
  const [expected, setExpected] = useState<CaseOutcome | ''>('');

  const coverage = useDocCoverage(doc.id);
  useEffect(() => {
    if (celState !== 'ready') {
      setReport(undefined);
      setDocCoverage(doc.id, undefined);
      return;
    }
    let cancelled = false;
    // traced: the coverage of the policy cases, the CEL cases of its expressions and the saved
    // scenarios that run it goes to the YAML pane's gutter and the summary below
    const t = setTimeout(
      () =>
        void docCaseCoverage(doc, docs, cases).then(({ report, coverage }) => {
          if (cancelled) return;
          setReport(report);
          setDocCoverage(doc.id, coverage);
        }),
      RUN_DELAY_MS,
    );
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [celState, doc, docs, cases]);

  const save = () => {
    if (!current) return;
    const outcome = expected || current.outcome;
    const expect = outcome === current.outcome ? current : { outcome };
    const c = caseFromInputs(name.trim() || `case ${cases.length + 1}`, draft, expect);
    if (Array.isArray(c)) {
      workspace.getState().notify({ level: 'error', text: `The test inputs do not parse: ${c.map((p) => `${p.field}: ${p.message}`).join('; ')}` });
      return;
    }
    testInputs.getState().savePolicyCase(doc.id, c);
    setName('');
    setExpected('');
  };

  const exportKaptest = () => {
    const { files, warnings } = kaptestExport(doc, docs, cases);
    // the three files only work together: one archive (unzip, then `kaptest run kaptest.yaml`)
    download(`kaptest-${nameOf(doc.object) || 'policy'}.zip`, zipFiles(files) as Uint8Array<ArrayBuffer>, 'application/zip');
    if (warnings.length) workspace.getState().notify({ level: 'info', text: `kaptest export: ${warnings.join(' ')}` });
  };

  const idp = `pc-${doc.id}`;
  const passed = report?.summary.passed ?? 0;
  return (
    <div className="pt-cases">
      <h3>
        Saved cases{' '}
        {cases.length ? (
          <span className={`count ${report?.summary.failed ? 'error' : 'ok'}`} data-testid="cases-summary">
            {report ? `${passed}/${report.summary.total} pass` : `${cases.length} case(s)`}
          </span>
        ) : null}
      </h3>
      <div className="pt-save">
        <label htmlFor={`${idp}-name`}>Case name</label>
        <input id={`${idp}-name`} type="text" value={name} placeholder={`case ${cases.length + 1}`} onChange={(e) => setName(e.target.value)} />
        <label htmlFor={`${idp}-expect`}>Expect</label>
        <select id={`${idp}-expect`} value={expected || current?.outcome || ''} onChange={(e) => setExpected(e.target.value as CaseOutcome)}>
          {OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {o}
              {o === current?.outcome ? ' (now)' : ''}
            </option>
          ))}
        </select>
        <button type="button" disabled={!current} onClick={save}>
          Save inputs as a case
        </button>
        {cases.length ? (
          <button type="button" onClick={exportKaptest} title="One .zip with kaptest.yaml, policy.yaml and resources.yaml for `kaptest run` in CI">
            Export for kaptest
          </button>
        ) : null}
      </div>
      {coverage && coverage.text === doc.text ? (
        <div className="pt-coverage" data-testid="coverage-summary">
          <div>
            <strong>Coverage</strong>: {coverage.summary}
            <span className="pt-muted"> (marks beside the YAML lines: covered, partly, never run)</span>
          </div>
          {coverage.findings.length ? (
            <ul>
              {coverage.findings.map((f, i) => (
                <li key={i} className="pt-finding" data-testid="coverage-finding" data-code={f.code}>
                  {f.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <ul className="pt-case-list">
        {cases.map((c) => {
          const res = report?.results.find((r) => r.name === c.name);
          return (
            <li key={c.name} className={res ? (res.pass ? 'pass' : 'fail') : ''} data-case={c.name}>
              <span className="badge">{res ? (res.pass ? 'pass' : 'fail') : '…'}</span> <strong>{c.name}</strong> — expect {expectedOutcome(c.expect)}
              {c.expect.message ? <q>{c.expect.message}</q> : null}
              {res && !res.pass ? <div className="pt-err">{res.failures.join('; ')}</div> : null}
              <span className="pt-case-actions">
                <button
                  type="button"
                  className="small"
                  aria-label={`Load the inputs of ${c.name}`}
                  onClick={() => testInputs.getState().setDraft(doc.id, draftOfCase(c))}
                >
                  Load
                </button>
                <button
                  type="button"
                  className="icon danger"
                  aria-label={`Delete case ${c.name}`}
                  onClick={() => testInputs.getState().deletePolicyCase(doc.id, c.name)}
                >
                  ×
                </button>
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
