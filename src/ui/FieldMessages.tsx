import { FixButton } from './FixButton';
import { useForm, useProblemsAt } from './form-context';

/** The problems at one field, shown under its control: errors, warnings and lint findings look different; a lightbulb offers quick fixes. */
export function FieldMessages({ id, path }: { id: string; path: string }) {
  const { docId, readOnly } = useForm();
  const problems = useProblemsAt(path);
  if (!problems?.length) return null;
  return (
    // biome-ignore lint/a11y/noRedundantRoles: list-style: none drops the list role in Safari/VoiceOver; role="list" keeps it
    <ul className="field-messages" id={id} role="list">
      {problems.map((p, i) => (
        <li key={i} className={`${p.level}${p.lint ? ' lint' : ''}`}>
          <span className="badge" title={p.lint}>
            {p.label}
          </span>{' '}
          {p.label === 'TypeChecking' ? <span className="type-checking">{p.message}</span> : p.message}
          {readOnly ? null : <FixButton docId={docId} problem={p} />}
          {p.hint ? <div className="hint">{p.hint}</div> : null}
        </li>
      ))}
    </ul>
  );
}
