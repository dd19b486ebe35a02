/**
 * The admission chain of one simulation, step by step: every configuration, webhook, policy
 * and binding with its outcome and the reason in the apiserver's terms. A step is a button
 * that selects its document and focuses the field that decided it.
 */
import type { SimResult, SimStep } from '../../store/simulator';
import type { WorkspaceDoc } from '../../store';
import { docOfRef } from '../../store/simulator';
import { focusRef } from './focus';
import { TracedExpression } from '../cel/TracedExpression';

/** A policy step's expressions with this run's values: the one that decided the step shown, the others folded. */
function StepExpressions({ step }: { step: SimStep }) {
  const all = step.expressions ?? [];
  if (!all.length) return null;
  const deciding = all.find((e) => e.field === step.path);
  const others = all.filter((e) => e !== deciding);
  const item = (e: (typeof all)[number]) => (
    <li key={e.field} data-testid="sim-expression" data-field={e.field}>
      <code className="sim-muted">{e.field}</code>: <TracedExpression expression={e.expression} trace={e.trace} />
    </li>
  );
  return (
    <div className="sim-expressions">
      {deciding ? <ul data-testid="sim-step-expression">{item(deciding)}</ul> : null}
      {others.length ? (
        <details>
          <summary>
            {deciding ? 'other expressions' : 'expressions'} ({others.length})
          </summary>
          <ul>{others.map(item)}</ul>
        </details>
      ) : null}
    </div>
  );
}

const OUTCOME_LABEL: Record<SimStep['outcome'], string> = {
  skipped: 'skipped',
  called: 'called',
  admitted: 'admitted',
  denied: 'denied',
  warned: 'warned',
  audited: 'audited',
  patched: 'patched',
  'error-ignored': 'error, ignored',
  'error-rejected': 'error, rejected',
  reinvoked: 'reinvoked',
};

const subject = (s: SimStep) => [s.webhook ? `${s.name} / ${s.webhook}` : s.name, s.binding ? `binding ${s.binding}` : ''].filter(Boolean).join(' · ');

/** A step's configuration or policy: a button to the field that decided it, when the document is in the workspace. */
export function StepLink({ step, docs }: { step: SimStep; docs: readonly WorkspaceDoc[] }) {
  const doc = docOfRef(docs, step.document);
  const where = step.path ? `${step.document.name} ${step.path}` : step.document.name;
  return doc ? (
    <button type="button" className="link sim-subject" data-step-path={step.path} title={`Show ${where}`} onClick={() => focusRef(doc, step.path)}>
      {subject(step)}
    </button>
  ) : (
    <span className="sim-subject">{subject(step)}</span>
  );
}

export function Timeline({ result, docs }: { result: SimResult; docs: readonly WorkspaceDoc[] }) {
  if (!result.steps.length) return <p className="sim-muted">No configuration or policy in the workspace applies to this request.</p>;
  return (
    <ol className="sim-timeline" aria-label="Admission chain">
      {result.steps.map((s, i) => (
        <li
          key={i}
          className={`sim-step sim-${s.outcome}`}
          data-testid="sim-step"
          data-outcome={s.outcome}
          data-name={s.webhook ?? s.name}
          data-static={s.static ? 'true' : undefined}
        >
          <span className="sim-phase">
            {s.phase}
            {s.round ? ' (reinvocation)' : ''}
          </span>
          <span className={`sim-outcome sim-${s.outcome}`}>{OUTCOME_LABEL[s.outcome]}</span>
          <span className="sim-kind">{s.kind}</span>
          {s.static ? (
            <span
              className="badge static-badge"
              title="Loaded from a static manifest: runs before the API objects of its plugin, and cannot be deleted through the API"
            >
              static
            </span>
          ) : null}
          <StepLink step={s} docs={docs} />
          <div className="sim-reason">{s.reason}</div>
          {s.timeoutSeconds !== undefined || s.failurePolicy || s.sideEffects ? (
            <div className="sim-muted">
              {[
                s.failurePolicy && `failurePolicy ${s.failurePolicy}`,
                s.timeoutSeconds !== undefined && `timeoutSeconds ${s.timeoutSeconds}`,
                s.sideEffects && `sideEffects ${s.sideEffects}`,
              ]
                .filter(Boolean)
                .join(' · ')}
            </div>
          ) : null}
          {s.message ? <div className="sim-message">{s.message}</div> : null}
          {s.patch?.length ? <pre className="mono sim-patch">{JSON.stringify(s.patch, null, 1)}</pre> : null}
          {s.warnings?.length ? <div className="sim-warn">warnings: {s.warnings.join('; ')}</div> : null}
          {s.notes?.length ? <div className="sim-muted">{s.notes.join(' ')}</div> : null}
          <StepExpressions step={s} />
        </li>
      ))}
    </ol>
  );
}
