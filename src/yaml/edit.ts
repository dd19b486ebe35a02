/**
 * applyEdits: structured changes (`path = value`, or a deletion) written into a YAML or JSON
 * text as the smallest text edits, at the positions the parser records (./pos-tree.ts), so
 * that everything the change does not touch — comments, blank lines, quoting, flow or block
 * style, key order, anchors, line endings — stays byte for byte.
 *
 * - A scalar's span is replaced; its quoting style is kept when the new value allows it
 *   (`"https"` stays double-quoted), a plain scalar that would now read differently is quoted.
 * - A new map entry or list item is written in the style of its neighbours (block or flow,
 *   indentation, quoting of flow items); `keyOrder` (the kubectl order) only decides where a
 *   new key goes. A removed entry goes with the comment lines directly above it; a map or
 *   list left empty is written `{}` / `[]` (the object then holds an empty map or list).
 * - A collection replaced by one of the same kind is diffed (`editsBetween`): only the lines
 *   of what differs change.
 * - Edits apply one after the other (each path refers to the text as the previous edits left
 *   it). Refused, as a value, with nothing changed: a text that does not parse or holds more
 *   than one document, a path through an alias (`*name`: edit the anchor's node instead), a
 *   list index beyond the end, and any result that would not read back as exactly the edited
 *   object (checked by parsing it again whenever the edit is more than replacing scalars in a
 *   text without aliases).
 */
import type { PathSegment } from '../base/path';
import { parsePath } from '../base/path';
import { formatPath } from '../base/path-format';
import { deepEqual, isObject, setOwn } from '../base/json';
import { lineOfOffset } from './lines';
import { parseDocuments, posTreeOf } from './parse';
import type { PosEntry, PosNode } from './pos-tree';
import { doubleQuote, isPlainSafe, literalBlock, scalarText } from './serialize';
import type { YamlError } from './types';

/** One structured change: the value at `path` (the project's path language, or its segments); `undefined` deletes. */
export interface PathEdit {
  path: string | readonly PathSegment[];
  value: unknown;
  /** For a list index: put `value` before that item instead of replacing it. */
  insert?: boolean;
  /** For a list index: move that item, with its comment lines, to index `moveTo` (`value` is the item). */
  moveTo?: number;
}

type Edit = { path: PathSegment[]; value: unknown; insert?: boolean; moveTo?: number };

/** Lines that differ: 1-based, inclusive, in the new text and in the old one (an empty range has end = start − 1). */
export interface ChangedLines {
  startLine: number;
  endLine: number;
  oldStartLine: number;
  oldEndLine: number;
}

export interface EditOptions {
  /** The wanted key order of the map at `mapPath` (e.g. kubectl's); only decides where a new key is inserted. */
  keyOrder?: (mapPath: readonly PathSegment[]) => readonly string[] | undefined;
}

export interface EditResult {
  /** The edited text (the input itself when refused or when nothing changed). */
  text: string;
  changed: ChangedLines[];
  /** Why the edits were refused (then `text` is the input, unchanged). */
  error?: YamlError;
}

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
    const out: Edit[] = [];
    for (const k of Object.keys(before)) {
      if (!Object.hasOwn(after, k)) out.push({ path: [...prefix, k], value: undefined });
      else out.push(...editsBetween(before[k], after[k], [...prefix, k]));
    }
    for (const k of Object.keys(after)) if (!Object.hasOwn(before, k)) out.push({ path: [...prefix, k], value: after[k] });
    return out;
  }
  return deepEqual(before, after) ? [] : [{ path: [...prefix], value: after }];
}

