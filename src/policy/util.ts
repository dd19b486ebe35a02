/** Small value helpers shared by the policy modules (plain JSON values in, no throwing). */

export type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const obj = (v: unknown): Obj => (isObject(v) ? v : {});

/** metadata.labels of an object as a string map ({} when absent). */
export function labelsOf(o: unknown): Record<string, string> {
  const labels = obj(obj(obj(o).metadata).labels);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') out[k] = v;
  return out;
}

export const nameOf = (o: unknown): string => str(obj(obj(o).metadata).name);
export const namespaceOf = (o: unknown): string => str(obj(obj(o).metadata).namespace);

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

/** A deep copy of a JSON value. */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** UTF-8 length in bytes, as Go's len(string). */
export function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Go's strings.TrimSpace (Unicode white space). */
export const trimSpace = (s: string): string => s.replace(/^[\s\u0085]+|[\s\u0085]+$/gu, '');
