/**
 * RFC 6902 JSON Patch (add, remove, replace, move, copy, test) over plain JSON values,
 * with RFC 6901 JSON Pointers (`~1` = `/`, `~0` = `~`), and a structural diff.
 *
 * Behaviour follows gopkg.in/evanphx/json-patch.v4 (v4.13) as the apiserver uses it for
 * MutatingAdmissionPolicy JSON patches (pkg/admission/plugin/policy/mutating/patch/json_patch.go)
 * and webhook patches (webhook/mutating/dispatcher.go): operations apply in order to a copy; the
 * first failing operation fails the whole patch; a failed `test` means "do not apply this patch"
 * (the object is returned unchanged, without an error). Its quirks are kept: `replace` of a key
 * an object lacks sets it (an object's get never fails there). The errors of remove, replace and
 * move are its messages; others are modelled on them.
 */
import { cloneJson, deepEqual, isObject } from './json';

export interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

export type JsonPatchResult = { ok: true; value: unknown; testFailed?: { index: number; path: string } } | { ok: false; error: string; index: number };

/** Splits a JSON Pointer into unescaped tokens; undefined when it is not a pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export const escapeToken = (t: string): string => t.replace(/~/g, '~0').replace(/\//g, '~1');
export const formatPointer = (tokens: readonly (string | number)[]): string => tokens.map((t) => `/${escapeToken(String(t))}`).join('');

type Node = Record<string, unknown> | unknown[];
const isContainer = (v: unknown): v is Node => Array.isArray(v) || isObject(v);

/** strconv.Atoi's numbers (a sign, decimal digits, leading zeros allowed); undefined where it errs, with its words. */
function atoi(key: string): number | { error: string } {
  return /^[+-]?[0-9]+$/.test(key) ? Number(key) : { error: `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax` };
}
const invalidIndex = (i: number) => `Unable to access invalid index: ${i}: invalid index referenced`;

/**
 * An array's index for get, set and remove (partialArray's, SupportNegativeIndices on: -1 is the
 * last), or its error: `upper` checks the end (get and remove do, set does not).
 */
function arrayIndexOf(a: readonly unknown[], key: string, upper: boolean): number | { error: string } {
  const i = atoi(key);
  if (typeof i !== 'number') return i;
  if (i < 0 && i < -a.length) return { error: invalidIndex(i) };
  const at = i < 0 ? i + a.length : i;
  return upper && at >= a.length ? { error: invalidIndex(at) } : at;
}

/** partialDoc/partialArray get: an object's missing key is undefined, never an error; an array's index must be there. */
function getIn(c: Node, key: string): { value: unknown } | { error: string } {
  if (!Array.isArray(c)) return { value: Object.hasOwn(c, key) ? c[key] : undefined };
  const i = arrayIndexOf(c, key, true);
  return typeof i === 'number' ? { value: c[i] } : i;
}

/** The path split as json-patch v4's findObject splits it: every segment after the first, the last the key; undefined with fewer than two. */
function splitPath(path: string): { parts: string[]; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  const decode = (t: string) => t.replace(/~1/g, '/').replace(/~0/g, '~');
  return { parts: split.slice(1, -1).map(decode), key: decode(split[split.length - 1]!) };
}

/**
 * Applies a patch to a copy of `doc`: copied on write, only the containers on the paths the
 * operations change (a webhook's label on a Deployment copied the whole object before); the rest
 * is shared with `doc`, so neither may be changed in place afterwards (nothing here does).
 * Each operation is json-patch v4's (patch.go), its checks and its words. `json`: the patch was
 * read from JSON (a webhook's answer, a patch request), where a null value is no value.
 */
