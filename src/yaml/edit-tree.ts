/**
 * The parsed trees applyEdits (./edit.ts) keeps for the last few texts, and their offsets: a
 * scalar replaced in place logs an offset shift instead of parsing the new text, and the tree is
 * settled when more than a scalar is edited. Design: ./README.md (Edit).
 */
import { lineOfOffset } from './lines';
import { parseDocuments, posTreeOf } from './parse';
import type { PosNode } from './pos-tree';
import type { Splice, Step } from './edit-types';
import type { YamlError } from './types';

// Parsed texts: the last few are kept (by identity first, so the store's next keystroke on the
// text it just got back finds its tree without parsing).

export interface Loaded {
  text: string;
  /** The tree's offsets are those of an earlier text: `shifts` turn them into offsets of `text` (see offsetIn, settle). */
  root: PosNode;
  object: unknown;
  /** Aliases or merge keys may be in the text: every edit is checked by parsing the result. */
  aliases: boolean;
  eol: '\n' | '\r\n';
  /**
   * Scalars replaced in place since the tree was parsed or last settled, in order: an offset p
   * of the tree becomes p + delta where p ≥ at. A keystroke appends one instead of shifting the
   * offsets of every node after it; planning reads the few offsets it needs through them, and
   * anything more than a scalar replaced settles the tree first.
   */
  shifts: Shift[];
  /** Start offsets of the lines of `text`, once asked (lineStartsOf). */
  lineStarts?: Int32Array;
}

interface Shift {
  at: number;
  delta: number;
}

/** Shifts kept before the tree is settled (each costs every offset read a comparison). */
const MAX_SHIFTS = 32;

const MAX_LOADED = 4;
const loaded: Loaded[] = [];

/** Keep a parsed text (callers look it up first: comparing two large texts costs as much as reading them). */
function remember(l: Loaded): void {
  loaded.unshift(l);
  if (loaded.length > MAX_LOADED) loaded.pop();
}

