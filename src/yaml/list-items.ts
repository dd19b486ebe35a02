/**
 * The items of a `kind: List` document as texts of their own, and the List written back around
 * them: an untouched List is written back byte-identical, an edited item changes only its own
 * lines. README.md ("List items").
 */
import { deepEqual, isObject } from '../base/json';
import { listItemsTreeOf, parseDocuments, posTreeOf } from './parse';
import type { PosNode } from './pos-tree';
import type { ParsedDocument } from './types';

/** The List around its items. */
export interface ListFrame {
  /** The List document up to its first item (the first item's line in a block list; its `{` in a flow one). */
  head: string;
  /** The List after its last item (after the line it ends on, in a block list). */
  tail: string;
  /** The items are a flow list (`[…]`, as in JSON): items are joined with `,`. */
  flow: boolean;
}

/** One item of a List: its own text and how it sits in the List. */
export interface ListItemText {
  /** The item as a document of its own. */
  text: string;
  /** What stands before the item inside the List: its `- ` and the comment lines above it, or `,\n    ` in a flow list. */
  gap: string;
  /** Columns taken off the item's lines after the first (put back when the List is written). */
  indent: number;
  /** A line end was added after the item (a flow item ends mid-line): taken off again when the List is written. */
  newline: boolean;
}

/** Where a document sat in the List it was imported from: the List (by id, and its frame) and the item's gap and indentation. */
export interface ListSlot extends Omit<ListItemText, 'text'> {
  /** The same for every item of one imported List. */
  list: string;
  frame: ListFrame;
}

/** The slot of a copy of a List item: written after it in the same List, without the comment lines above the original. */
export function copiedSlot(slot: ListSlot): ListSlot {
  return { ...slot, gap: slot.frame.flow ? slot.gap || ', ' : slot.gap.slice(slot.gap.lastIndexOf('\n') + 1) };
}

/** A ListSlot read back from storage or a workspace file (anything else: not one). */
export function isListSlot(x: unknown): x is ListSlot {
  if (!isObject(x) || !isObject(x.frame)) return false;
  const { list, gap, indent, newline, frame } = x;
  return (
    typeof list === 'string' &&
    typeof gap === 'string' &&
    typeof indent === 'number' &&
    typeof newline === 'boolean' &&
    typeof frame.head === 'string' &&
    typeof frame.tail === 'string' &&
    typeof frame.flow === 'boolean'
  );
}

const isBlank = (line: string): boolean => line === '' || line === '\r';

/** `text` with `n` columns taken off every line after the first; undefined when putting them back would not give `text` again. */
function dedent(text: string, n: number): string | undefined {
  if (n === 0) return text;
  const pad = ' '.repeat(n);
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (isBlank(line)) continue;
    if (!line.startsWith(pad) || isBlank(line.slice(n))) return undefined;
    lines[i] = line.slice(n);
  }
  return lines.join('\n');
}

/** `text` with `n` columns put back on every non-empty line after the first (the inverse of dedent). */
function indent(text: string, n: number): string {
  if (n === 0) return text;
  const pad = ' '.repeat(n);
  return text
    .split('\n')
    .map((line, i) => (i === 0 || isBlank(line) ? line : pad + line))
    .join('\n');
}

/**
 * The List document `text` (one document: a `kind: *List` with `items`) cut into its frame and
 * its items' own texts, or undefined when that cannot be done exactly: the text is not one
 * List, an item's lines are indented less than the item (or hold only the item's indentation),
 * or an item's text alone does not read back as the item (an alias to an anchor outside it, a
 * block scalar whose kept line ends reach past the item, an item that is itself a List).
 */
export function listItemTexts(text: string): ListCut | undefined {
  const parsed = parseDocuments(text, { unwrapLists: false });
  const doc = parsed.documents[0];
  if (parsed.errors.length || parsed.documents.length !== 1 || !doc) return undefined;
  const itemsNode = posTreeOf(doc)?.entries?.find((e) => e.key === 'items')?.node;
  const values = (doc.object as { items?: unknown }).items;
  if (!itemsNode || !Array.isArray(values)) return undefined;
  return cut(text, 0, text.length, itemsNode, values);
}