export function applyJsonPatch(doc: unknown, ops: readonly JsonPatchOp[], options: { json?: boolean } = {}): JsonPatchResult {
  let root: unknown = doc;
  /** The containers this patch copied: changed in place from then on. */
  const own = new WeakSet<object>();
  const owned = <T extends Node>(v: T): T => {
    if (own.has(v)) return v;
    const c = (Array.isArray(v) ? v.slice() : { ...v }) as T;
    own.add(c);
    return c;
  };
  /** findObject: the container of the path's key (copied, with every container above it, where `write`), or undefined where a part is not there. */
  const findObject = (path: string, write: boolean): { c: Node; key: string } | undefined => {
    const at = splitPath(path);
    if (!at || !isContainer(root)) return undefined;
    let cur: Node = write ? owned(root) : root;
    if (write) root = cur;
    for (const part of at.parts) {
      const got = getIn(cur, part);
      if ('error' in got || !isContainer(got.value)) return undefined;
      const next: Node = write ? owned(got.value) : got.value;
      if (write) {
        if (Array.isArray(cur)) cur[arrayIndexOf(cur, part, true) as number] = next;
        else cur[part] = next;
      }
      cur = next;
    }
    return { c: cur, key: at.key };
  };
  /** partialDoc/partialArray add, or its error. */
  const addIn = (c: Node, key: string, value: unknown): string | undefined => {
    if (!Array.isArray(c)) {
      c[key] = value;
      return undefined;
    }
    if (key === '-') {
      c.push(value);
      return undefined;
    }
    const i = atoi(key);
    if (typeof i !== 'number') return `value was not a proper array index: '${key}': ${i.error}`;
    const size = c.length + 1;
    if (i >= size || i < -size) return invalidIndex(i);
    c.splice(i < 0 ? i + size : i, 0, value);
    return undefined;
  };
  /** partialDoc/partialArray remove, or its error. */
  const removeIn = (c: Node, key: string): string | undefined => {
    if (!Array.isArray(c)) {
      if (!Object.hasOwn(c, key)) return `Unable to remove nonexistent key: ${key}: missing value`;
      delete c[key];
      return undefined;
    }
    const i = arrayIndexOf(c, key, true);
    if (typeof i !== 'number') return i.error;
    c.splice(i, 1);
    return undefined;
  };
  const value = (op: JsonPatchOp) => cloneJson(op.value ?? null);

  for (let index = 0; index < ops.length; index++) {
    const op = ops[index]!;
    let err: string | undefined;
    switch (op.op) {
      case 'add': {
        const at = findObject(op.path, true);
        if (!at) err = `add operation does not apply: doc is missing path: "${op.path}": missing value`;
        else {
          const e = addIn(at.c, at.key, value(op));
          if (e) err = `error in add for path: '${op.path}': ${e}`;
        }
        break;
      }
      case 'remove': {
        const at = findObject(op.path, true);
        if (!at) err = `remove operation does not apply: doc is missing path: "${op.path}": missing value`;
        else {
          const e = removeIn(at.c, at.key);
          if (e) err = `error in remove for path: '${op.path}': ${e}`;
        }
        break;
      }
      case 'replace': {
        if (op.path === '') {
          if (!isContainer(op.value)) err = 'replace operation value must be object or array';
          else root = value(op);
          break;
        }
        const at = findObject(op.path, true);
        if (!at) err = `replace operation does not apply: doc is missing path: ${op.path}: missing value`;
        else if ('error' in getIn(at.c, at.key)) err = `replace operation does not apply: doc is missing key: ${op.path}: missing value`;
        else if (Array.isArray(at.c)) at.c[arrayIndexOf(at.c, at.key, false) as number] = value(op);
        else at.c[at.key] = value(op); // an object's missing key too: its get never fails
        break;
      }
      case 'move': {
        const from = findObject(op.from ?? '', true);
        if (!from) {
          err = `move operation does not apply: doc is missing from path: ${op.from ?? ''}: missing value`;
          break;
        }
        const got = getIn(from.c, from.key);
        const e = 'error' in got ? got.error : removeIn(from.c, from.key);
        if (e || 'error' in got) {
          err = `error in move for path: '${from.key}': ${e}`;
          break;
        }
        const to = findObject(op.path, true);
        if (!to) err = `move operation does not apply: doc is missing destination path: ${op.path}: missing value`;
        else {
          const added = addIn(to.c, to.key, got.value);
          if (added) err = `error in move for path: '${op.path}': ${added}`;
        }
        break;
      }
      case 'copy': {
        const from = findObject(op.from ?? '', false);
        if (!from) {
          err = `copy operation does not apply: doc is missing from path: ${op.from ?? ''}: missing value`;
          break;
        }
        const got = getIn(from.c, from.key);
        if ('error' in got) {
          err = `error in copy for from: '${op.from ?? ''}': ${got.error}`;
          break;
        }
        const to = findObject(op.path, true);
        if (!to) err = `copy operation does not apply: doc is missing destination path: ${op.path}: missing value`;
        else {
          // an object's missing key copies as null (its get gives nil)
          const added = addIn(to.c, to.key, cloneJson(got.value ?? null));
          if (added) err = `error while adding value during copy: ${added}`;
        }
        break;
      }
      case 'test': {
        let actual: { value: unknown } | { error: string } | undefined;
        if (op.path === '') actual = { value: root };
        else {
          const at = findObject(op.path, false);
          if (!at) {
            err = `test operation does not apply: is missing path: ${op.path}: missing value`;
            break;
          }
          actual = getIn(at.c, at.key);
          if ('error' in actual) {
            err = `error in test for path: '${op.path}': ${actual.error}`;
            break;
          }
        }
        // a missing value passes only a test with no value; a present one never passes one without. A patch
        // read from JSON (`options.json`: a webhook's, a request's) has no value where it says null (Go
        // decodes null into a nil *json.RawMessage); a policy's CEL null is the value null (json_patch.go)
        const expected = options.json && op.value === null ? undefined : op.value;
        const passes = actual.value === undefined ? expected === undefined : expected !== undefined && deepEqual(actual.value, expected);
        // ErrTestFailed: the policy plugin applies nothing (json_patch.go), a webhook's patch fails (the caller says)
        if (!passes) return { ok: true, value: doc, testFailed: { index, path: op.path } };
        break;
      }
      default:
        err = `Unexpected kind: ${op.op}`;
    }
    if (err) return { ok: false, index, error: err };
  }
  return { ok: true, value: root };
}

