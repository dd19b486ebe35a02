/**
 * editsBetween: the path edits that turn one JSON value into another, the form applyEdits
 * (./edit.ts) takes a structured change in. Design: ./README.md (Edit).
 */
import type { PathSegment } from '../base/path';
import { deepEqual, isObject } from '../base/json';
import type { Edit } from './edit-types';

/**
 * The path edits that turn `before` into `after`, in an order applyEdits applies one by one:
 * objects by key; lists by index, except that items removed from or inserted into the middle
 * of a list (the rest equal) are removed or inserted, so the other items keep their text.
 */
export function editsBetween(before: unknown, after: unknown, prefix: readonly PathSegment[] = []): Edit[] {
  if (before === after) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    let p = 0;
    const n = Math.min(before.length, after.length);
    while (p < n && deepEqual(before[p], after[p])) p++;
    let q = 0;
    while (q < n - p && deepEqual(before[before.length - 1 - q], after[after.length - 1 - q])) q++;
    if (p + q === after.length && before.length > after.length) {
      const out: Edit[] = [];
      for (let i = before.length - q - 1; i >= p; i--) out.push({ path: [...prefix, i], value: undefined });
      return out;
    }
    if (p + q === before.length && after.length > before.length) {
      return after.slice(p, after.length - q).map((value, k) => ({ path: [...prefix, p + k], value, insert: true }));
    }
    const m = before.length - p - q;
    if (before.length === after.length && m >= 2) {
      // one item moved from one end of the differing run to the other (the form's Move up/down)
      const last = p + m - 1;
      const down = deepEqual(after[last], before[p]) && before.slice(p + 1, last + 1).every((x, k) => deepEqual(x, after[p + k]));
      if (down) return [{ path: [...prefix, p], value: before[p], moveTo: last }];
      const up = deepEqual(after[p], before[last]) && before.slice(p, last).every((x, k) => deepEqual(x, after[p + 1 + k]));
      if (up) return [{ path: [...prefix, last], value: before[last], moveTo: p }];
    }
    return indexwise(before, after, prefix);
  } else if (isObject(before) && isObject(after)) {
    // keys added before keys removed: a block mapping whose only key is replaced (clientConfig's
    // service by url) never becomes empty, which would be written `{}` and then filled in flow style
    const out: Edit[] = [];
    for (const k of Object.keys(before)) if (Object.hasOwn(after, k)) out.push(...editsBetween(before[k], after[k], [...prefix, k]));
    for (const k of Object.keys(after)) if (!Object.hasOwn(before, k)) out.push({ path: [...prefix, k], value: after[k] });
    for (const k of Object.keys(before)) if (!Object.hasOwn(after, k)) out.push({ path: [...prefix, k], value: undefined });
    return out;
  }
  return deepEqual(before, after) ? [] : [{ path: [...prefix], value: after }];
}

/** Lists item by item: the common indices diffed, then items added at the end or removed from it. */
export function indexwise(before: readonly unknown[], after: readonly unknown[], prefix: readonly PathSegment[]): Edit[] {
  const n = Math.min(before.length, after.length);
  const out: Edit[] = [];
  for (let i = 0; i < n; i++) out.push(...editsBetween(before[i], after[i], [...prefix, i]));
  for (let i = n; i < after.length; i++) out.push({ path: [...prefix, i], value: after[i] });
  for (let i = before.length - 1; i >= n; i--) out.push({ path: [...prefix, i], value: undefined });
  return out;
}
