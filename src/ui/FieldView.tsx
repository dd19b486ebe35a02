/**
 * The form, generated from the field registry: one FieldView per field,
 * recursing into objects and lists. Every control carries `data-path`.
 */
import { memo, useDeferredValue, useEffect, useState } from 'react';
import { VirtualList, VIRTUAL_ABOVE } from './virtual-list';
import type { Field, ListField, ObjectField } from '../k8s';
import type { PathSegment } from '../base/path';
import { formatPath } from '../base/path-format';
import { isObject } from '../base/json';
import { useWorkspace, workspace, type Workspace } from '../store';
import { BooleanControl, IntegerControl, StringControl } from './controls';
import { StringMapControl, TokenListControl } from './collections';
import { FieldMessages } from './FieldMessages';
import { domId } from './Labelled';
import { useForm } from './form-context';
import { newListItem } from './new-item';
import { MatchConditionsSummary } from './cel/MatchConditionsSummary';

export interface FieldViewProps {
  field: Field;
  path: readonly PathSegment[];
  value: unknown;
}

/** Path arrays are built anew by every parent render: equal segments are the same path. */
const samePath = (a: readonly PathSegment[], b: readonly PathSegment[]) => a === b || (a.length === b.length && a.every((s, i) => s === b[i]));

/**
 * memo's comparison for the views of the form: `path` by its segments, every other prop by
 * identity. The store shares unchanged branches of the object, so an edit re-renders only
 * the views on the way to the edited field (and the controls whose problems changed).
 */
function sameProps<P extends { path: readonly PathSegment[] }>(a: P, b: P): boolean {
  for (const k in a) if (k !== 'path' && !Object.is(a[k], b[k])) return false;
  return samePath(a.path, b.path);
}

export const FieldView = memo(function FieldView({ field, path, value }: FieldViewProps) {
  const { docId } = useForm();
  const p = formatPath(path);
  const onChange = (v: unknown) => workspace.getState().setField(docId, path, v);
  switch (field.type) {
    case 'string':
      return <StringControl field={field} path={p} value={value} onChange={onChange} />;
    case 'integer':
      return <IntegerControl field={field} path={p} value={value} onChange={onChange} />;
    case 'boolean':
      return <BooleanControl field={field} path={p} value={value} onChange={onChange} />;
    case 'stringList':
      return <TokenListControl field={field} path={p} value={value} onChange={onChange} />;
    case 'stringMap':
      return <StringMapControl field={field} path={p} value={value} onChange={onChange} />;
    case 'object':
      return <ObjectSection field={field} path={path} value={value} />;
    case 'list':
      return <ListSection field={field} path={path} value={value} />;
  }
}, sameProps);

/** The children of an object that the form shows (server-populated and hidden ones are kept but not shown). */
export function visibleFields(fields: readonly Field[], value: unknown): Field[] {
  const obj = isObject(value) ? value : {};
  return fields.filter((f) => !f.server && !f.hidden && !f.hideIf?.oneOf.includes(obj[f.hideIf.sibling] as string));
}

function Fields({ fields, path, value }: { fields: readonly Field[]; path: readonly PathSegment[]; value: unknown }) {
  const obj = isObject(value) ? value : {};
  return (
    <>
      {visibleFields(fields, value).map((f) => (
        <FieldView key={f.name} field={f} path={[...path, f.name]} value={obj[f.name]} />
      ))}
    </>
  );
}

/** "Exactly one of url or service": a choice, then the chosen branch's fields. */
function OneOfChoice({ field, path, value, group }: { field: ObjectField; path: readonly PathSegment[]; value: unknown; group: readonly string[] }) {
  const { docId, readOnly } = useForm();
  const obj = isObject(value) ? value : {};
  const chosen = group.filter((n) => n in obj && obj[n] !== null);
  const p = formatPath(path);
  const choose = (name: string) => {
    const next: Record<string, unknown> = { ...obj };
    for (const n of group) if (n !== name) delete next[n];
    const f = field.fields.find((x) => x.name === name);
    if (!(name in next) || next[name] === null) next[name] = f?.type === 'object' ? {} : '';
    workspace.getState().setField(docId, path, next);
  };
  return (
    <div role="radiogroup" aria-label={`${field.label}: choose one`} className="one-of" data-path={`${p}`}>
      {group.map((n) => {
        const f = field.fields.find((x) => x.name === n);
        return (
          <label key={n} className="radio">
            <input type="radio" name={domId(docId, p, '-oneof')} value={n} checked={chosen.includes(n)} disabled={readOnly} onChange={() => choose(n)} />
            {f?.label ?? n}
          </label>
        );
      })}
      {chosen.length > 1 ? <span className="one-of-note">Both are set: the apiserver requires exactly one.</span> : null}
    </div>
  );
}

