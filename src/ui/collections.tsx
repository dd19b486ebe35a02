/** Controls for collections: token lists, checkbox sets and string maps. */
import { useState } from 'react';
import type { StringListField, StringMapField } from '../k8s';
import { Labelled, useDescribedBy } from './Labelled';
import { useForm } from './form-context';
import type { ControlProps } from './form-context';
import { displayValue } from './display';

const asStrings = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const tokenText = (t: unknown) => (t === '' ? '"" (core)' : displayValue(t));

/** A list of strings as removable tokens with an input that suggests common values. Type "" for the empty string. */
export function TokenListControl({ field, path, value, onChange }: ControlProps<StringListField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  const [draft, setDraft] = useState('');
  if (field.enum) return <CheckboxListControl field={field} path={path} value={value} onChange={onChange} />;
  const tokens = asStrings(value);
  const add = (raw: string) => {
    const t = raw.trim() === '""' ? '' : raw.trim();
    if (raw.trim() === '') return;
    onChange([...tokens, t]);
    setDraft('');
  };
  const removeToken = (i: number) => {
    const next = tokens.filter((_, j) => j !== i);
    onChange(next.length || Array.isArray(value) ? next : undefined);
  };
  return (
    <Labelled field={field} path={path}>
      <div className="tokens">
        {tokens.map((t, i) => (
          <span key={i} className="token" data-path={`${path}[${i}]`}>
            {tokenText(t)}
            {!readOnly ? (
              <button type="button" className="icon" aria-label={`Remove ${tokenText(t)} from ${field.label}`} onClick={() => removeToken(i)}>
                ×
              </button>
            ) : null}
          </span>
        ))}
        {!readOnly ? (
          <input
            {...aria}
            type="text"
            className="token-input"
            value={draft}
            placeholder={
              tokens.length
                ? 'add…'
                : field.suggestions?.length
                  ? `e.g. ${field.suggestions
                      .filter((s) => s)
                      .slice(0, 2)
                      .join(', ')}`
                  : 'add…'
            }
            list={field.suggestions ? `${aria.id}-suggestions` : undefined}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => {
              const v = e.target.value;
              // Picking a suggestion from the list adds it at once.
              if (field.suggestions?.includes(v) && (e.nativeEvent as InputEvent).inputType === 'insertReplacementText') add(v);
              else setDraft(v);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ',') {
                e.preventDefault();
                add(draft);
              } else if (e.key === 'Backspace' && draft === '' && tokens.length) {
                removeToken(tokens.length - 1);
              }
            }}
            onBlur={() => draft.trim() && add(draft)}
          />
        ) : null}
      </div>
      {field.suggestions ? (
        <datalist id={`${aria.id}-suggestions`}>
          {field.suggestions.map((s) => (
            <option key={s} value={s === '' ? '""' : s} />
          ))}
        </datalist>
      ) : null}
    </Labelled>
  );
}

/** A set of allowed values as checkboxes (operations with "*", validationActions). */
export function CheckboxListControl({ field, path, value, onChange }: ControlProps<StringListField>) {
  const { readOnly, docId } = useForm();
  const aria = useDescribedBy(path);
  const current = asStrings(value);
  const others = current.filter((v) => !field.enum?.includes(v as string));
  const toggle = (opt: string, on: boolean) => {
    const next = on ? [...current, opt] : current.filter((v) => v !== opt);
    onChange(next);
  };
  return (
    <Labelled field={field} path={path}>
      <div role="group" aria-label={field.label} className="checkboxes" id={aria.id} data-path={path} aria-describedby={aria['aria-describedby']}>
        {field.enum?.map((opt) => (
          <label key={opt} className="checkbox">
            <input
              type="checkbox"
              id={`${aria.id}-${opt === '*' ? 'all' : opt}`}
              data-path={path}
              data-value={opt}
              checked={current.includes(opt)}
              disabled={readOnly}
              onChange={(e) => toggle(opt, e.target.checked)}
            />
            {opt === '*' ? '* (all)' : opt}
          </label>
        ))}
        {others.map((o, i) => (
          <span key={`${docId}-${i}`} className="token invalid">
            {tokenText(o)}
            <button type="button" className="icon" aria-label={`Remove ${tokenText(o)}`} onClick={() => onChange(current.filter((v) => v !== o))}>
              ×
            </button>
          </span>
        ))}
      </div>
    </Labelled>
  );
}

/** A string map as a key/value table (labels, annotations, matchLabels). */
export function StringMapControl({ field, path, value, onChange }: ControlProps<StringMapField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  const entries = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : [];
  const write = (next: [string, unknown][]) => onChange(next.length || value ? Object.fromEntries(next) : undefined);
  const setKey = (i: number, k: string) => write(entries.map(([ek, ev], j) => (j === i ? [k, ev] : [ek, ev])));
  const setValue = (i: number, v: string) => write(entries.map(([ek, ev], j) => (j === i ? [ek, v] : [ek, ev])));
  const addRow = () => {
    let k = 'key';
    for (let n = 2; entries.some(([ek]) => ek === k); n++) k = `key${n}`;
    write([...entries, [k, '']]);
  };
  return (
    <Labelled field={field} path={path}>
      <table className="map-table" id={aria.id} data-path={path} aria-describedby={aria['aria-describedby']}>
        {entries.length ? (
          <thead>
            <tr>
              <th scope="col">{field.keyLabel ?? 'Key'}</th>
              <th scope="col">{field.valueLabel ?? 'Value'}</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
        ) : null}
        <tbody>
          {entries.map(([k, v], i) => (
            <tr key={i}>
              <td>
                <input
                  type="text"
                  aria-label={`${field.label} key ${i + 1}`}
                  data-path={`${path}[${k}]`}
                  data-part="key"
                  value={k}
                  readOnly={readOnly}
                  spellCheck={false}
                  onChange={(e) => setKey(i, e.target.value)}
                />
              </td>
              <td>
                <input
                  type="text"
                  aria-label={`${field.label} value of ${k}`}
                  data-path={`${path}[${k}]`}
                  value={displayValue(v)}
                  readOnly={readOnly}
                  spellCheck={false}
                  onChange={(e) => setValue(i, e.target.value)}
                />
              </td>
              <td>
                {!readOnly ? (
                  <button
                    type="button"
                    className="icon"
                    aria-label={`Remove ${k} from ${field.label}`}
                    onClick={() => write(entries.filter((_, j) => j !== i))}
                  >
                    ×
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!readOnly ? (
        <button type="button" className="small" onClick={addRow}>
          + Add {field.label.toLowerCase().replace(/s$/, '')}
        </button>
      ) : null}
    </Labelled>
  );
}
