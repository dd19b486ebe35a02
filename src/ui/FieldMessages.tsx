import type { FieldError } from '../k8s';

/** The problems at one field, shown under its control. */
export function FieldMessages({ id, problems }: { id: string; problems: readonly FieldError[] | undefined }) {
  if (!problems?.length) return null;
  return (
    <ul className="field-messages" id={id} role="list">
      {problems.map((p, i) => (
        <li key={i} className={p.severity === 'warning' ? 'warning' : 'error'}>
          <span className="badge">{p.severity === 'warning' ? 'Warning' : p.type}</span> {p.message}
          {p.hint ? <div className="hint">{p.hint}</div> : null}
        </li>
      ))}
    </ul>
  );
}
