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

const MISSING = Symbol('missing');

function get(doc: unknown, tokens: readonly string[]): unknown {
  let cur: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t)) return MISSING;
      const i = Number(t);
      if (i >= cur.length) return MISSING;
      cur = cur[i];
    } else if (isObject(cur)) {
      if (!Object.hasOwn(cur, t)) return MISSING;
      cur = cur[t];
    } else return MISSING;
  }
  return cur;
}

type Container = { parent: Record<string, unknown> | unknown[]; key: string };
const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => Array.isArray(v) || isObject(v);

function arrayIndex(key: string, length: number, allowEnd: boolean): number | undefined {
  if (key === '-' && allowEnd) return length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
  const i = Number(key);
  return i < length || (allowEnd && i === length) ? i : undefined;
}

/**
 * Applies a patch to a copy of `doc`: copied on write, only the containers on the paths the
 * operations change (a webhook's label on a Deployment copied the whole object before); the rest
 * is shared with `doc`, so neither may be changed in place afterwards (nothing here does).
 */
export function applyJsonPatch(doc: unknown, ops: readonly JsonPatchOp[]): JsonPatchResult {
  let root: unknown = doc;
  /** The containers this patch copied: changed in place from then on. */
  const own = new WeakSet<object>();
  const owned = <T extends Record<string, unknown> | unknown[]>(v: T): T => {
    if (own.has(v)) return v;
    const c = (Array.isArray(v) ? v.slice() : { ...v }) as T;
    own.add(c);
    return c;
  };
  /** The container of the last token, copied (with every container above it) where this patch does not own it yet. */
  const containerOf = (tokens: readonly string[]): Container | undefined => {
    if (!isContainer(root)) return undefined;
    let cur = owned(root);
    root = cur;
    for (let i = 0; i < tokens.length - 1; i++) {
      const t = tokens[i]!;
      if (Array.isArray(cur)) {
        if (!/^(0|[1-9][0-9]*)$/.test(t)) return undefined;
        const k = Number(t);
        const next = cur[k];
        if (k >= cur.length || !isContainer(next)) return undefined;
        cur = cur[k] = owned(next);
      } else {
        const next = cur[t];
        if (!Object.hasOwn(cur, t) || !isContainer(next)) return undefined;
        cur = cur[t] = owned(next);
      }
    }
    return { parent: cur, key: tokens[tokens.length - 1]! };
  };
  const add = (tokens: string[], value: unknown, opName: string, path: string): string | undefined => {
    if (tokens.length === 0) {
      root = value;
      return undefined;
    }
    const c = containerOf(tokens);
    if (!c) return `${opName} operation does not apply: doc is missing path: "${path}": missing value`;
    if (Array.isArray(c.parent)) {
      const i = arrayIndex(c.key, c.parent.length, true);
      if (i === undefined) {
        const invalid = `Unable to access invalid index: ${c.key}: invalid index referenced`;
        return opName === 'copy' ? `error while adding value during copy: ${invalid}` : `error in ${opName} for path: '${path}': ${invalid}`;
      }
      c.parent.splice(i, 0, value);
    } else c.parent[c.key] = value;
    return undefined;
  };
  /** Removes the value at `tokens`: json-patch v4's container remove; its error without the operation's words (`missing`: the container is). */
  const remove = (tokens: string[]): { value: unknown } | { missing: true } | { error: string } => {
    if (tokens.length === 0) return { missing: true };
    const c = containerOf(tokens);
    if (!c) return { missing: true };
    if (Array.isArray(c.parent)) {
      const i = arrayIndex(c.key, c.parent.length, false);
      if (i === undefined) return { error: `Unable to access invalid index: ${c.key}: invalid index referenced` };
      return { value: c.parent.splice(i, 1)[0] };
    }
    if (!Object.hasOwn(c.parent, c.key)) return { error: `Unable to remove nonexistent key: ${c.key}: missing value` };
    const parent = c.parent as Record<string, unknown>;
    const value = parent[c.key];
    delete parent[c.key];
    return { value };
  };

  for (let index = 0; index < ops.length; index++) {
    const op = ops[index]!;
    const tokens = parsePointer(op.path);
    if (!tokens) return { ok: false, index, error: `JSON pointer must be empty or start with a "/": ${JSON.stringify(op.path)}` };
    let err: string | undefined;
    switch (op.op) {
      case 'add':
        err = add(tokens, cloneJson(op.value ?? null), 'add', op.path);
        break;
      case 'remove': {
        const r = remove(tokens);
        if ('missing' in r) err = `remove operation does not apply: doc is missing path: "${op.path}": missing value`;
        else if ('error' in r) err = `error in remove for path: '${op.path}': ${r.error}`;
        break;
      }
      case 'replace': {
        if (tokens.length === 0) {
          root = cloneJson(op.value ?? null);
          break;
        }
        const c = containerOf(tokens);
        if (!c) {
          err = `replace operation does not apply: doc is missing path: ${op.path}: missing value`;
          break;
        }
        if (Array.isArray(c.parent)) {
          const i = arrayIndex(c.key, c.parent.length, false);
          if (i === undefined) {
            err = `replace operation does not apply: doc is missing key: ${op.path}: missing value`;
            break;
          }
          c.parent[i] = cloneJson(op.value ?? null);
        } else c.parent[c.key] = cloneJson(op.value ?? null); // v4: set, whether the key was there or not
        break;
      }
      case 'move': {
        const from = parsePointer(op.from ?? '');
        if (!from) {
          err = `JSON pointer must be empty or start with a "/": ${JSON.stringify(op.from)}`;
          break;
        }
        if (op.path.startsWith(`${op.from}/`)) {
          err = `Unable to move a location into one of its children: ${op.from} -> ${op.path}`;
          break;
        }
        const r = remove(from);
        if ('missing' in r) {
          err = `move operation does not apply: doc is missing from path: ${op.from}: missing value`;
          break;
        }
        if ('error' in r) {
          err = `error in move for path: '${from.at(-1) ?? ''}': ${r.error}`;
          break;
        }
        err = add(tokens, r.value, 'move', op.path);
        break;
      }
      case 'copy': {
        const from = parsePointer(op.from ?? '');
        const v = from ? get(root, from) : MISSING;
        if (v === MISSING) {
          err = `copy operation does not apply: doc is missing from path: ${op.from ?? ''}: missing value`;
          break;
        }
        err = add(tokens, cloneJson(v), 'copy', op.path);
        break;
      }
      case 'test': {
        const v = get(root, tokens);
        const expected = op.value ?? null;
        if (v === MISSING ? expected !== null : !deepEqual(v, expected)) {
          // json_patch.go: a failed test means the patch is not applied (no error)
          return { ok: true, value: doc, testFailed: { index, path: op.path } };
        }
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
