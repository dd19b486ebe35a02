/**
 * applyEdits: structured changes (`path = value`, or a deletion) written into a single-document
 * YAML or JSON text as the smallest text edits, so that everything they do not touch stays byte
 * for byte. Edits apply one after the other; a result that would not read back as the edited
 * object is refused with nothing changed. Design: ./README.md (Edit).
 */
import type { PathSegment } from '../base/path';
import { parsePath } from '../base/path';
import { planEdit, planInsert, planMove, type Plan } from './edit-plan';
import { carryTree, isError, lineAt, lineStartsOf, load, type Loaded } from './edit-tree';
import { Refused, type ChangedLines, type Edit, type EditOptions, type EditResult, type PathEdit, type Splice } from './edit-types';
import { insertAt, moveAt, readBack, setAt } from './edit-verify';

/** A changed region of the current text and the region of the original text it replaces. */
interface Region {
  s: number;
  e: number;
  os: number;
  oe: number;
}

/**
 * Apply `edits` to a single-document YAML (or JSON) text as the smallest text edits.
 * Pure (a few parsed trees are cached by text); never throws.
 */
export function applyEdits(text: string, edits: readonly PathEdit[], options: EditOptions = {}): EditResult {
  const first = load(text);
  if (isError(first)) return { text, changed: [], error: first };
  try {
    return run(first, edits, options);
  } catch (e) {
    const message = e instanceof Refused ? e.message : `Could not edit the text: ${e instanceof Error ? e.message : String(e)}`;
    return { text, changed: [], error: { message, line: 1, column: 1 } };
  }
}

function run(first: Loaded, edits: readonly PathEdit[], options: EditOptions): EditResult {
  let cur = first;
  let expected = first.object;
  let pending: Splice[] = [];
  let scopes: PathSegment[][] = [];
  // Maps with a new key pending: a deletion in one must see that key (else the last old key's
  // removal writes `{}` beside it), so it waits for the flush.
  let grown: PathSegment[][] = [];
  let regions: Region[] = [];
  let seq = 0;
  const eol = first.eol;

  const flush = (): void => {
    if (pending.length === 0) return;
    const ordered = [...pending].sort((a, b) => b.start - a.start || b.end - a.end || a.depth - b.depth || b.seq - a.seq);
    let t = cur.text;
    for (const sp of ordered) {
      const insert = eol === '\n' ? sp.insert : sp.insert.replace(/\r?\n/g, eol);
      t = t.slice(0, sp.start) + insert + t.slice(sp.end);
      regions = mark(regions, sp.start, sp.end, insert.length);
      sp.insert = insert;
    }
    // Only scalars replaced, no aliases: the tree's offsets are shifted, else the result is parsed and checked.
    const fast = !cur.aliases && ordered.every((sp) => sp.scalar);
    cur = fast ? carryTree(cur, t, ordered, expected) : readBack(t, expected);
    pending = [];
    scopes = [];
    grown = [];
  };

  const queue: Edit[] = edits.map((e) => ({
    path: typeof e.path === 'string' ? parsePath(e.path) : [...e.path],
    value: e.value,
    insert: e.insert,
    moveTo: e.moveTo,
  }));
  for (let qi = 0; qi < queue.length; qi++) {
    const edit = queue[qi]!;
    const deletion = edit.value === undefined && !edit.insert && edit.moveTo === undefined;
    if (scopes.some((s) => related(s, edit.path)) || (deletion && grown.some((m) => m.length === edit.path.length - 1 && related(m, edit.path)))) flush();
    const plan1 = (): Plan =>
      edit.moveTo !== undefined
        ? planMove(cur, expected, edit.path, edit.moveTo)
        : edit.insert
          ? planInsert(cur, edit.path, edit.value)
          : planEdit(cur, expected, edit.path, edit.value, options);
    let plan = plan1();
    if (plan.kind === 'ops' && plan.splices.some((sp) => pending.some((p) => overlaps(sp, p)))) {
      flush();
      plan = plan1();
    }
    if (plan.kind === 'noop') continue;
    if (plan.kind === 'expand') {
      queue.splice(qi + 1, 0, ...plan.edits);
      continue;
    }
    for (const sp of plan.splices) pending.push({ ...sp, seq: seq++, depth: edit.path.length });
    scopes.push(plan.scope);
    if (plan.newEntryIn) grown.push(plan.newEntryIn);
    expected =
      edit.moveTo !== undefined
        ? moveAt(expected, edit.path, edit.moveTo)
        : edit.insert
          ? insertAt(expected, edit.path, edit.value)
          : setAt(expected, edit.path, edit.value);
  }
  flush();
  if (cur.text === first.text) return { text: first.text, changed: [] };
  return { text: cur.text, changed: toLines(regions, first.text, cur.text, lineStartsOf(cur)) };
}

