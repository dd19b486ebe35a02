import type { ReactNode } from 'react';
import type { Field } from '../k8s';
import { FieldMessages } from './FieldMessages';
import { useForm, useProblemsAt } from './form-context';

/** A stable DOM id for a field path within a document. */
export const domId = (docId: string, path: string, suffix = '') => `f-${docId}-${path.replace(/[^A-Za-z0-9_-]/g, '_')}${suffix}`;

/**
 * The frame of every scalar control: a visible label, the help (shown on hover and
 * focus, and always available to screen readers), the default when there is one,
 * and the problems at this path.
 */
export function Labelled({ field, path, children, inline }: { field: Field; path: string; children: ReactNode; inline?: boolean }) {
  const { docId } = useForm();
  const id = domId(docId, path);
  const here = useProblemsAt(path);
  const severity = here?.some((p) => p.level === 'error') ? 'has-error' : here?.some((p) => p.level === 'warning') ? 'has-warning' : '';
  return (
    <div className={`field ${inline ? 'inline' : ''} ${severity}`}>
      <label htmlFor={id}>
        {field.label}
        {field.required ? (
          <span className="required" aria-hidden="true">
            {' '}
            *
          </span>
        ) : null}
        <code className="field-name">{field.name}</code>
      </label>
      {children}
      <div className="help" id={`${id}-help`}>
        {field.help}
        {field.default !== undefined ? <span className="default"> Default: {JSON.stringify(field.default)}.</span> : null}
      </div>
      <FieldMessages id={`${id}-problems`} path={path} />
    </div>
  );
}

/** aria attributes tying a control to its help and problems. */
export function useDescribedBy(path: string) {
  const { docId } = useForm();
  const id = domId(docId, path);
  const here = useProblemsAt(path);
  return {
    id,
    'aria-describedby': here?.length ? `${id}-help ${id}-problems` : `${id}-help`,
    'aria-invalid': here?.some((p) => p.level === 'error') ? true : undefined,
    'data-path': path,
  } as const;
}
