/**
 * The one form of a test input (src/request's model), shared by the CEL editor's Test area,
 * the policy test run and the simulator: the request (operation, resource, kind, name,
 * namespace, user), the YAML texts the operation reads (object / oldObject), the namespace,
 * params, and the authorizer's answers. Texts are kept exactly as typed; parse errors show at
 * the text with their line and column.
 */
import { useEffect, useId, useState } from 'react';
import type { AuthorizerRule } from '../../cel/types';
import { REQUEST_OPERATIONS, usesObject, usesOldObject, type DraftError, type Operation, type RequestDraft, type TestInputDraft } from '../../request';
import './request.css';

export interface TestInputFormProps {
  draft: TestInputDraft;
  onChange(draft: TestInputDraft): void;
  errors: readonly DraftError[];
  /** Which optional parts to show (all by default). */
  show?: { params?: boolean; namespaceObject?: boolean; authorizer?: boolean };
  /** Help for the params text (e.g. "empty: resolved from the workspace"). */
  paramsHelp?: string;
}

type YamlKey = DraftError['field'];

const YAML_HELP: Record<YamlKey, string> = {
  object: 'The object in the request (YAML).',
  oldObject: 'The object as stored before the request (YAML).',
  params: 'The params object (YAML).',
  namespaceObject: "The request's Namespace: its labels are what namespaceSelector sees; namespaceObject in CEL.",
  options: "The request's options (CreateOptions, UpdateOptions, DeleteOptions …; request.options in CEL), as the replayed request carried them (YAML).",
};

export function TestInputForm({ draft, onChange, errors, show = {}, paramsHelp }: TestInputFormProps) {
  const uid = useId();
  const set = (patch: Partial<TestInputDraft>) => onChange({ ...draft, ...patch });
  const op = draft.request.operation;
  const keys: YamlKey[] = [
    ...(usesObject(op) ? (['object'] as const) : []),
    ...(usesOldObject(op) ? (['oldObject'] as const) : []),
    ...(show.namespaceObject !== false ? (['namespaceObject'] as const) : []),
    ...(show.params !== false ? (['params'] as const) : []),
    // shown when the draft carries them (a request from an audit log): the form has no default for them
    ...(draft.options !== undefined ? (['options'] as const) : []),
  ];
  return (
    <div className="ti-form" role="group" aria-label="Test input">
      <RequestFields request={draft.request} onChange={(request) => set({ request })} />
      {keys.map((key) => {
        const err = errors.find((e) => e.field === key);
        const id = `${uid}-${key}`;
        return (
          <div key={key} className="ti-yaml">
            <label htmlFor={id}>{key}</label>
            <textarea
              id={id}
              className="mono"
              rows={Math.min(14, Math.max(2, (draft[key] ?? '').split('\n').length))}
              value={draft[key] ?? ''}
              spellCheck={false}
              data-input={key}
              aria-invalid={err ? true : undefined}
              aria-describedby={`${id}-help${err ? ` ${id}-err` : ''}`}
              onChange={(e) => set({ [key]: e.target.value })}
            />
            <div className="ti-help" id={`${id}-help`}>
              {key === 'params' && paramsHelp ? paramsHelp : YAML_HELP[key]} Empty: none.
            </div>
            {err ? (
              <div className="ti-error" id={`${id}-err`} role="alert">
                line {err.line}, column {err.column}: {err.message}
              </div>
            ) : null}
          </div>
        );
      })}
      {show.authorizer !== false ? <AuthorizerTable rules={draft.authorizer} onChange={(authorizer) => set({ authorizer })} /> : null}
    </div>
  );
}

const TEXT_FIELDS: { key: Exclude<keyof RequestDraft, 'operation' | 'groups' | 'dryRun' | 'extra'>; label: string; wide?: boolean }[] = [
  { key: 'group', label: 'group' },
  { key: 'version', label: 'version' },
  { key: 'resource', label: 'resource' },
  { key: 'subResource', label: 'subResource' },
  { key: 'kind', label: 'kind' },
  { key: 'namespace', label: 'namespace' },
  { key: 'name', label: 'name' },
  { key: 'username', label: 'userInfo.username', wide: true },
  { key: 'uid', label: 'userInfo.uid' },
];

