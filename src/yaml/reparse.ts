/**
 * Reading an edited text again in part: an edit inside one element of a block list or one entry
 * of a block mapping parses only that element's lines and keeps the rest of the tree, so a
 * keystroke in a 10,000-webhook document parses one webhook, not 5 MB. Undefined where the element
 * alone cannot tell (the caller parses the whole text). The previous parse's tree is moved, not
 * copied: do not use it afterwards. README.md ("Reading an edit in part").
 */
import { setOwn } from '../base/json';
import { changedRange, type TextChange } from '../base/text-diff';
import type { PathSegment } from '../base/path';
import { formatPath } from '../base/path-format';
import { constructChunk } from './construct';
import { applyEdits } from './edit';
import { editsBetween } from './edit-diff';
import { adoptTree, releaseTree } from './edit-tree';
import type { EditOptions, EditResult } from './edit-types';
import { MAX_DEPTH, MAX_PROBLEMS_PER_DOCUMENT, MAX_TEXT_LENGTH } from './limits';
import { editedLineIndex, type LineIndex } from './lines';
import { forgetParsedText, parsedDocument, parsedTextOf, type ParsedText } from './parse';
import { markPending, moveTree, opened, settleTree, type PosEntry, type PosNode } from './pos-tree';
import type { ParseResult, YamlError } from './types';

export type { TextChange };