export function ObjectSection({ field, path, value }: { field: ObjectField; path: readonly PathSegment[]; value: unknown }) {
  const p = formatPath(path);
  const obj = isObject(value) ? value : {};
  const oneOfNames = new Set(field.oneOf?.flat() ?? []);
  const chosenOneOf = field.fields.filter((f) => oneOfNames.has(f.name) && f.name in obj && obj[f.name] !== null);
  const rest = field.fields.filter((f) => !oneOfNames.has(f.name));
  return (
    <fieldset className="object" data-path={p}>
      <legend title={field.help}>
        {field.label} <code className="field-name">{field.name}</code>
        {field.default !== undefined && value === undefined ? <span className="default"> (unset — default {JSON.stringify(field.default)})</span> : null}
      </legend>
      <p className="help">{field.help}</p>
      <FieldMessages id={`${p}-problems`} path={p} />
      {field.oneOf?.map((group) => (
        <OneOfChoice key={group.join('|')} field={field} path={path} value={value} group={group} />
      ))}
      <Fields fields={chosenOneOf} path={path} value={value} />
      <Fields fields={rest} path={path} value={value} />
    </fieldset>
  );
}

function itemTitle(field: ListField, item: unknown, i: number): string {
  const key = field.itemKey && isObject(item) ? item[field.itemKey] : undefined;
  return typeof key === 'string' && key ? key : `${field.item.label} ${i + 1}`;
}

export function ListSection({ field, path, value }: { field: ListField; path: readonly PathSegment[]; value: unknown }) {
  const { docId, readOnly } = useForm();
  const p = formatPath(path);
  const items = Array.isArray(value) ? value : [];
  // A form's first render shows each list's first element without its fields (below the fold
  // on the first screen); the rest follows in one background render (as the sidebar's counts
  // do), so the first form is on screen, and answers input, sooner. A focus request into the
  // list (a step or problem that opened this document) renders it all at once: the form
  // focuses its field right after the first render.
  const all = useDeferredValue(true, false);
  const focused = useWorkspace((s) => focusWithin(s, docId, p) !== undefined);
  const complete = all || focused;
  const shown = complete ? items : items.slice(0, 1);
  const ws = () => workspace.getState();
  return (
    <section className="list" data-path={p} aria-label={field.label}>
      <h3 className="list-title" title={field.help}>
        {field.label} <code className="field-name">{field.name}</code> <span className="count">{items.length}</span>
      </h3>
      <p className="help">{field.help}</p>
      <FieldMessages id={`${p}-problems`} path={p} />
      {field.name === 'matchConditions' ? <MatchConditionsSummary path={path} value={value} /> : null}
      {complete && items.length > VIRTUAL_ABOVE ? (
        <VirtualItems field={field} path={path} items={items} />
      ) : (
        shown.map((item, i) => (
          <ListItem
            key={i}
            field={field}
            path={path}
            index={i}
            item={item}
            last={i === items.length - 1}
            startOpen={items.length <= COLLAPSE_ABOVE}
            withFields={complete}
          />
        ))
      )}
      {!readOnly ? (
        <button type="button" className="small add" data-path={p} onClick={() => ws().insertItem(docId, path, newListItem(field, items))}>
          + Add {field.item.label.toLowerCase()}
        </button>
      ) : null}
    </section>
  );
}

/** Lists longer than this start with their elements collapsed. */
export const COLLAPSE_ABOVE = 8;

/** The index of the element of list `listPath` that the workspace's focus request is in. */
const focusIndexIn = (s: Workspace, docId: string, listPath: string): number | undefined => {
  const f = focusWithin(s, docId, listPath);
  const m = f && /^\[(\d+)\]/.exec(f.path.slice(listPath.length));
  return m ? Number(m[1]) : undefined;
};

/** A long list's elements, only those near the view rendered (./virtual-list.tsx). */
function VirtualItems({ field, path, items }: { field: ListField; path: readonly PathSegment[]; items: readonly unknown[] }) {
  const { docId } = useForm();
  const p = formatPath(path);
  const reveal = useWorkspace((s) => focusIndexIn(s, docId, p));
  // Which elements the user opened: an element scrolled out of view is unmounted and comes back as it was.
  // (by index: an insert or delete moves elements, so the remembered states go with it)
  const [opened] = useState(() => ({ length: items.length, byIndex: new Map<number, boolean>() }));
  if (opened.length !== items.length) {
    opened.length = items.length;
    opened.byIndex.clear();
  }
  const render = (item: unknown, i: number) => (
    <ListItem key={i} field={field} path={path} index={i} item={item} last={i === items.length - 1} startOpen={false} withFields opened={opened.byIndex} />
  );
  return <VirtualList items={items} renderItem={render} reveal={reveal} deps={[field, p, docId]} />;
}

