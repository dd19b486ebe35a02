/**
 * What an edited text must read back as: the object with each edit applied as a value (setAt,
 * insertAt, moveAt), and the check applyEdits (./edit.ts) makes by parsing a result that is more
 * than scalars replaced in place. Design: ./README.md (Edit).
 */
import type { PathSegment } from '../base/path';
import { deepEqual, isObject, setOwn } from '../base/json';
import { isError, load, type Loaded } from './edit-tree';
import { Refused } from './edit-types';

/** `text` parsed, refused unless it reads back as `expected`. */
export function readBack(text: string, expected: unknown): Loaded {
  const next = load(text);
  if (isError(next)) throw new Refused(`The edit would leave YAML that does not parse (${next.message}); nothing was changed`);
  if (!deepEqual(next.object, expected))
    throw new Refused('The text cannot be edited exactly here (an alias, a merge key or a tag makes the result differ); nothing was changed');
  return next;
}

export function moveAt(v: unknown, path: readonly PathSegment[], to: number): unknown {
  const list = getAt(v, path.slice(0, -1));
  if (!Array.isArray(list)) return v;
  const copy = [...list];
  const [item] = copy.splice(Number(path[path.length - 1]), 1);
  copy.splice(to, 0, item);
  return setAt(v, path.slice(0, -1), copy);
}

export function insertAt(v: unknown, path: readonly PathSegment[], value: unknown): unknown {
  const list = getAt(v, path.slice(0, -1));
  if (!Array.isArray(list)) return v;
  const copy = [...list];
  copy.splice(Number(path[path.length - 1]), 0, value);
  return setAt(v, path.slice(0, -1), copy);
}

export function nest(segs: readonly PathSegment[], value: unknown, at: string): unknown {
  let v = value;
  for (let i = segs.length - 1; i >= 0; i--) {
    const s = segs[i]!;
    if (typeof s === 'number') {
      if (s !== 0) throw new Refused(`${at}: index ${s} of a list that does not exist yet`);
      v = [v];
    } else {
      const o: Record<string, unknown> = {};
      setOwn(o, s, v);
      v = o;
    }
  }
  return v;
}

export function getAt(v: unknown, path: readonly PathSegment[]): unknown {
  let c = v;
  for (const s of path) c = Array.isArray(c) ? c[Number(s)] : isObject(c) ? c[String(s)] : undefined;
  return c;
}

/** `v` with the value at `path` set (undefined: removed); what the edited text must read back as. */
export function setAt(v: unknown, path: readonly PathSegment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const i = Number(head);
    const copy = [...v];
    if (value === undefined && rest.length === 0) copy.splice(i, 1);
    else copy[i] = setAt(copy[i], rest, value);
    return copy;
  }
  if (isObject(v)) {
    const copy: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(copy, k, v[k]);
    const child = setAt(v[String(head)], rest, value);
    if (child === undefined) delete copy[String(head)];
    else setOwn(copy, String(head), child);
    return copy;
  }
  return value === undefined ? v : nest(path, value, '');
}