/** Lists item by item: the common indices diffed, then items added at the end or removed from it. */
function indexwise(before: readonly unknown[], after: readonly unknown[], prefix: readonly PathSegment[]): Edit[] {
  const n = Math.min(before.length, after.length);
  const out: Edit[] = [];
  for (let i = 0; i < n; i++) out.push(...editsBetween(before[i], after[i], [...prefix, i]));
  for (let i = n; i < after.length; i++) out.push({ path: [...prefix, i], value: after[i] });
  for (let i = before.length - 1; i >= n; i--) out.push({ path: [...prefix, i], value: undefined });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parsed texts: the last few are kept (by identity first, so the store's next keystroke on the
// text it just got back finds its tree without parsing).

interface Loaded {
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

function load(text: string): Loaded | YamlError {
  for (const l of loaded) if (l.text === text) return l;
  const r = parseDocuments(text, { unwrapLists: false });
  if (r.errors.length > 0) {
    const e = r.errors[0]!;
    return { ...e, message: `The YAML does not parse, so it was not edited (nothing is lost): ${e.message}` };
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

const isError = (x: Loaded | YamlError): x is YamlError => !('root' in x);

/** An offset of the tree as an offset of `l.text`. */
function offsetIn(l: Loaded, p: number): number {
  for (const s of l.shifts) if (p >= s.at) p += s.delta;
  return p;
}

/** Write the pending shifts into the tree's offsets (one pass over the nodes after the first shift). */
function settle(l: Loaded): void {
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
function freshStep(l: Loaded, step: Step): Step {
  if (l.shifts.length === 0) return step;
  const node = { ...step.node, start: offsetIn(l, step.node.start), end: offsetIn(l, step.node.end) };
  return {
    node,
    ...(step.entry ? { entry: { ...step.entry, node, keyStart: offsetIn(l, step.entry.keyStart), keyEnd: offsetIn(l, step.entry.keyEnd) } } : {}),
  };
}

/** The start offsets of the lines of `l.text` (built once per text, then kept up to date by scalar replacements). */
function lineStartsOf(l: Loaded): Int32Array {
  if (!l.lineStarts) {
    const starts = [0];
    for (let i = l.text.indexOf('\n'); i >= 0; i = l.text.indexOf('\n', i + 1)) starts.push(i + 1);
    l.lineStarts = new Int32Array(starts); // (an array-like copy: Int32Array.from iterates, ~10× slower at 170,000 lines)
  }
  return l.lineStarts;
}

/** 1-based line of an offset. */
const lineAt = (starts: Int32Array, offset: number): number => lineOfOffset(starts, offset) + 1;

// ---------------------------------------------------------------------------------------------

interface Splice {
  start: number;
  end: number;
  insert: string;
  seq: number;
  /** Length of the path it edits: at one point, the deeper container's text comes first. */
  depth: number;
  /** A scalar replaced in place: the tree's offsets can be shifted instead of parsed again. */
  scalar?: boolean;
}

/** A changed region of the current text and the region of the original text it replaces. */
interface Region {
  s: number;
  e: number;
  os: number;
  oe: number;
}

class Refused {
  constructor(readonly message: string) {}
}

interface Step {
  node: PosNode;
  entry?: PosEntry;
}

type Plan =
  | { kind: 'noop' }
  | { kind: 'expand'; edits: Edit[] }
  /** `scope`: a later edit under it waits for these splices; `newEntryIn`: the map a new key goes into. */
  | { kind: 'ops'; splices: Omit<Splice, 'seq' | 'depth'>[]; scope: PathSegment[]; newEntryIn?: PathSegment[] };

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
    const fast = !cur.aliases && ordered.every((sp) => sp.scalar);
    if (fast) {
      // Splices in descending order: each shift is in the offsets the ones before it left.
      const shifts = [...cur.shifts];
      let lineStarts = cur.lineStarts;
      for (const sp of ordered) {
        const delta = sp.insert.length - (sp.end - sp.start);
        if (delta === 0) continue;
        shifts.push({ at: sp.end, delta });
        if (!lineStarts) continue;
        if (cur.text.slice(sp.start, sp.end).includes('\n') || sp.insert.includes('\n')) lineStarts = undefined;
        else for (let k = lineAt(lineStarts, sp.end); k < lineStarts.length; k++) lineStarts[k]! += delta;
      }
      const i = loaded.indexOf(cur);
      if (i >= 0) loaded.splice(i, 1); // its tree now belongs to the new text
      cur = { text: t, root: cur.root, object: expected, aliases: false, eol: cur.eol, shifts, lineStarts };
      if (shifts.length > MAX_SHIFTS) settle(cur);
      remember(cur);
    } else {
      const next = load(t);
      if (isError(next)) throw new Refused(`The edit would leave YAML that does not parse (${next.message}); nothing was changed`);
      if (!deepEqual(next.object, expected))
        throw new Refused('The text cannot be edited exactly here (an alias, a merge key or a tag makes the result differ); nothing was changed');
      cur = next;
    }
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
// Planning one edit on the current tree.

function walk(root: PosNode, path: readonly PathSegment[]): { steps: Step[]; alias: boolean } {
  const steps: Step[] = [{ node: root }];
  for (const seg of path) {
    const node = steps[steps.length - 1]!.node;
    if (node.kind === 'map' && node.entries) {
      const key = String(seg);
      const entry = node.entries.find((e) => e.key === key);
      if (!entry) break;
      steps.push({ node: entry.node, entry });
    } else if (node.kind === 'seq' && node.items) {
      const idx = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
      const item = idx >= 0 ? node.items[idx] : undefined;
      if (!item) break;
      steps.push({ node: item });
    } else {
      return { steps, alias: node.kind === 'alias' };
    }
  }
  return { steps, alias: false };
}

function planEdit(cur: Loaded, expected: unknown, path: PathSegment[], value: unknown, options: EditOptions): Plan {
  const { steps, alias } = walk(cur.root, path);
  const depth = steps.length - 1;
  const at = formatPath(path) || 'the document';
  if (alias) {
    settle(cur);
    throw new Refused(
      `${at} is inside an alias (${cur.text.slice(steps[depth]!.node.start, steps[depth]!.node.end)}): an edit there would change the anchor's other uses too. Edit the anchored node, or replace the alias with its own value.`,
    );
  }
  const w = new Writer(cur.text, cur.root, options);
  if (depth === path.length) {
    const step = steps[depth]!;
    if (value === undefined) {
      settle(cur);
      if (depth === 0) throw new Refused('The document itself cannot be deleted');
      return { kind: 'ops', splices: [w.remove(steps, path[depth - 1]!)], scope: path.slice(0, -1) };
    }
    const current = getAt(expected, path);
    if (deepEqual(current, value)) return { kind: 'noop' };
    const node = step.node;
    const sameKind = (Array.isArray(current) && Array.isArray(value) && node.kind === 'seq') || (isObject(current) && isObject(value) && node.kind === 'map');
    if (sameKind) return { kind: 'expand', edits: editsBetween(current, value, path) };
    if (node.kind === 'scalar' && (value === null || typeof value !== 'object') && node.end > node.start) {
      // The keystroke: only this node's offsets are read, so the tree need not be settled.
      return { kind: 'ops', splices: [w.replaceScalar([...steps.slice(0, -1), freshStep(cur, step)], value)], scope: path };
    }
    settle(cur);
    return { kind: 'ops', splices: [w.replace(steps, value)], scope: path };
  }
  if (value === undefined) return { kind: 'noop' };
  settle(cur);
  const container = steps[depth]!;
  const seg = path[depth]!;
  const node = container.node;
  if (node.kind === 'map') {
    return {
      kind: 'ops',
      splices: [w.insertEntry(steps, path.slice(0, depth), String(seg), nest(path.slice(depth + 1), value, at))],
      scope: path.slice(0, depth + 1),
      newEntryIn: path.slice(0, depth),
    };
  }
  if (node.kind === 'seq') {
    const idx = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
    if (idx !== node.items!.length) throw new Refused(`${at}: index ${String(seg)} is beyond the end of the list (${node.items!.length} items)`);
    return { kind: 'ops', splices: [w.appendItem(steps, nest(path.slice(depth + 1), value, at))], scope: path.slice(0, depth) };
  }
  // A scalar (null, `rules:`) or alias where a map or list is wanted: replace it.
  return { kind: 'ops', splices: [w.replace(steps, nest(path.slice(depth), value, at))], scope: path.slice(0, depth) };
}

/** A new list item before the item at `path` (or at the end). */
function planInsert(cur: Loaded, path: PathSegment[], value: unknown): Plan {
  settle(cur);
  const listPath = path.slice(0, -1);
  const { steps, alias } = walk(cur.root, listPath);
  const at = formatPath(path);
  const list = steps[steps.length - 1]!.node;
  if (alias || steps.length - 1 !== listPath.length || list.kind !== 'seq') throw new Refused(`${at}: there is no list to insert into`);
  const idx = Number(path[path.length - 1]);
  const w = new Writer(cur.text, cur.root, {});
  const splice = idx >= list.items!.length ? w.appendItem(steps, value) : w.insertItem(steps, idx, value);
  return { kind: 'ops', splices: [splice], scope: listPath };
}

/** A block list item moved with its lines (comments above it included); elsewhere the items are diffed one by one. */
function planMove(cur: Loaded, expected: unknown, path: PathSegment[], to: number): Plan {
  settle(cur);
  const listPath = path.slice(0, -1);
  const from = Number(path[path.length - 1]);
  const { steps, alias } = walk(cur.root, listPath);
  const list = steps[steps.length - 1]!.node;
  const w = new Writer(cur.text, cur.root, {});
  const cut = !alias && steps.length - 1 === listPath.length && list.kind === 'seq' && !list.flow ? w.moveItem(steps, from, to) : undefined;
  if (cut) return { kind: 'ops', splices: cut, scope: listPath };
  const before = getAt(expected, listPath) as unknown[];
  return { kind: 'expand', edits: indexwise(before, moveAt(before, [from], to) as unknown[], listPath) };
}

function moveAt(v: unknown, path: readonly PathSegment[], to: number): unknown {
  const list = getAt(v, path.slice(0, -1));
  if (!Array.isArray(list)) return v;
  const copy = [...list];
  const [item] = copy.splice(Number(path[path.length - 1]), 1);
  copy.splice(to, 0, item);
  return setAt(v, path.slice(0, -1), copy);
}

function insertAt(v: unknown, path: readonly PathSegment[], value: unknown): unknown {
  const list = getAt(v, path.slice(0, -1));
  if (!Array.isArray(list)) return v;
  const copy = [...list];
  copy.splice(Number(path[path.length - 1]), 0, value);
  return setAt(v, path.slice(0, -1), copy);
}

function nest(segs: readonly PathSegment[], value: unknown, at: string): unknown {
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

function getAt(v: unknown, path: readonly PathSegment[]): unknown {
  let c = v;
  for (const s of path) c = Array.isArray(c) ? c[Number(s)] : isObject(c) ? c[String(s)] : undefined;
  return c;
}

/** `v` with the value at `path` set (undefined: removed); what the edited text must read back as. */
function setAt(v: unknown, path: readonly PathSegment[], value: unknown): unknown {
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

// ---------------------------------------------------------------------------------------------
// Writing: where things are in the text and how new values look.

type Quote = 'double' | 'single' | undefined;

const FLOW_INDICATORS = /[,[\]{}]/;
const NO_SINGLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;

class Writer {
  private readonly json: boolean;
  private stepCache?: number;
  private seqIndentCache?: boolean;

  constructor(
    private readonly text: string,
    private readonly root: PosNode,
    private readonly options: EditOptions,
  ) {
    this.json = root.flow;
  }

  /** Where the line holding `off` starts (on the first line, after a BOM: it is no column, and stays first). */
  private lineStart(off: number): number {
    const ls = this.text.lastIndexOf('\n', off - 1) + 1;
    return ls === 0 && this.text.charCodeAt(0) === 0xfeff ? Math.min(1, off) : ls;
  }
  private col(off: number): number {
    return off - this.lineStart(off);
  }
  /** Offset just past the newline that ends the line holding `off` (the text's end if none). */
  private lineEnd(off: number): number {
    const nl = this.text.indexOf('\n', off);
    return nl < 0 ? this.text.length : nl + 1;
  }
  private dashStart(start: number): number {
    let j = start;
    while (j > 0 && (this.text[j - 1] === ' ' || this.text[j - 1] === '\t')) j--;
    return j > 0 && this.text[j - 1] === '-' ? j - 1 : start;
  }
  /** Offset just past the `:` after a key. */
  private colonEnd(keyEnd: number): number {
    let j = keyEnd;
    while (j < this.text.length && (this.text[j] === ' ' || this.text[j] === '\t')) j++;
    if (this.text[j] !== ':') throw new Refused('Unexpected text after a key (a `? key` or a comment between key and colon is not edited)');
    return j + 1;
  }
  /** The indentation step of the document (2 unless the text says otherwise). */
  private get step(): number {
    if (this.stepCache === undefined) {
      this.stepCache = 2;
      const find = (n: PosNode): number | undefined => {
        if (n.kind !== 'map' || n.flow || !n.entries) return undefined;
        for (const e of n.entries) {
          if (e.node.kind === 'map' && !e.node.flow && e.node.entries?.length) {
            const d = this.col(e.node.entries[0]!.keyStart) - this.col(e.keyStart);
            if (d > 0) return d;
          }
        }
        return undefined;
      };
      this.stepCache = find(this.root) ?? 2;
    }
    return this.stepCache;
  }
  /** Whether block lists are indented under their key (`key:\n  - a`) in this document. */
  private get seqIndent(): boolean {
    if (this.seqIndentCache === undefined) {
      const find = (n: PosNode, depth: number): boolean | undefined => {
        if (depth > 6) return undefined;
        if (n.kind === 'map' && !n.flow && n.entries) {
          for (const e of n.entries) {
            if (e.node.kind === 'seq' && !e.node.flow && e.node.items?.length) return this.col(this.dashStart(e.node.items[0]!.start)) > this.col(e.keyStart);
          }
          for (const e of n.entries) {
            const r = find(e.node, depth + 1);
            if (r !== undefined) return r;
          }
        } else if (n.kind === 'seq' && !n.flow && n.items) {
          for (const it of n.items.slice(0, 3)) {
            const r = find(it, depth + 1);
            if (r !== undefined) return r;
          }
        }
        return undefined;
      };
      this.seqIndentCache = find(this.root, 0) ?? true;
    }
    return this.seqIndentCache;
  }

  private quoteOf(node: PosNode | undefined): Quote {
    if (!node || node.kind !== 'scalar' || node.end <= node.start) return undefined;
    const c = this.text[node.start];
    return c === '"' ? 'double' : c === "'" ? 'single' : undefined;
  }

  // --- values as text

  private keyText(k: string, flow: boolean): string {
    if (this.json) return JSON.stringify(k);
    return isPlainSafe(k) && !(flow && FLOW_INDICATORS.test(k)) ? k : doubleQuote(k);
  }

  /** A string as a scalar: in `quote` style if it can carry it, else plain if that reads back the same, else double-quoted. */
  private stringText(s: string, o: { quote?: Quote; flow: boolean; indent: number }): string {
    if (this.json) return JSON.stringify(s);
    if (o.quote === 'double') return doubleQuote(s);
    if (o.quote === 'single' && !NO_SINGLE.test(s)) return `'${s.replace(/'/g, "''")}'`;
    if (!o.flow && s.includes('\n')) {
      const block = literalBlock(s, ' '.repeat(o.indent));
      if (block !== undefined) return block.slice(0, -1);
    }
    return isPlainSafe(s) && !(o.flow && FLOW_INDICATORS.test(s)) ? s : doubleQuote(s);
  }

  /** A value on one line (or a literal block), or undefined when it needs block lines. */
  private inline(v: unknown, o: { quote?: Quote; flow: boolean; indent: number }): string | undefined {
    if (typeof v === 'string') return this.stringText(v, o);
    if (v === null || typeof v !== 'object') return scalarText(v);
    const empty = Array.isArray(v) ? v.length === 0 : entries(v).length === 0;
    if (empty) return Array.isArray(v) ? '[]' : '{}';
    return o.flow || this.json ? this.flow(v, o.quote) : undefined;
  }

  private flow(v: unknown, quote: Quote): string {
    if (Array.isArray(v)) return `[${v.map((x) => this.flow(x === undefined ? null : x, quote)).join(', ')}]`;
    if (v !== null && typeof v === 'object')
      return `{${entries(v)
        .map(([k, x]) => `${this.keyText(k, true)}: ${this.flow(x, quote)}`)
        .join(', ')}}`;
    if (typeof v === 'string') return this.stringText(v, { quote, flow: true, indent: 0 });
    return scalarText(v);
  }

  /** Block lines of a non-empty map or list whose lines start at column `indent`. */
  private block(v: object, indent: number): string[] {
    const pad = ' '.repeat(indent);
    const out: string[] = [];
    if (Array.isArray(v)) {
      for (const raw of v) {
        const item = raw === undefined ? null : raw;
        const one = this.inline(item, { flow: false, indent: indent + 2 });
        if (one !== undefined) {
          out.push(`${pad}- ${one}`);
          continue;
        }
        const sub = this.block(item as object, indent + 2);
        sub[0] = `${pad}- ${sub[0]!.slice(indent + 2)}`;
        out.push(...sub);
      }
      return out;
    }
    for (const [k, x] of entries(v)) {
      const head = `${pad}${this.keyText(k, false)}:`;
      const one = this.inline(x, { flow: false, indent: indent + 2 });
      if (one !== undefined) out.push(`${head} ${one}`);
      else out.push(head, ...this.block(x as object, Array.isArray(x) ? (this.seqIndent ? indent + this.step : indent) : indent + this.step));
    }
    return out;
  }

  // --- edits

  /** Replace a scalar's span, keeping its quoting when the new value allows it. */
  replaceScalar(steps: Step[], value: unknown): Omit<Splice, 'seq' | 'depth'> {
    const { node, entry } = steps[steps.length - 1]!;
    const parent = steps[steps.length - 2]?.node;
    const flow = !!parent?.flow;
    const c = this.text[node.start];
    const blockStyle = c === '|' || c === '>';
    const indent = (entry ? this.col(entry.keyStart) : this.col(this.dashStart(node.start))) + 2;
    const insert = typeof value === 'string' ? this.stringText(value, { quote: this.quoteOf(node), flow, indent }) : scalarText(value);
    // A tag or anchor before the scalar, or a block scalar: checked by parsing the result.
    const before = this.text.slice(this.lineStart(node.start), node.start).trimEnd();
    const bare = before === '' || /[:\-,[{?]$/.test(before);
    const simple = bare && !blockStyle && !insert.includes('\n');
    return { start: node.start, end: node.end, insert, ...(simple ? { scalar: true } : {}) };
  }

  /**
   * Where a node's text ends: a block map or list whose last key has no value (`b:`, its value
   * range empty right after the key) ends after that key's colon, not before it.
   */
  private end(n: PosNode): number {
    if (n.flow) return n.end;
    if (n.kind === 'map' && n.entries?.length) {
      const e = n.entries[n.entries.length - 1]!;
      if (e.node.start === e.node.end && e.node.start <= e.keyEnd) {
        let j = e.keyEnd;
        while (this.text[j] === ' ' || this.text[j] === '\t') j++;
        return Math.max(n.end, this.text[j] === ':' ? j + 1 : e.keyEnd);
      }
      return Math.max(n.end, this.end(e.node));
    }
    if (n.kind === 'seq' && n.items?.length) return Math.max(n.end, this.end(n.items[n.items.length - 1]!));
    return n.end;
  }

  /** Replace a node by any value (a scalar by a map, a list by a string, …). */
  replace(steps: Step[], value: unknown): Omit<Splice, 'seq' | 'depth'> {
    const { node, entry } = steps[steps.length - 1]!;
    const parent = steps[steps.length - 2]?.node;
    const flow = !!parent?.flow;
    if (!parent) {
      const lines = this.inline(value, { flow: false, indent: 0 }) ?? this.block(value as object, 0).join('\n');
      return { start: node.start, end: this.end(node), insert: lines };
    }
    const keyCol = entry ? this.col(entry.keyStart) : this.col(this.dashStart(node.start));
    const quote = this.quoteOf(node);
    const one = this.inline(value, { quote: typeof value === 'string' ? quote : undefined, flow, indent: keyCol + 2 });
    const blockNode = (node.kind === 'map' || node.kind === 'seq') && !node.flow;
    if (entry && (blockNode || node.end === node.start)) {
      const from = this.colonEnd(entry.keyEnd);
      const to = node.end === node.start ? from : this.end(node);
      if (one !== undefined) return { start: from, end: to, insert: ` ${one}` };
      const indent = Array.isArray(value) ? (this.seqIndent ? keyCol + this.step : keyCol) : keyCol + this.step;
      return { start: from, end: to, insert: `\n${this.block(value as object, indent).join('\n')}` };
    }
    if (node.end === node.start) throw new Refused('An empty list item cannot be edited in place; write a value there first');
    if (one !== undefined) return { start: node.start, end: node.end, insert: one };
    if (entry) {
      const indent = Array.isArray(value) ? (this.seqIndent ? keyCol + this.step : keyCol) : keyCol + this.step;
      return { start: this.colonEnd(entry.keyEnd), end: this.end(node), insert: `\n${this.block(value as object, indent).join('\n')}` };
    }
    const lines = this.block(value as object, keyCol + 2);
    lines[0] = lines[0]!.slice(keyCol + 2);
    return { start: node.start, end: this.end(node), insert: lines.join('\n') };
  }

  /** Delete the entry or item at the end of `steps` (its container is the step before). */
  remove(steps: Step[], seg: PathSegment): Omit<Splice, 'seq' | 'depth'> {
    const target = steps[steps.length - 1]!;
    const container = steps[steps.length - 2]!;
    const c = container.node;
    const els =
      c.kind === 'map'
        ? c.entries!.map((e) => ({ start: e.keyStart, end: Math.max(e.keyEnd, e.node.end) }))
        : c.items!.map((it) => ({ start: c.flow ? it.start : this.dashStart(it.start), end: it.end }));
    const i = c.kind === 'map' ? c.entries!.findIndex((e) => e === target.entry) : Number(seg);
    if (els.length === 1) return this.replace(steps.slice(0, -1), c.kind === 'map' ? {} : []);
    if (c.flow) {
      return i < els.length - 1 ? { start: els[i]!.start, end: els[i + 1]!.start, insert: '' } : { start: els[i - 1]!.end, end: els[i]!.end, insert: '' };
    }
    const el = els[i]!;
    const ls = this.lineStart(el.start);
    if (this.text.slice(ls, el.start).trim() !== '') {
      // `- name: x` (the first entry shares its line with the item's dash): join the next one up.
      if (i !== 0) throw new Refused('This entry shares its line with another one and cannot be removed on its own');
      return { start: el.start, end: els[1]!.start, insert: '' };
    }
    const floor = i > 0 ? this.lineEnd(els[i - 1]!.end) : container.entry ? this.lineEnd(container.entry.keyEnd) : ls;
    return { start: this.commentsAbove(ls, floor), end: this.lineEnd(el.end), insert: '' };
  }

  /** The start of the comment lines directly above the line at `ls` (not above `floor`). */
  private commentsAbove(ls: number, floor: number): number {
    let start = ls;
    while (start > floor) {
      const prev = this.lineStart(start - 1);
      if (prev < floor) break;
      if (!this.text.slice(prev, start).trimStart().startsWith('#')) break;
      start = prev;
    }
    return start;
  }

  insertEntry(steps: Step[], mapPath: readonly PathSegment[], key: string, value: unknown): Omit<Splice, 'seq' | 'depth'> {
    const c = steps[steps.length - 1]!.node;
    const es = c.entries!;
    if (c.flow) {
      const quote = es.length > 0 ? this.quoteOf(es[es.length - 1]!.node) : undefined;
      const item = `${this.keyText(key, true)}: ${this.flow(value, quote)}`;
      if (es.length === 0) return { start: c.start, end: c.end, insert: `{${item}}` };
      const { after, before } = this.placeKey(es, mapPath, key);
      const sep = this.flowSeparator(
        c,
        es.map((e) => ({ start: e.keyStart, end: Math.max(e.keyEnd, e.node.end) })),
      );
      if (before !== undefined) return { start: es[before]!.keyStart, end: es[before]!.keyStart, insert: `${item}${sep}` };
      const at = Math.max(es[after]!.keyEnd, es[after]!.node.end);
      return { start: at, end: at, insert: `${sep}${item}` };
    }
    const keyCol = this.col(es[0]!.keyStart);
    const pad = ' '.repeat(keyCol);
    const head = `${pad}${this.keyText(key, false)}:`;
    const sibling = es.find((e) => e.node.kind === 'scalar' && this.quoteOf(e.node))?.node;
    const one = this.inline(value, { quote: typeof value === 'string' ? this.quoteOf(sibling) : undefined, flow: false, indent: keyCol + 2 });
    let lines: string;
    if (one !== undefined) lines = `${head} ${one}`;
    else {
      const seqUnder = es.find((e) => e.node.kind === 'seq' && !e.node.flow && e.node.items?.length);
      const seqIndent = seqUnder ? this.col(this.dashStart(seqUnder.node.items![0]!.start)) > keyCol : this.seqIndent;
      const indent = Array.isArray(value) ? (seqIndent ? keyCol + this.step : keyCol) : keyCol + this.step;
      lines = [head, ...this.block(value as object, indent)].join('\n');
    }
    let { after, before } = this.placeKey(es, mapPath, key);
    if (before !== undefined) {
      const q = es[before]!;
      const ls = this.lineStart(q.keyStart);
      if (this.text.slice(ls, q.keyStart).trim() === '') return { start: ls, end: ls, insert: `${lines}\n` };
      after = before; // `- first: …` shares the dash line: go after it instead
    }
    return this.lineAfter(Math.max(es[after]!.keyEnd, es[after]!.node.end), lines);
  }

  appendItem(steps: Step[], value: unknown): Omit<Splice, 'seq' | 'depth'> {
    const c = steps[steps.length - 1]!.node;
    const items = c.items!;
    const last = items[items.length - 1];
    const quote = typeof value === 'string' ? this.quoteOf(last) : undefined;
    if (c.flow) {
      const item = this.flow(value, quote);
      if (!last) return { start: c.start, end: c.end, insert: `[${item}]` };
      const sep = this.flowSeparator(c, items);
      return { start: last.end, end: last.end, insert: `${sep}${item}` };
    }
    return this.lineAfter(last!.end, this.itemLines(value, this.col(this.dashStart(last!.start)), quote));
  }

  /** A block list item (`- value`, a map or list starting on the dash line) at column `dashCol`. */
  private itemLines(value: unknown, dashCol: number, quote: Quote): string {
    const pad = ' '.repeat(dashCol);
    const one = this.inline(value, { quote, flow: false, indent: dashCol + 2 });
    if (one !== undefined) return `${pad}- ${one}`;
    const sub = this.block(value as object, dashCol + 2);
    sub[0] = `${pad}- ${sub[0]!.slice(dashCol + 2)}`;
    return sub.join('\n');
  }

  /** A new item before item `idx` (above the comment lines that belong to that item). */
  insertItem(steps: Step[], idx: number, value: unknown): Omit<Splice, 'seq' | 'depth'> {
    const c = steps[steps.length - 1]!.node;
    const items = c.items!;
    const next = items[idx]!;
    const quote = typeof value === 'string' ? this.quoteOf(next) : undefined;
    if (c.flow) return { start: next.start, end: next.start, insert: `${this.flow(value, quote)}${this.flowSeparator(c, items)}` };
    const dash = this.dashStart(next.start);
    const ls = this.lineStart(dash);
    if (this.text.slice(ls, dash).trim() !== '')
      throw new Refused('This list shares its first line with its parent (`- - a`); an item cannot be inserted before it');
    const lines = this.itemLines(value, dash - ls, quote);
    const floor = idx > 0 ? this.lineEnd(items[idx - 1]!.end) : steps[steps.length - 1]!.entry ? this.lineEnd(steps[steps.length - 1]!.entry!.keyEnd) : ls;
    const at = this.commentsAbove(ls, floor);
    return { start: at, end: at, insert: `${lines}\n` };
  }

  /** The lines of a block list's item `i`: from the comment lines above it to the end of its last line; undefined if it shares a line. */
  private itemSpan(steps: Step[], i: number): { start: number; end: number } | undefined {
    const c = steps[steps.length - 1]!.node;
    const items = c.items!;
    const it = items[i];
    if (!it) return undefined;
    const dash = this.dashStart(it.start);
    const ls = this.lineStart(dash);
    if (this.text.slice(ls, dash).trim() !== '') return undefined;
    const entry = steps[steps.length - 1]!.entry;
    const floor = i > 0 ? this.lineEnd(items[i - 1]!.end) : entry ? this.lineEnd(entry.keyEnd) : ls;
    const end = this.lineEnd(it.end);
    if (end === this.text.length && !this.text.endsWith('\n')) return undefined;
    return { start: this.commentsAbove(ls, floor), end };
  }

  /** Move block list item `from` to index `to`, as text: cut its lines, paste them at the new place. */
  moveItem(steps: Step[], from: number, to: number): Omit<Splice, 'seq' | 'depth'>[] | undefined {
    const moved = this.itemSpan(steps, from);
    const target = this.itemSpan(steps, to);
    if (!moved || !target || from === to) return undefined;
    const lines = this.text.slice(moved.start, moved.end);
    const at = to > from ? target.end : target.start;
    return [
      { start: moved.start, end: moved.end, insert: '' },
      { start: at, end: at, insert: lines },
    ];
  }

  /** Insert whole lines after the line that holds `off`. */
  private lineAfter(off: number, lines: string): Omit<Splice, 'seq' | 'depth'> {
    const at = this.lineEnd(off);
    if (at === this.text.length && !this.text.endsWith('\n')) return { start: at, end: at, insert: `\n${lines}` };
    return { start: at, end: at, insert: `${lines}\n` };
  }

  /** Where a new key goes among existing entries: after the last one the wanted order puts before it, else before the first it puts after. */
  private placeKey(es: PosEntry[], mapPath: readonly PathSegment[], key: string): { after: number; before?: number } {
    const order = this.options.keyOrder?.(mapPath);
    const k = order ? order.indexOf(key) : -1;
    if (order && k >= 0) {
      const index = new Map(es.map((e, i) => [e.key, i]));
      for (let j = k - 1; j >= 0; j--) {
        const i = index.get(order[j]!);
        if (i !== undefined) return { after: i };
      }
      for (let j = k + 1; j < order.length; j++) {
        const i = index.get(order[j]!);
        if (i !== undefined) return { after: -1, before: i };
      }
    }
    return { after: es.length - 1 };
  }

  /** The separator a flow collection uses between its elements (`, ` or `,\n    ` …). */
  private flowSeparator(c: PosNode, els: { start: number; end: number }[]): string {
    if (els.length >= 2) {
      const sep = this.text.slice(els[0]!.end, els[1]!.start);
      if (/^[ \t]*,\s*$/.test(sep)) return sep;
    } else if (els.length === 1) {
      const gap = this.text.slice(c.start + 1, els[0]!.start);
      if (/^\s*$/.test(gap) && gap.includes('\n')) return `,${gap}`;
    }
    return ', ';
  }
}

function entries(v: object): [string, unknown][] {
  return Object.keys(v)
    .map((k): [string, unknown] => [k, (v as Record<string, unknown>)[k]])
    .filter(([, x]) => x !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping: the tree after scalars were replaced in place, and the changed regions.

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