/** Is `path` the element at `itemPath` or a field inside it? */
const isWithin = (path: string, itemPath: string) => path === itemPath || path.startsWith(`${itemPath}.`) || path.startsWith(`${itemPath}[`);

/** The workspace's focus request when it is for `path` or a field inside it, in document `docId`. */
const focusWithin = (s: Workspace, docId: string, path: string) => (s.focus && s.focus.docId === docId && isWithin(s.focus.path, path) ? s.focus : undefined);

export interface ListItemProps {
  field: ListField;
  path: readonly PathSegment[];
  index: number;
  item: unknown;
  last: boolean;
  /** Long lists start collapsed: a 1,000-webhook configuration must stay responsive. */
  startOpen: boolean;
  /** False in a form's first render: the header only, the fields follow (see ListSection). */
  withFields: boolean;
  /** In a virtualised list: which elements the user opened or closed (an element scrolled out of view is unmounted). */
  opened?: Map<number, boolean>;
}

/** One element of a list: a header with its title and actions, and its fields (collapsible). */
export const ListItem = memo(function ListItem({ field, path, index: i, item, last, startOpen, withFields, opened }: ListItemProps) {
  const { docId, readOnly } = useForm();
  const ip = [...path, i];
  const itemPath = formatPath(ip);
  const title = itemTitle(field, item, i);
  // A request to focus a field inside a collapsed element opens it. Only the requests for this
  // element are selected, so a request re-renders this element and not the whole list.
  const focusSeq = useWorkspace((s) => focusWithin(s, docId, itemPath)?.seq);
  const [open, setOpenState] = useState(() => opened?.get(i) ?? (startOpen || focusSeq !== undefined));
  const setOpen = (o: boolean) => {
    opened?.set(i, o);
    setOpenState(o);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: opens on a new focus request only; setOpen is remade each render and would reopen the element on every one
  useEffect(() => {
    if (focusSeq !== undefined) setOpen(true);
  }, [focusSeq]);
  const ws = () => workspace.getState();
  const bodyId = domId(docId, itemPath, '-body');
  return (
    <div className="list-item" data-path={itemPath}>
      <div className="item-head">
        <button type="button" className="item-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> <span className="item-title">{title}</span>
        </button>
        {!readOnly ? (
          <span className="item-actions">
            {field.ordered ? (
              <>
                <button type="button" className="icon" aria-label={`Move ${title} up`} disabled={i === 0} onClick={() => ws().moveItem(docId, path, i, i - 1)}>
                  ↑
                </button>
                <button type="button" className="icon" aria-label={`Move ${title} down`} disabled={last} onClick={() => ws().moveItem(docId, path, i, i + 1)}>
                  ↓
                </button>
              </>
            ) : null}
            <button
              type="button"
              className="icon text"
              aria-label={`Duplicate ${title}`}
              onClick={() => ws().insertItem(docId, path, duplicateItem(field, item), i + 1)}
            >
              Duplicate
            </button>
            <button type="button" className="icon danger" aria-label={`Delete ${title}`} onClick={() => ws().removeItem(docId, path, i)}>
              ×
            </button>
          </span>
        ) : null}
      </div>
      <div id={bodyId} hidden={!open}>
        <FieldMessages id={`${itemPath}-problems`} path={itemPath} />
        {open && withFields ? (
          field.item.oneOf ? (
            <ObjectSection field={field.item} path={ip} value={item} />
          ) : (
            <Fields fields={field.item.fields} path={ip} value={item} />
          )
        ) : null}
      </div>
    </div>
  );
}, sameProps);

/** A copy of a list element; a name key gets a "-copy" suffix so it stays unique. */
function duplicateItem(field: ListField, item: unknown): unknown {
  const copy = structuredClone(item);
  if (field.itemKey && isObject(copy) && typeof copy[field.itemKey] === 'string') {
    const v = copy[field.itemKey] as string;
    copy[field.itemKey] = field.itemKey === 'name' && v.includes('.') ? v.replace(/^([^.]*)/, '$1-copy') : `${v}-copy`;
  }
  return copy;
}