export function RequestFields({ request: r, onChange }: { request: RequestDraft; onChange(r: RequestDraft): void }) {
  const set = (patch: Partial<RequestDraft>) => onChange({ ...r, ...patch });
  return (
    <fieldset className="ti-request">
      <legend>request</legend>
      <label className="ti-field">
        <span>operation</span>
        <select value={r.operation} data-input="request.operation" onChange={(e) => set({ operation: e.target.value as Operation })}>
          {REQUEST_OPERATIONS.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </label>
      {TEXT_FIELDS.map(({ key, label, wide }) => (
        <label key={key} className={`ti-field ${wide ? 'wide' : ''}`}>
          <span>{label}</span>
          <input
            type="text"
            value={r[key]}
            spellCheck={false}
            autoComplete="off"
            data-input={`request.${key}`}
            onChange={(e) => set({ [key]: e.target.value })}
          />
        </label>
      ))}
      <GroupsInput groups={r.groups} onChange={(groups) => set({ groups })} />
      {r.extra ? (
        <div className="ti-field wide" data-input="request.extra">
          <span>userInfo.extra</span>
          <code>{JSON.stringify(r.extra)}</code>{' '}
          <button type="button" className="link" onClick={() => set({ extra: undefined })}>
            remove
          </button>
        </div>
      ) : null}
      <label className="ti-field check">
        <input type="checkbox" checked={r.dryRun} data-input="request.dryRun" onChange={(e) => set({ dryRun: e.target.checked })} />
        <span>dryRun</span>
      </label>
    </fieldset>
  );
}

const splitList = (s: string) =>
  s
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);

/** Comma-separated groups: the text is kept while typing (a trailing comma stays). */
function GroupsInput({ groups, onChange }: { groups: string[]; onChange(g: string[]): void }) {
  const [text, setText] = useState(groups.join(', '));
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of groups from outside resets the text; text is what the user types
  useEffect(() => {
    if (splitList(text).join('\n') !== groups.join('\n')) setText(groups.join(', '));
    // Only a change of `groups` from outside resets the text; `text` itself is what the user types.
  }, [groups]);
  return (
    <label className="ti-field wide">
      <span>userInfo.groups (comma-separated)</span>
      <input
        type="text"
        value={text}
        spellCheck={false}
        autoComplete="off"
        data-input="request.groups"
        onChange={(e) => {
          setText(e.target.value);
          onChange(splitList(e.target.value));
        }}
      />
    </label>
  );
}

const DECISIONS: AuthorizerRule['decision'][] = ['allow', 'deny', 'noOpinion'];
const AUTH_COLS: (keyof AuthorizerRule)[] = ['verb', 'group', 'resource', 'namespace', 'name'];

export function AuthorizerTable({ rules, onChange }: { rules: AuthorizerRule[]; onChange(r: AuthorizerRule[]): void }) {
  const setRow = (i: number, patch: Partial<AuthorizerRule>) => onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="ti-authorizer">
      <div className="ti-sub">
        authorizer rules{' '}
        <span className="muted">
          (first match wins; no match = noOpinion; empty cell = any; a member of system:masters is allowed its own checks before any rule, as at the apiserver)
        </span>
      </div>
      {rules.length ? (
        <table>
          <thead>
            <tr>
              {AUTH_COLS.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
              <th scope="col">decision</th>
              <th scope="col">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r, i) => (
              <tr key={i}>
                {AUTH_COLS.map((c) => (
                  <td key={c}>
                    <input
                      type="text"
                      aria-label={`Rule ${i + 1} ${c}`}
                      value={String(r[c] ?? '')}
                      spellCheck={false}
                      autoComplete="off"
                      onChange={(e) => setRow(i, { [c]: e.target.value })}
                    />
                  </td>
                ))}
                <td>
                  <select
                    aria-label={`Rule ${i + 1} decision`}
                    value={r.decision}
                    onChange={(e) => setRow(i, { decision: e.target.value as AuthorizerRule['decision'] })}
                  >
                    {DECISIONS.map((d) => (
                      <option key={d}>{d}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <button type="button" className="icon danger" aria-label={`Remove rule ${i + 1}`} onClick={() => onChange(rules.filter((_, j) => j !== i))}>
                    ×
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <button
        type="button"
        className="small"
        onClick={() => onChange([...rules, { verb: 'get', group: '', resource: '', namespace: '', name: '', decision: 'allow' }])}
      >
        + Add authorizer rule
      </button>
    </div>
  );
}
