/**
 * Plain JSON values (decoded YAML, request bodies): readers that never throw on
 * odd shapes, structural equality, deep copies, and the Go string functions the
 * apiserver applies to them. The one home of these helpers for the whole core
 * and the UI; Go-decoder-style readers for validation (absent vs wrong type)
 * are in ./validation/values.ts.
 */

export type Obj = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value if it is a string, else ''. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The strings of a list, in order ([] when it is not a list). */
export const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The value if it is a list, else []. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The value if it is an object, else {}. */
export const obj = (v: unknown): Obj => (isObject(v) ? v : {});

/** The objects of a list, in order ([] when it is not a list). */
export const objList = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** metadata.labels of an object as a string map ({} when absent). */
export function labelsOf(o: unknown): Record<string, string> {
  const labels = obj(obj(obj(o).metadata).labels);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') out[k] = v;
  return out;
}

export const nameOf = (o: unknown): string => str(obj(obj(o).metadata).name);
export const kindOf = (o: unknown): string => str(obj(o).kind);
export const namespaceOf = (o: unknown): string => str(obj(obj(o).metadata).namespace);

/** Set `key` as an own, enumerable data property (a `__proto__` key too, never the prototype). */
export function setOwn(o: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** Deep structural equality of JSON values (object key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * deepEqual with key order counting (what valueKey compares, without building its strings): two
 * values JSON.stringify writes alike. NaN equals nothing, not even itself (a caller that reuses
 * an answer only on equality then asks again).
 */
export function equalInOrder(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalInOrder(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || !equalInOrder((a as Obj)[ka[i]!], (b as Obj)[kb[i]!])) return false;
  return true;
}

/**
 * A string that is the same for two values only if they are deepEqual (key order counts, so
 * deep-equal objects written in another order may differ): a Map key for memos of what a
 * comparison of values answers. Safe for every JSON value, bigint included.
 */
export function valueKey(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return String(v);
    case 'bigint':
      return `${v}n`;
    case 'boolean':
      return v ? 't' : 'f';
    case 'object':
      if (v === null) return 'null';
      if (Array.isArray(v)) return `[${v.map(valueKey).join(',')}]`;
      return `{${Object.keys(v)
        .map((k) => `${JSON.stringify(k)}:${valueKey((v as Obj)[k])}`)
        .join(',')}}`;
    default:
      return typeof v;
  }
}

/**
 * `next` with every subtree that equals the one at the same place in `prev` (same keys in the
 * same order, same values) replaced by `prev`'s: after a re-parse of a text that changed in one
 * place, unchanged subtrees keep their identity, so what is memoised per object (validation and
 * lints per webhook) is found again. List elements are matched by index from the start and, when
 * the lengths differ (an element inserted or removed), from the end too. Values are immutable.
 */
export function reuseUnchanged<T>(prev: unknown, next: T): T {
  return share(prev, next).value as T;
}

function share(prev: unknown, next: unknown): { value: unknown; same: boolean } {
  if (prev === next) return { value: prev, same: true };
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return { value: next, same: false };
    const out = next.slice();
    let same = prev.length === next.length;
    let changed = false;
    const head = Math.min(prev.length, next.length);
    let i = 0;
    for (; i < head; i++) {
      const r = share(prev[i], next[i]);
      if (!r.same) {
        same = false;
        if (prev.length !== next.length) break;
      }
      if (r.value !== next[i]) (out[i] = r.value), (changed = true);
    }
    if (prev.length !== next.length)
      for (let j = 1; j <= Math.min(prev.length, next.length) - i; j++) {
        const r = share(prev[prev.length - j], next[next.length - j]);
        if (r.value !== next[next.length - j]) (out[next.length - j] = r.value), (changed = true);
        if (!r.same) break;
      }
    return same ? { value: prev, same: true } : { value: changed ? out : next, same: false };
  }
  if (isObject(next)) {
    if (!isObject(prev)) return { value: next, same: false };
    const keys = Object.keys(next);
    const prevKeys = Object.keys(prev);
    let same = keys.length === prevKeys.length;
    let out: Obj | undefined;
    keys.forEach((k, i) => {
      if (same && prevKeys[i] !== k) same = false;
      if (!Object.hasOwn(prev, k)) return void (same = false);
      const r = share(prev[k], next[k]);
      if (!r.same) same = false;
      if (r.value !== next[k]) setOwn((out ??= { ...next }), k, r.value);
    });
    return same ? { value: prev, same: true } : { value: out ?? next, same: false };
  }
  return { value: next, same: Object.is(prev, next) };
}

/** A deep copy of a JSON value (undefined stays undefined). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Go's `len(s)` for a string: its UTF-8 byte length (a lone surrogate counts 3, as its U+FFFD replacement). */
export function byteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      n += 2; // a surrogate pair (2 UTF-16 units) is 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * Go's unicode.IsSpace: ASCII white space, U+0085 (NEL), U+00A0 and the
 * Unicode White_Space characters — unlike JavaScript's \s, without U+FEFF.
 */
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const GO_TRIM = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');
const GO_SPACE_CHAR = new RegExp(`[${GO_SPACE}]`);

/** Go's strings.TrimSpace (the common case, nothing to trim, looks at the two ends only). */
export const trimSpace = (s: string): string => (s !== '' && !GO_SPACE_CHAR.test(s[0]!) && !GO_SPACE_CHAR.test(s[s.length - 1]!) ? s : s.replace(GO_TRIM, ''));
