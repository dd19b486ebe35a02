/**
 * Immutable edits of plain JSON-like objects by field path segments. Used by
 * the form: every edit returns a new object and shares untouched branches.
 */
import type { PathSegment } from '../base/path';
import { isObject } from '../base/json';

type Json = unknown;

/** The value at a path, or undefined. */
export function getIn(value: Json, path: readonly PathSegment[]): Json {
  let cur = value;
  for (const seg of path) {
    if (typeof seg === 'number') cur = Array.isArray(cur) ? cur[seg] : undefined;
    else cur = isObject(cur) ? cur[seg] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * Set the value at a path, creating objects and lists on the way.
 * `undefined` removes the key (or the list element).
 */
export function setIn(value: Json, path: readonly PathSegment[], next: Json): Json {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...value] : [];
    const child = setIn(list[head], rest, next);
    if (child === undefined && rest.length === 0) list.splice(head, 1);
    else list[head] = child;
    return list;
  }
  const obj: Record<string, unknown> = isObject(value) ? { ...value } : {};
  const child = setIn(obj[head], rest, next);
  if (child === undefined) delete obj[head];
  else obj[head] = child;
  return obj;
}

/** Insert an element into the list at a path (at the end when index is omitted). */
export function insertAt(value: Json, listPath: readonly PathSegment[], element: Json, index?: number): Json {
  const list = getIn(value, listPath);
  const next = Array.isArray(list) ? [...list] : [];
  next.splice(index ?? next.length, 0, element);
  return setIn(value, listPath, next);
}

/** Remove the element at index from the list at a path. */
export function removeAt(value: Json, listPath: readonly PathSegment[], index: number): Json {
  const list = getIn(value, listPath);
  if (!Array.isArray(list)) return value;
  return setIn(
    value,
    listPath,
    list.filter((_, i) => i !== index),
  );
}

/** Move the element at `from` to position `to` in the list at a path. */
export function moveAt(value: Json, listPath: readonly PathSegment[], from: number, to: number): Json {
  const list = getIn(value, listPath);
  if (!Array.isArray(list) || to < 0 || to >= list.length || from === to) return value;
  const next = [...list];
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved);
  return setIn(value, listPath, next);
}

/** A deep copy of a JSON-like value. */
export const clone = <T>(value: T): T => structuredClone(value);
