import type { Problem } from '../store';

/** The problems at one field, shown under its control: errors, warnings and lint findings look different. */
export function FieldMessages({ id, problems }: { id: string; problems: readonly Problem[] | undefined }) {
  if (!problems?.length) return null;
  return (
    <ul className="field-messages" id={id} role="list">
      {problems.map((p, i) => (
        <li key={i} className={`${p.level}${p.lint ? ' lint' : ''}`}>
          <span className="badge" title={p.lint}>
            {p.label}
          </span>{' '}
          {p.message}
          {p.hint ? <div className="hint">{p.hint}</div> : null}
        </li>
      ))}
    </ul>
  );
}