/**
 * The same for the items `parseDocuments(text)` unwrapped from one List (all of them, in order),
 * whose document is `text.slice(from, to)`: the positions that parse recorded are used, so the
 * List is not parsed again.
 */
export function listItemTextsOf(text: string, from: number, to: number, items: readonly ParsedDocument[]): ListCut | undefined {
  const envelope = items[0]?.fromList?.envelope;
  const itemsNode = envelope && listItemsTreeOf(envelope);
  if (!itemsNode || items.some((d, i) => d.fromList?.envelope !== envelope || d.fromList.itemIndex !== i)) return undefined;
  return cut(
    text,
    from,
    to,
    itemsNode,
    items.map((d) => d.object),
  );
}

export interface ListCut {
  frame: ListFrame;
  items: ListItemText[];
}

/** Anchors and aliases, merge keys, block scalars that keep their final line ends, document markers: an item's text is parsed alone to check it. */
const NEEDS_CHECK = /(?:^|[\s[{,])[&*][^\s[\]{},]|<<\s*:|[|>][1-9]?\+|^(?:---|\.\.\.)(?:[ \t\r]|$)/m;

function cut(text: string, from: number, to: number, itemsNode: PosNode, values: readonly unknown[]): ListCut | undefined {
  if (itemsNode.kind !== 'seq' || !itemsNode.items?.length || values.length !== itemsNode.items.length) return undefined;
  if (values.some((v) => isObject(v) && typeof v.kind === 'string' && v.kind.endsWith('List') && Object.hasOwn(v, 'items'))) return undefined; // a List in a List
  const flow = itemsNode.flow;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lineStart = (off: number): number => Math.max(from, text.lastIndexOf('\n', off - 1) + 1);
  const lineEnd = (off: number): number => {
    const nl = text.indexOf('\n', off);
    return nl < 0 || nl >= to ? to : nl + 1;
  };
  // An item's span: a block item to the end of its last line (a comment after it included), a flow item to its bracket.
  const spans = itemsNode.items.map((n) => ({ start: n.start, end: flow ? n.end : lineEnd(n.end) }));
  if (spans.some((s) => s.end <= s.start || s.start < from || s.end > to)) return undefined;
  const headEnd = flow ? spans[0]!.start : lineStart(spans[0]!.start);
  const items: ListItemText[] = [];
  for (let i = 0; i < spans.length; i++) {
    const { start, end } = spans[i]!;
    const column = start - lineStart(start);
    const own = dedent(text.slice(start, end), column);
    if (own === undefined) return undefined;
    const newline = !own.endsWith('\n');
    const itemText = newline ? own + eol : own;
    if (NEEDS_CHECK.test(itemText)) {
      const alone = parseDocuments(itemText);
      if (alone.errors.length || alone.documents.length !== 1 || alone.documents[0]!.fromList || !deepEqual(alone.documents[0]!.object, values[i]))
        return undefined;
    }
    items.push({ text: itemText, gap: text.slice(i === 0 ? headEnd : spans[i - 1]!.end, start), indent: column, newline });
  }
  return { frame: { head: text.slice(from, headEnd), tail: text.slice(spans[spans.length - 1]!.end, to), flow }, items };
}

/**
 * The List written back around `items` (their texts as they are now, in this order: some may
 * have been removed or moved). Each item keeps its own gap in a block list; in a flow list
 * the first item follows the head directly and the others are joined by their gap (`, ` for
 * one that had none). The caller checks that the result reads back as wanted.
 */
export function writeList(frame: ListFrame, items: readonly ListItemText[]): string {
  let out = frame.head;
  items.forEach((item, k) => {
    let text = item.text;
    const lastLine = frame.flow || (k === items.length - 1 && !frame.tail);
    if (lastLine) {
      if (item.newline) text = text.replace(/\r?\n$/, '');
    } else if (!text.endsWith('\n')) text += '\n'; // the next line is the List's own
    const gap = !frame.flow ? item.gap : k === 0 ? '' : item.gap || ', ';
    out += gap + indent(text, item.indent);
  });
  return out + frame.tail;
}
