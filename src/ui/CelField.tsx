/** A CEL expression field: the expression with its context; compile errors show at the field. */
import type { StringField } from '../k8s';
import { Labelled, useDescribedBy } from './Labelled';
import { useForm } from './form-context';
import type { ControlProps } from './controls';

export function CelField({ field, path, value, onChange }: ControlProps<StringField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  const text = typeof value === 'string' ? value : '';
  return (
    <Labelled field={field} path={path}>
      <div className="cel-field">
        <span className="cel-context" title="The CEL environment this expression is compiled in">
          CEL · {field.cel}
        </span>
        <textarea
          {...aria}
          className="mono"
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          value={text}
          placeholder={field.placeholder}
          readOnly={readOnly}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
        />
      </div>
    </Labelled>
  );
}
