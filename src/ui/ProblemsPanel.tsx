/** Every problem of the selected document; a click focuses the field in the form and its line in the YAML. */
import type { DocProblems, WorkspaceDoc } from '../store';
import { workspace } from '../store';

export function ProblemsPanel({ doc, problems }: { doc: WorkspaceDoc; problems: DocProblems }) {
  const total = problems.errors + problems.warnings;
  return (
    <section className="problems" aria-label="Problems">
      <h2>
        Problems{' '}
        <span className={`count ${problems.errors ? 'error' : problems.warnings ? 'warning' : 'ok'}`} data-testid="problem-count">
          {problems.errors} error{problems.errors === 1 ? '' : 's'}, {problems.warnings} warning{problems.warnings === 1 ? '' : 's'}
        </span>
      </h2>
      {total === 0 ? <p className="ok">No problems: a Kubernetes 1.36 apiserver accepts this object.</p> : null}
      <ul>
        {problems.parse ? (
          <li className="error">
            <span className="badge">YAML</span> line {problems.parse.line}, column {problems.parse.column}: {problems.parse.message}{' '}
            <em>(the form shows the last version that parsed; your text is kept)</em>
          </li>
        ) : null}
        {problems.fields.map((p, i) => (
          <li key={i} className={p.severity === 'warning' ? 'warning' : 'error'}>
            <button type="button" className="link" data-problem-path={p.field} onClick={() => workspace.getState().focusField(doc.id, p.field)}>
              <span className="badge">{p.severity === 'warning' ? 'Warning' : p.type}</span> <code>{p.field || '(object)'}</code>: {p.message}
            </button>
            {p.hint ? <div className="hint">{p.hint}</div> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