const ALIAS_LIKE = /(?:^|[\s[{,])\*[^\s[\]{},]|<<\s*:/;

export function load(text: string): Loaded | YamlError {
  for (const l of loaded) if (l.text === text) return l;
  const r = parseDocuments(text, { unwrapLists: false });
  if (r.errors.length > 0) {
    const e = r.errors[0]!;
    return { ...e, message: `The YAML does not parse, so it was not edited (nothing is lost): ${e.message}` };
  }
  if (r.duplicateKeys.length > 0) {
    // An edit of the key read would bring the earlier occurrence back to life: the user picks which one stays.
    const d = r.duplicateKeys[0]!;
    return { ...d, message: `${d.message}. Remove one of the two first: the YAML was not edited (nothing is lost).` };
  }
  if (r.documents.length !== 1) {
    const message =
      r.documents.length === 0 ? 'The text holds no object to edit' : `The text holds ${r.documents.length} documents; edits apply to one document`;
    return { message, line: 1, column: 1 };
  }
  const doc = r.documents[0]!;
  const l: Loaded = { text, root: posTreeOf(doc)!, object: doc.object, aliases: ALIAS_LIKE.test(text), eol: text.includes('\r\n') ? '\r\n' : '\n', shifts: [] };
  remember(l);
  return l;
}

/**
 * A tree parsed elsewhere for `text` (the store's reading of a keystroke, ./reparse.ts), given
 * to applyEdits: the next edit of `text` starts from it instead of parsing. It is applyEdits'
 * from now on (its offsets follow each text returned: `releaseTree` settles them).
 */
export function adoptTree(text: string, root: PosNode, object: unknown, aliases: boolean, lineStarts?: readonly number[]): boolean {
  if (loaded.some((l) => l.text === text)) return false;
  // (the caller's line starts, copied: a scalar replacement updates them in place)
  remember({
    text,
    root,
    object,
    aliases,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
    shifts: [],
    ...(lineStarts ? { lineStarts: new Int32Array(lineStarts) } : {}),
  });
  return true;
}

/** The tree applyEdits keeps for `text`, handed back (no longer kept here), if it keeps one. */
export function releaseTree(text: string): PosNode | undefined {
  const i = loaded.findIndex((l) => l.text === text);
  if (i < 0) return undefined;
  const l = loaded.splice(i, 1)[0]!;
  settle(l); // scalars replaced since the last settle are pending shifts: the tree handed back has the text's offsets
  return l.root;
}

export const isError = (x: Loaded | YamlError): x is YamlError => !('root' in x);

/** An offset of the tree as an offset of `l.text`. */
function offsetIn(l: Loaded, p: number): number {
  for (const s of l.shifts) if (p >= s.at) p += s.delta;
  return p;
}

/** Write the pending shifts into the tree's offsets (one pass over the nodes after the first shift). */
export function settle(l: Loaded): void {
  if (l.shifts.length === 0) return;
  const from = Math.min(...l.shifts.map((s) => s.at));
  const f = (p: number) => (p < from ? p : offsetIn(l, p));
  const visit = (n: PosNode): void => {
    if (n.end < from) return;
    n.start = f(n.start);
    n.end = f(n.end);
    if (n.entries) {
      for (const e of n.entries) {
        e.keyStart = f(e.keyStart);
        e.keyEnd = f(e.keyEnd);
        visit(e.node);
      }
    }
    if (n.items) for (const it of n.items) visit(it);
  };
  visit(l.root);
  l.shifts = [];
}

/** A step with its node's (and key's) offsets in `l.text`, without settling the tree. */
export function freshStep(l: Loaded, step: Step): Step {
  if (l.shifts.length === 0) return step;
  const node = { ...step.node, start: offsetIn(l, step.node.start), end: offsetIn(l, step.node.end) };
  return {
    node,
    ...(step.entry ? { entry: { ...step.entry, node, keyStart: offsetIn(l, step.entry.keyStart), keyEnd: offsetIn(l, step.entry.keyEnd) } } : {}),
  };
}

/** The start offsets of the lines of `l.text` (built once per text, then kept up to date by scalar replacements). */
export function lineStartsOf(l: Loaded): Int32Array {
  if (!l.lineStarts) {
    const starts = [0];
    for (let i = l.text.indexOf('\n'); i >= 0; i = l.text.indexOf('\n', i + 1)) starts.push(i + 1);
    l.lineStarts = new Int32Array(starts); // (an array-like copy: Int32Array.from iterates, ~10× slower at 170,000 lines)
  }
  return l.lineStarts;
}

/** 1-based line of an offset. */
export const lineAt = (starts: Int32Array, offset: number): number => lineOfOffset(starts, offset) + 1;

/**
 * The tree of `cur` handed on to `text`, which is `cur.text` with scalars replaced in place
 * (`splices`, in descending order, in the text's line endings) and reads as `object`: the
 * splices' offset shifts are logged instead of parsing `text`.
 */
export function carryTree(cur: Loaded, text: string, splices: readonly Splice[], object: unknown): Loaded {
  // Splices in descending order: each shift is in the offsets the ones before it left.
  const shifts = [...cur.shifts];
  let lineStarts = cur.lineStarts;
  for (const sp of splices) {
    const delta = sp.insert.length - (sp.end - sp.start);
    if (delta === 0) continue;
    shifts.push({ at: sp.end, delta });
    if (!lineStarts) continue;
    if (cur.text.slice(sp.start, sp.end).includes('\n') || sp.insert.includes('\n')) lineStarts = undefined;
    else for (let k = lineAt(lineStarts, sp.end); k < lineStarts.length; k++) lineStarts[k]! += delta;
  }
  const i = loaded.indexOf(cur);
  if (i >= 0) loaded.splice(i, 1); // its tree now belongs to the new text
  const next: Loaded = { text, root: cur.root, object, aliases: false, eol: cur.eol, shifts, lineStarts };
  if (shifts.length > MAX_SHIFTS) settle(next);
  remember(next);
  return next;
}
