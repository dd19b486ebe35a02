/**
 * Every problem of the selected document: what the apiserver would reject (errors),
 * what it would warn about, and best-practice findings (lints). A click focuses the
 * field in the form and its line in the YAML.
 */
import { memo } from 'react';
import type { DocProblems, Problem, WorkspaceDoc } from '../store';
import { useWorkspace, workspace } from '../store';
import { FixButton } from './FixButton';
import { sameProblem } from './form-context';

/**
 * One line of the list. Every edit validates again and makes new problem objects; a line is
 * rendered again only when what it shows changed (a big document has hundreds of lines).
 */
const ProblemLine = memo(
  function ProblemLine({ docId, problem: p }: { docId: string; problem: Problem }) {
    return (
      <li className={`${p.level}${p.lint ? ' lint' : ''}`}>
        <button type="button" className="link" data-problem-path={p.field} data-lint={p.lint ? p.label : undefined} onClick={() => workspace.getState().focusField(docId, p.field)}>
          <span className="badge" title={p.lint ? `best practice: ${p.lint}` : undefined}>
            {p.label}
          </span>{' '}
          <code>{p.field || '(object)'}</code>: {p.message}
        </button>
        <FixButton docId={docId} problem={p} />
        {p.hint ? <div className="hint">{p.hint}</div> : null}
      </li>
    );
  },
  (a, b) => a.docId === b.docId && sameProblem(a.problem, b.problem),
);

/** The panel; `problems` is null while the document's first check is still to come (DocumentView). */
export function ProblemsPanel({ doc, problems }: { doc: WorkspaceDoc; problems: DocProblems | null }) {
  const release = useWorkspace((s) => s.kubernetesVersion);
  if (!problems) {
    return (
      <section className="problems" aria-label="Problems" aria-busy="true">
        <h2>
          Problems{' '}
          <span className="count" data-testid="problem-count">
            checking…
          </span>
        </h2>
      </section>
    );
  }
  const lintWarnings = problems.lints.filter((l) => l.severity === 'warning').length;
  // Stable keys (not positions): a new error at the top must not re-render every line below it.
  // Label and field are enough (the message may change in place), and short keys are cheap with hundreds of lines.
  const seen = new Map<string, number>();
  const keys = problems.items.map((p) => {
    const k = `${p.label}|${p.field}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    return n ? `${k}|${n}` : k;
  });
  return (
    <section className="problems" aria-label="Problems">
      <h2>
        Problems{' '}
        <span className={`count ${problems.errors ? 'error' : problems.warnings ? 'warning' : 'ok'}`} data-testid="problem-count">
          {problems.errors} error{problems.errors === 1 ? '' : 's'}, {problems.warnings} warning{problems.warnings === 1 ? '' : 's'}
        </span>
        {problems.lints.length ? (
          <span className={`count ${lintWarnings ? 'warning' : ''}`} data-testid="lint-count" title="Best practices: accepted by the apiserver, but risky">
            {problems.lints.length} best-practice finding{problems.lints.length === 1 ? '' : 's'}
          </span>
        ) : null}
      </h2>
      {problems.errors + problems.warnings === 0 ? <p className="ok">No problems: a Kubernetes {release} apiserver accepts this object.</p> : null}
      <ul>
        {problems.parse ? (
          <li className="error">
            <span className="badge">YAML</span> line {problems.parse.line}, column {problems.parse.column}: {problems.parse.message}{' '}
            <em>(the form shows the last version that parsed; your text is kept)</em>
          </li>
        ) : null}
        {problems.items.map((p, i) => (
          <ProblemLine key={keys[i]} docId={doc.id} problem={p} />
        ))}
      </ul>
    </section>
  );
}
