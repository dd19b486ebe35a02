/**
 * A fast path for strict JSON documents (`kubectl get -o json`): JSON is
 * YAML, but js-yaml's flow-style parser is several times slower than a
 * JSON scanner. This one builds the same values and positions as
 * ./construct.ts does for the same text, and gives up (returns undefined) at
 * the first thing that is not strict JSON, so that js-yaml parses it and
 * reports any error.
 */
import type { PosEntry, PosNode, TextProblem } from './pos-tree';
import type { LineIndex } from './lines';
import { MAX_DEPTH, MAX_PROBLEMS_PER_DOCUMENT } from './limits';
import { resolvePlain } from './resolve';
import { setOwn } from '../base/json';

class NotJson {}
const NOT_JSON = new NotJson();

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;

export interface JsonDocument {
  value: unknown;
  pos: PosNode;
  errors: TextProblem[];
  /** Keys given twice (the last value is kept). */
  duplicates: TextProblem[];
}

/** Whether the text between start and end begins (after blanks and a BOM) with `{` or `[`. */
export function looksLikeJson(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) continue;
    return c === 123 || c === 91;
  }
  return false;
}

export function scanJson(text: string, start: number, end: number, lines: LineIndex): JsonDocument | undefined {
  let i = start;
  let depth = 0;
  const errors: TextProblem[] = [];
  const duplicates: TextProblem[] = [];
  const path: Array<string | number> = [];

  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff) i++;
      else return;
    }
  };

  const string = (): string => {
    const q = i;
    i++;
    let escaped = false;
    for (;;) {
      if (i >= end) throw NOT_JSON;
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c < 0x20) throw NOT_JSON;
      if (c === 92) {
        escaped = true;
        i += 2;
        continue;
      }
      i++;
    }
    i++;
    if (!escaped) return text.slice(q + 1, i - 1);
    try {
      return JSON.parse(text.slice(q, i)) as string;
    } catch {
      throw NOT_JSON;
    }
  };

  const value = (): { v: unknown; pos: PosNode } => {
    const c = text.charCodeAt(i);
    const s = i;
    if (c === 34) {
      const v = string();
      return { v, pos: { kind: 'scalar', start: s, end: i, flow: false } };
    }
    if (c === 123) return object();
    if (c === 91) return array();
    if (c === 116 && text.startsWith('true', i)) {
      i += 4;
      return { v: true, pos: { kind: 'scalar', start: s, end: i, flow: false } };
    }
    if (c === 102 && text.startsWith('false', i)) {
      i += 5;
      return { v: false, pos: { kind: 'scalar', start: s, end: i, flow: false } };
    }
    if (c === 110 && text.startsWith('null', i)) {
      i += 4;
      return { v: null, pos: { kind: 'scalar', start: s, end: i, flow: false } };
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m || m[0].length === 0) throw NOT_JSON;
    i += m[0].length;
    // Typed as go-yaml types the same plain scalar (1.0 → 1, big → bigint, 1e400 → string).
    return { v: resolvePlain(m[0]).value, pos: { kind: 'scalar', start: s, end: i, flow: false } };
  };

  const object = (): { v: unknown; pos: PosNode } => {
    if (++depth > MAX_DEPTH) throw NOT_JSON;
    const s = i;
    i++;
    const obj: Record<string, unknown> = {};
    const entries: PosEntry[] = [];
    ws();
    if (text.charCodeAt(i) === 125) {
      i++;
    } else {
      for (;;) {
        if (text.charCodeAt(i) !== 34) throw NOT_JSON;
        const ks = i;
        const key = string();
        const ke = i;
        ws();
        if (text.charCodeAt(i) !== 58) throw NOT_JSON;
        i++;
        ws();
        path.push(key);
        const { v, pos } = value();
        if (Object.hasOwn(obj, key)) {
          // The last value wins, as the apiserver's decoders keep it; the mode says whether that is an error (src/k8s field-validation.ts).
          const j = entries.findIndex((e) => e.key === key);
          if (duplicates.length < MAX_PROBLEMS_PER_DOCUMENT) {
            const at = lines.lineColumn(entries[j]!.keyStart);
            duplicates.push({ message: duplicateMessage(key, at), start: ks, end: ke, path: path.slice(), key });
          }
          entries.splice(j, 1);
          delete obj[key];
        }
        setOwn(obj, key, v);
        entries.push({ key, keyStart: ks, keyEnd: ke, node: pos });
        path.pop();
        ws();
        const c = text.charCodeAt(i);
        i++;
        if (c === 125) break;
        if (c !== 44) throw NOT_JSON;
        ws();
      }
    }
    depth--;
    return { v: obj, pos: { kind: 'map', start: s, end: i, flow: true, entries } };
  };

  const array = (): { v: unknown; pos: PosNode } => {
    if (++depth > MAX_DEPTH) throw NOT_JSON;
    const s = i;
    i++;
    const arr: unknown[] = [];
    const items: PosNode[] = [];
    ws();
    if (text.charCodeAt(i) === 93) {
      i++;
    } else {
      for (;;) {
        path.push(arr.length);
        const { v, pos } = value();
        path.pop();
        arr.push(v);
        items.push(pos);
        ws();
        const c = text.charCodeAt(i);
        i++;
        if (c === 93) break;
        if (c !== 44) throw NOT_JSON;
        ws();
      }
    }
    depth--;
    return { v: arr, pos: { kind: 'seq', start: s, end: i, flow: true, items } };
  };

  try {
    ws();
    const root = value();
    ws();
    if (i !== end || i > text.length) return undefined;
    if (errors.length > MAX_PROBLEMS_PER_DOCUMENT) {
      errors.length = MAX_PROBLEMS_PER_DOCUMENT;
      errors.push({
        message: `More problems in this document are not listed (only the first ${MAX_PROBLEMS_PER_DOCUMENT} are)`,
        start: root.pos.start,
        end: root.pos.start,
      });
    }
    return { value: root.v, pos: root.pos, errors, duplicates };
  } catch (e) {
    if (e === NOT_JSON) return undefined;
    throw e;
  }
}

/** What a duplicate key is called where it is (the mode's wording is src/k8s field-validation.ts'). */
export function duplicateMessage(key: string, first: { line: number; column: number }): string {
  return `Duplicate key ${JSON.stringify(key)}: already given at line ${first.line}, column ${first.column}; the last value is the one read`;
}