const related = (a: readonly PathSegment[], b: readonly PathSegment[]): boolean => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (String(a[i]) !== String(b[i])) return false;
  return true;
};

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }): boolean =>
  (a.start < b.end && b.start < a.end) || (a.start === b.start && a.end === b.end && a.start !== a.end);

// ---------------------------------------------------------------------------------------------
// The changed regions, as lines of the new text and of the old one.

/** Record that [s, e) of the current text became `len` characters. */
function mark(regions: Region[], s: number, e: number, len: number): Region[] {
  const delta = len - (e - s);
  // A point of the current text in the original one; `left`: an empty region at the point counts as after it.
  const orig = (p: number, left: boolean): number => {
    let shift = 0;
    for (const r of regions) if (r.e <= p && !(left && r.s === p)) shift += r.e - r.s - (r.oe - r.os);
    return p - shift;
  };
  let ns = s;
  let ne = e;
  const out: Region[] = [];
  const merged: Region[] = [];
  for (const r of regions) (r.e >= s && r.s <= e ? merged : out).push(r);
  for (const r of merged) {
    ns = Math.min(ns, r.s);
    ne = Math.max(ne, r.e);
  }
  const os = Math.min(orig(ns, true), ...merged.map((r) => r.os));
  const oe = Math.max(orig(ne, false), ...merged.map((r) => r.oe));
  const shifted = out.map((r) => (r.s > e ? { s: r.s + delta, e: r.e + delta, os: r.os, oe: r.oe } : r));
  shifted.push({ s: ns, e: ne + delta, os, oe });
  return shifted.sort((a, b) => a.s - b.s);
}

function toLines(regions: Region[], before: string, after: string, lineStarts: Int32Array): ChangedLines[] {
  // Lines of the new text from its line starts; the old text's lines follow from the newlines
  // inside each region (outside the regions both texts are the same).
  const lineOfNew = (offset: number) => lineAt(lineStarts, offset);
  const newlines = (text: string, s: number, e: number): number => {
    let n = 0;
    for (let i = text.indexOf('\n', s); i >= 0 && i < e; i = text.indexOf('\n', i + 1)) n++;
    return n;
  };
  const atLineStart = (text: string, p: number) => p === 0 || text[p - 1] === '\n';
  const out: ChangedLines[] = [];
  let shift = 0; // newlines added so far (new − old)
  for (const r of regions) {
    const a = lineOfNew(r.s);
    const c = a - shift;
    const nNew = newlines(after, r.s, r.e);
    const nOld = newlines(before, r.os, r.oe);
    shift += nNew - nOld;
    const end = (start: number, text: string, s: number, e: number, n: number) =>
      e === s ? (atLineStart(text, s) ? start - 1 : start) : start + n - (text[e - 1] === '\n' ? 1 : 0);
    const b = end(a, after, r.s, r.e, nNew);
    const d = end(c, before, r.os, r.oe, nOld);
    const last = out[out.length - 1];
    if (last && a <= last.endLine && c <= last.oldEndLine) {
      // regions on one line: that line changed once
      last.endLine = Math.max(last.endLine, b);
      last.oldEndLine = Math.max(last.oldEndLine, d);
      continue;
    }
    out.push({ startLine: a, endLine: b, oldStartLine: c, oldEndLine: d });
  }
  return out;
}