/** A window larger than this is not worth it: parsing the whole text costs about the same. */
const MAX_WINDOW = 256 * 1024;
const ALIAS_LIKE = /(?:^|[\s[{,])[*&][^\s[\]{},]|<<\s*:/;
const MARKER = /^(?:---|\.\.\.)(?:[ \t\r]|$)/m;
/** Texts known to hold no alias, anchor, merge key or directive (a text is scanned once; an edited one inherits it). */
const plainTexts = new WeakMap<ParsedText, boolean>();

/**
 * `parseDocuments(text)` for `text`, an edit of `prevText` whose parse `prev` was (by
 * parseDocuments or by this function), or undefined when only a whole parse can tell.
 * `options.change`: where the texts differ, when the caller knows (else they are compared);
 * `options.object`: the object `prevText` reads as, when the caller holds one (deep-equal to
 * prev's; the result shares its values where the edit did not reach).
 */
export function reparseDocuments(
  prevText: string,
  prev: ParseResult,
  text: string,
  options: { change?: TextChange; object?: unknown } = {},
): ParseResult | undefined {
  // (a text with a key given twice is read whole: which occurrence wins depends on the text around the edit)
  if (prev.errors.length || prev.duplicateKeys.length || prev.documents.length !== 1 || prev.documents[0]!.fromList) return undefined;
  const doc = prev.documents[0]!;
  const state = parsedTextOf(doc);
  if (!state || state.text !== prevText || text.length > MAX_TEXT_LENGTH) return undefined;
  if (!isPlain(state)) return undefined;
  const change = options.change ?? changedRange(prevText, text);
  if (!change) return undefined;
  const { at, oldEnd, newEnd } = change;
  if (at < state.chunk.start || oldEnd > state.chunk.end) return undefined;
  const chain = windows(state.root, prevText, at, oldEnd);
  if (!chain.length) return undefined;
  const lines = editedLineIndex(state.lines, text, at, oldEnd, newEnd);
  if (!lines) return undefined;
  for (let depth = chain.length; depth > 0; depth--) {
    const r = tryWindow(state, options.object ?? doc.object, chain.slice(0, depth), text, lines, change, doc.documentIndex);
    if (r === 'refused') return undefined;
    if (r) {
      markPending(state.root);
      const next: ParsedText = {
        text,
        lines,
        root: state.root,
        chunk: { start: state.chunk.start, end: state.chunk.end + newEnd - oldEnd },
        warnings: r.warnings,
      };
      plainTexts.set(next, true);
      forgetParsedText(doc);
      return { documents: [parsedDocument(next, r.object, doc.documentIndex)], errors: [], warnings: r.warnings, duplicateKeys: [] };
    }
  }
  return undefined;
}

/**
 * applyEdits of the change from `before` (what `text` reads as) to `after` on a text whose parse
 * is at hand (`prev`): the edit starts from that parse's tree instead of parsing the text again,
 * and where it replaced scalars in place the result comes with its own parse (`parsed`, reading
 * as `after`), the tree shifted. `consumed`: `prev` may no longer be used (its tree went to the
 * new text, or may have been changed on the way).
 */
export function applyEditsWithParse(
  text: string,
  prev: ParseResult | undefined,
  before: unknown,
  after: unknown,
  options: EditOptions = {},
): { result: EditResult; parsed?: ParseResult; consumed: boolean } {
  const edits = editsBetween(before, after);
  const doc =
    prev && !prev.errors.length && !prev.duplicateKeys.length && prev.documents.length === 1 && !prev.documents[0]!.fromList ? prev.documents[0]! : undefined;
  const state = doc && parsedTextOf(doc);
  if (!doc || !state || state.text !== text) return { result: applyEdits(text, edits, options), consumed: false };
  // (the parse's line starts too, where they are the LF-only ones applyEdits counts: building them is a pass over 5 MB)
  const lent = adoptTree(text, settleTree(state.root), before, !isPlain(state), state.lines.loneCR ? undefined : state.lines.starts);
  const result = applyEdits(text, edits, options);
  if (!lent) return { result, consumed: false };
  // Untouched, the tree is still kept for the text: take it back.
  if (releaseTree(text) === state.root) return { result, consumed: false };
  forgetParsedText(doc);
  const root = result.error ? undefined : releaseTree(result.text);
  if (root !== state.root || state.warnings.length) return { result, consumed: true };
  // Scalars replaced in place (applyEdits writes none that read with a warning): the tree was shifted for the new text.
  const change = changedRange(text, result.text);
  const lines = change && editedLineIndex(state.lines, result.text, change.at, change.oldEnd, change.newEnd);
  if (!change || !lines) return { result, consumed: true };
  const next: ParsedText = {
    text: result.text,
    lines,
    root,
    chunk: { start: state.chunk.start, end: state.chunk.end + change.newEnd - change.oldEnd },
    warnings: [],
  };
  plainTexts.set(next, isPlain(state));
  return { result, parsed: { documents: [parsedDocument(next, after, doc.documentIndex)], errors: [], warnings: [], duplicateKeys: [] }, consumed: true };
}

function isPlain(state: ParsedText): boolean {
  let plain = plainTexts.get(state);
  if (plain === undefined) {
    const t = state.text.slice(state.chunk.start, state.chunk.end);
    plain = !ALIAS_LIKE.test(t) && !/^%/m.test(t) && !(t.includes('\r') && /\r(?!\n)/.test(t));
    plainTexts.set(state, plain);
  }
  return plain;
}

/** One level of the way down to the edit: the element `seg` of the block collection `node`, whose lines are [start, end). */
interface Level {
  node: PosNode;
  index: number;
  seg: PathSegment;
  start: number;
  end: number;
  /** The column of the element's dash or key. */
  column: number;
}

/** The elements that hold [at, oldEnd) with their lines, outermost first. */
function windows(root: PosNode, text: string, at: number, oldEnd: number): Level[] {
  const out: Level[] = [];
  let node = root;
  for (;;) {
    if (node.flow) break;
    opened(node);
    let level: Level | undefined;
    let child: PosNode | undefined;
    if (node.kind === 'seq' && node.items?.length) {
      const items = node.items;
      const i = lastBefore(items.length, at + 1, (k) => items[k]!.start);
      const item = items[i];
      if (!item) break;
      const dash = dashOf(text, item.start);
      const start = lineStart(text, dash);
      if (dash < 0 || !blank(text, start, dash)) break;
      level = { node, index: i, seg: i, start, end: nextContentLine(text, item.end), column: dash - start };
      child = item;
    } else if (node.kind === 'map' && node.entries?.length) {
      const entries = node.entries;
      const i = lastBefore(entries.length, at, (k) => entries[k]!.keyStart);
      const e = entries[i];
      if (!e) break;
      const start = lineStart(text, e.keyStart);
      if (!blank(text, start, e.keyStart)) break;
      level = { node, index: i, seg: e.key, start, end: nextContentLine(text, Math.max(e.keyEnd, e.node.end)), column: e.keyStart - start };
      child = e.node;
    }
    if (!level || !child) break;
    // The element's own first character (its dash or key) must be before the edit, the edit inside its lines.
    if (at <= level.start + level.column || oldEnd > level.end || (at >= level.end && level.end !== text.length)) break;
    out.push(level);
    node = child;
  }
  return out;
}

/** The last k in [0, n) whose key(k) < at (keys increase), or -1. */
function lastBefore(n: number, at: number, key: (k: number) => number): number {
  let lo = 0;
  let hi = n - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(mid) < at) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** The offset of the `-` of a block list item whose value starts at `start` on the dash's line, or -1. */
function dashOf(text: string, start: number): number {
  let j = start;
  while (j > 0 && text.charCodeAt(j - 1) === 32) j--;
  return j > 0 && j < start && text.charCodeAt(j - 1) === 45 ? j - 1 : -1;
}

const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;

/** Whether text[a, b) holds only spaces. */
function blank(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (text.charCodeAt(i) !== 32) return false;
  return true;
}

/** The start of the first line after the one `end` (an element's end) is on that holds more than blanks and a comment, or the text's end. */
function nextContentLine(text: string, end: number): number {
  const nl = text.indexOf('\n', end);
  let pos = nl < 0 ? text.length : nl + 1;
  while (pos < text.length) {
    let i = pos;
    while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
    const c = text.charCodeAt(i);
    if (i < text.length && c !== 10 && c !== 13 && c !== 35) return pos;
    const next = text.indexOf('\n', i);
    if (next < 0) return text.length;
    pos = next + 1;
  }
  return text.length;
}

interface Spliced {
  object: unknown;
  warnings: YamlError[];
}

/**
 * Parse the lines of the deepest level of `chain` in the new text and splice the result into
 * the object and the tree; undefined when the element does not read back as one element of its
 * own (try the level above), 'refused' when no level can.
 */
function tryWindow(
  state: ParsedText,
  object: unknown,
  chain: Level[],
  text: string,
  lines: LineIndex,
  change: TextChange,
  documentIndex: number,
): Spliced | undefined | 'refused' {
  const level = chain[chain.length - 1]!;
  const delta = change.newEnd - change.oldEnd;
  const start = level.start;
  const end = level.end + delta;
  if (end - start > MAX_WINDOW) return 'refused';
  if (end < change.newEnd || (end !== text.length && text.charCodeAt(end - 1) !== 10)) return undefined;
  const window = text.slice(start, end);
  if (ALIAS_LIKE.test(window) || /^%/m.test(window) || MARKER.test(window)) return 'refused';
  const r = constructChunk(text, start, end, lines);
  if (r.kind !== 'documents' || r.documents.length !== 1) return undefined;
  const built = r.documents[0]!;
  if (built.duplicates.length) return 'refused'; // a key given twice: the whole parse reports it
  if (built.errors.length || built.pos.flow) return undefined;
  let node: PosNode;
  let entry: PosEntry | undefined;
  let value: unknown;
  if (typeof level.seg === 'number') {
    if (built.pos.kind !== 'seq' || built.pos.items?.length !== 1 || !Array.isArray(built.value)) return undefined;
    node = built.pos.items[0]!;
    value = built.value[0];
    if (node.start === node.end) return undefined; // an empty item's position depends on the item before it
  } else {
    if (built.pos.kind !== 'map' || built.pos.entries?.length !== 1 || built.pos.entries[0]!.key !== level.seg) return undefined;
    entry = built.pos.entries[0]!;
    node = entry.node;
    value = (built.value as Record<string, unknown>)[level.seg];
  }
  if (chain.length + depthOf(node) + 2 >= MAX_DEPTH) return 'refused';
  if (!indentedInside(text, start, node.end, level)) return undefined;
  if (built.warnings.length + state.warnings.length >= MAX_PROBLEMS_PER_DOCUMENT) return 'refused';

  // The object: copies along the path, the new element in place.
  const path = chain.map((l) => l.seg);
  const next = replaceAt(object, path, value);
  if (next === undefined) return undefined;
  if (chain.length === 1 && isListObject(next)) return 'refused'; // a List is unwrapped by a whole parse

  // The tree: the new element in place, everything after it moved.
  const oldEnd = level.end;
  if (typeof level.seg === 'number') level.node.items![level.index] = node;
  else level.node.entries![level.index] = entry!;
  for (let d = chain.length - 1; d >= 0; d--) {
    const l = chain[d]!;
    const c = l.node;
    // (each later element moved in O(1): its descendants follow when read, pos-tree.ts `opened`)
    if (c.items) for (let k = l.index + 1; k < c.items.length; k++) moveTree(c.items[k]!, delta);
    if (c.entries)
      for (let k = l.index + 1; k < c.entries.length; k++) {
        const e = c.entries[k]!;
        e.keyStart += delta;
        e.keyEnd += delta;
        moveTree(e.node, delta);
      }
    c.end = c.items ? Math.max(c.items[c.items.length - 1]!.end, c.start) : Math.max(c.entries![c.entries!.length - 1]!.node.end, c.start);
  }

  // Warnings: those before the element stay, the element's are new, those after it move.
  const lineDelta = lines.lineColumn(end).line - state.lines.lineColumn(oldEnd).line;
  const before = state.warnings.filter((w) => (w.offset ?? 0) < start);
  const after = state.warnings.filter((w) => (w.offset ?? 0) >= oldEnd).map((w) => moved(w, delta, lineDelta));
  const mine = built.warnings.map((w): YamlError => {
    const a = lines.lineColumn(w.start);
    const b = lines.lineColumn(w.end);
    const rel = w.path ?? [];
    return {
      message: w.message,
      line: a.line,
      column: a.column,
      endLine: b.line,
      endColumn: b.column,
      offset: w.start,
      documentIndex,
      // paths inside the element start at its own index or key
      ...(w.path ? { path: formatPath(rel.length ? [...path, ...rel.slice(1)] : path.slice(0, -1)) } : {}),
    };
  });
  return { object: next, warnings: [...before, ...mine, ...after] };
}

function moved(w: YamlError, delta: number, lineDelta: number): YamlError {
  return {
    ...w,
    line: w.line + lineDelta,
    ...(w.endLine !== undefined ? { endLine: w.endLine + lineDelta } : {}),
    ...(w.offset !== undefined ? { offset: w.offset + delta } : {}),
  };
}

function depthOf(n: PosNode): number {
  let d = 0;
  if (n.items) for (const it of n.items) d = Math.max(d, depthOf(it));
  if (n.entries) for (const e of n.entries) d = Math.max(d, depthOf(e.node));
  return d + 1;
}

/**
 * Whether every line of the element after its first is indented past the element's column (or
 * is blank, or, in a mapping, a compact list item at the key's column): then it reads the same
 * on its own as among the lines around it.
 */
function indentedInside(text: string, start: number, end: number, level: Level): boolean {
  for (let pos = text.indexOf('\n', start) + 1; pos > 0 && pos < end; pos = text.indexOf('\n', pos) + 1) {
    let i = pos;
    while (text.charCodeAt(i) === 32) i++;
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    if (c === 9) return false;
    const column = i - pos;
    if (column > level.column) continue;
    if (column === level.column && typeof level.seg === 'string' && c === 45) continue;
    return false;
  }
  return true;
}

/** `value` at `path` of `root`, copying the collections on the way (undefined when the path is not there). */
function replaceAt(root: unknown, path: readonly PathSegment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [seg, ...rest] = path;
  if (Array.isArray(root) && typeof seg === 'number' && seg < root.length) {
    const inner = replaceAt(root[seg], rest, value);
    if (inner === undefined) return undefined;
    const out = root.slice();
    out[seg] = inner;
    return out;
  }
  if (typeof root === 'object' && root !== null && !Array.isArray(root) && typeof seg === 'string' && Object.hasOwn(root, seg)) {
    const inner = replaceAt((root as Record<string, unknown>)[seg], rest, value);
    if (inner === undefined) return undefined;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(root)) setOwn(out, k, k === seg ? inner : (root as Record<string, unknown>)[k]);
    return out;
  }
  return undefined;
}

const isListObject = (o: unknown): boolean => {
  const v = o as { kind?: unknown };
  return typeof v?.kind === 'string' && v.kind.endsWith('List') && Object.hasOwn(o as object, 'items');
};
