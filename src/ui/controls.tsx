/** Scalar controls: text, CEL, integer, enum, boolean. Each edits exactly one path. */
import { useEffect, useState } from 'react';
import type { BooleanField, IntegerField, StringField } from '../k8s';
import { CaBundleDetails } from './CaBundleDetails';
import { Labelled, useDescribedBy } from './Labelled';
import { useForm, type ControlProps } from './form-context';
import { CelField } from './CelField';
import { displayValue } from './display';
import { useRefusedAt, useWorkspace, type WorkspaceDoc } from '../store';

/** metadata.name of the workspace's documents of a kind, one per line (a string, so the selector result is stable). */
function namesOfKind(docs: readonly WorkspaceDoc[], kind: string): string {
  return docs
    .map((d) => d.object as { kind?: unknown; metadata?: { name?: unknown } } | undefined)
    .filter((o) => o?.kind === kind && typeof o.metadata?.name === 'string')
    .map((o) => o!.metadata!.name as string)
    .join('\n');
}

/**
 * Text that keeps what the user types while it differs from the stored value only in ways the store
 * normalises. An edit the text refused (an anchor or alias) left the value as it was: show it again.
 */
function useTextDraft(value: unknown, path: string): [string, (s: string) => void] {
  const shown = displayValue(value);
  const [draft, setDraft] = useState(shown);
  const refused = useRefusedAt(useForm().docId, path);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a refusal changes no value, only `refused`, and must reset the draft too
  useEffect(() => setDraft(shown), [shown, refused]);
  return [draft, setDraft];
}

export function StringControl({ field, path, value, onChange }: ControlProps<StringField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  const [draft, setDraft] = useTextDraft(value, path);
  const named = useWorkspace((s) => (field.suggestNamesOf ? namesOfKind(s.docs, field.suggestNamesOf) : ''));
  const suggestions = field.suggestNamesOf ? named.split('\n').filter(Boolean) : field.suggestions;
  if (field.enum) return <EnumControl field={field} path={path} value={value} onChange={onChange} />;
  if (field.cel) return <CelField field={field} path={path} value={value} onChange={onChange} />;
  const commit = (s: string) => {
    setDraft(s);
    onChange(s === '' && value !== '' ? undefined : s);
  };
  return (
    <Labelled field={field} path={path}>
      {field.multiline ? (
        <textarea
          {...aria}
          className={field.format === 'byte' ? 'mono' : undefined}
          rows={field.format === 'byte' ? 3 : 2}
          value={draft}
          placeholder={field.placeholder}
          readOnly={readOnly}
          spellCheck={false}
          onChange={(e) => commit(e.target.value)}
        />
      ) : (
        <input
          {...aria}
          type="text"
          value={draft}
          placeholder={field.placeholder}
          readOnly={readOnly}
          spellCheck={false}
          autoComplete="off"
          list={suggestions ? `${aria.id}-suggestions` : undefined}
          onChange={(e) => commit(e.target.value)}
        />
      )}
      {suggestions ? (
        <datalist id={`${aria.id}-suggestions`}>
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      ) : null}
      {field.name === 'caBundle' ? <CaBundleDetails value={value} /> : null}
    </Labelled>
  );
}

export function IntegerControl({ field, path, value, onChange }: ControlProps<IntegerField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  const [draft, setDraft] = useTextDraft(value, path);
  return (
    <Labelled field={field} path={path}>
      <input
        {...aria}
        type="text"
        inputMode="numeric"
        className="narrow"
        value={draft}
        readOnly={readOnly}
        placeholder={field.default !== undefined ? `default ${String(field.default)}` : undefined}
        onChange={(e) => {
          const s = e.target.value.trim();
          setDraft(e.target.value);
          // A non-integer stays as typed (a string) so the decode check shows it at the field.
          onChange(s === '' ? undefined : /^-?\d+$/.test(s) ? Number(s) : e.target.value);
        }}
      />
    </Labelled>
  );
}

/**
 * An enum picker. "Unset" (the API default applies) and "set to the default" are
 * different states, and both can be chosen.
 */
export function EnumControl({ field, path, value, onChange }: ControlProps<StringField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  const options = field.enum ?? [];
  const unknown = typeof value === 'string' && !options.includes(value);
  const unsetLabel = field.default !== undefined ? `(unset — default ${String(field.default)})` : '(unset)';
  return (
    <Labelled field={field} path={path}>
      <select
        {...aria}
        value={value === undefined || value === null ? '' : String(value)}
        disabled={readOnly}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
      >
        <option value="">{unsetLabel}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
            {o === field.default ? ' (default)' : ''}
          </option>
        ))}
        {unknown ? <option value={String(value)}>{`${String(value)} (not supported)`}</option> : null}
      </select>
    </Labelled>
  );
}

export function BooleanControl({ field, path, value, onChange }: ControlProps<BooleanField>) {
  const { readOnly } = useForm();
  const aria = useDescribedBy(path);
  return (
    <Labelled field={field} path={path}>
      <select
        {...aria}
        value={value === true ? 'true' : value === false ? 'false' : ''}
        disabled={readOnly}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value === 'true')}
      >
        <option value="">(unset)</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    </Labelled>
  );
}