export interface DiffEntry {
  /** JSON Pointer of the changed location. */
  path: string;
  op: 'add' | 'remove' | 'replace';
  before?: unknown;
  after?: unknown;
}

/** Structural diff: objects by key, arrays by index (common prefix, then added/removed tail). */
export function diffJson(before: unknown, after: unknown, tokens: (string | number)[] = []): DiffEntry[] {
  if (deepEqual(before, after)) return [];
  const out: DiffEntry[] = [];
  if (isObject(before) && isObject(after)) {
    for (const k of Object.keys(before)) {
      if (!Object.hasOwn(after, k)) out.push({ path: formatPointer([...tokens, k]), op: 'remove', before: before[k] });
      else out.push(...diffJson(before[k], after[k], [...tokens, k]));
    }
    for (const k of Object.keys(after)) if (!Object.hasOwn(before, k)) out.push({ path: formatPointer([...tokens, k]), op: 'add', after: after[k] });
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.min(before.length, after.length);
    for (let i = 0; i < n; i++) out.push(...diffJson(before[i], after[i], [...tokens, i]));
    for (let i = n; i < after.length; i++) out.push({ path: formatPointer([...tokens, i]), op: 'add', after: after[i] });
    for (let i = before.length - 1; i >= n; i--) out.push({ path: formatPointer([...tokens, i]), op: 'remove', before: before[i] });
    return out;
  }
  if (before === undefined) return [{ path: formatPointer(tokens), op: 'add', after }];
  if (after === undefined) return [{ path: formatPointer(tokens), op: 'remove', before }];
  return [{ path: formatPointer(tokens), op: 'replace', before, after }];
}
