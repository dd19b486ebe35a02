/**
 * parseDocuments: text → Kubernetes objects with positions, never throwing.
 */
import type { PathSegment } from '../base/path';
import { constructChunk, type ConstructedDocument } from './construct';
import { settleTree, type PosNode, type TextProblem } from './pos-tree';
import { MAX_DOCUMENTS, MAX_TEXT_LENGTH } from './limits';
import { lineIndex, type LineIndex } from './lines';
import { isObject } from '../base/json';
import { formatPath } from '../base/path-format';
import { createPositionIndex } from './positions';
import { splitDocuments } from './split';
import { LEADING_TAB, leadingTab } from './go-yaml-scanner';
import { looksLikeJson } from './json';
import type { DuplicateKey, ParseOptions, ParseResult, ParsedDocument, PositionIndex, SourceRange, YamlError } from './types';

function formatSize(chars: number): string {
  return `${(chars / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Parse a YAML (or JSON) text holding any number of Kubernetes objects.
 *
 * - Documents are separated by `---`; empty documents are skipped. JSON is
 *   YAML, so a JSON object parses the same way (with positions).
 * - A document that is a `kind: List` / `kind: *List` is replaced by its
 *   items (see `fromList`).
 * - A document with a syntax error, or that is not a mapping, is reported in
 *   `errors` and left out of `documents`; the other documents still parse.
 * - A key given twice in a mapping reads as its last value (as the apiserver
 *   reads it under fieldValidation Warn and Ignore) and is reported in
 *   `duplicateKeys`, at its later occurrence: the field validation mode says
 *   whether it is an error (src/k8s field-validation.ts).
 * - Scalars are typed as Kubernetes types them (go-yaml v2, see ./resolve.ts).
 * - Never throws.
 */
export function parseDocuments(text: string, options: ParseOptions = {}): ParseResult {
  const errors: YamlError[] = [];
  const warnings: YamlError[] = [];
  const documents: ParsedDocument[] = [];
  const duplicateKeys: DuplicateKey[] = [];
  if (typeof text !== 'string') {
    return { documents, errors: [{ message: 'Nothing to parse: the input is not text', line: 1, column: 1 }], warnings, duplicateKeys };
  }
  const limit = options.maxTextLength ?? MAX_TEXT_LENGTH;
  if (text.length > limit) {
    errors.push({
      message: `The text is too large to parse (${formatSize(text.length)}; the limit is ${formatSize(limit)}). Split it into smaller files.`,
      line: 1,
      column: 1,
      offset: 0,
    });
    return { documents, errors, warnings, duplicateKeys };
  }
  try {
    parseInto(text, options, documents, errors, warnings, duplicateKeys);
  } catch (e) {
    // A bug or an exhausted engine (e.g. stack overflow): report it, never throw.
    errors.push({ message: `Could not parse the text: ${e instanceof Error ? e.message : String(e)}`, line: 1, column: 1, offset: 0 });
  }
  return { documents, errors, warnings, duplicateKeys };
}

/** The position tree of each parsed document (for ./edit.ts; not part of the public surface). */
const trees = new WeakMap<ParsedDocument, PosNode>();
export const posTreeOf = (doc: ParsedDocument): PosNode | undefined => {
  const root = trees.get(doc);
  return root && settleTree(root); // (callers read its nodes directly)
};
/** The `items` list of each unwrapped List, by the envelope its items share (for ./list-items.ts). */
const listItemsTrees = new WeakMap<object, PosNode>();
export const listItemsTreeOf = (envelope: object): PosNode | undefined => listItemsTrees.get(envelope);

/** What ./reparse.ts needs to read an edit of a parsed text again in part (not part of the public surface). */
export interface ParsedText {
  text: string;
  lines: LineIndex;
  root: PosNode;
  /** The document's chunk of the text (splitDocuments). */
  chunk: { start: number; end: number };
  warnings: YamlError[];
}
const parsedTexts = new WeakMap<ParsedDocument, ParsedText>();
export const parsedTextOf = (doc: ParsedDocument): ParsedText | undefined => parsedTexts.get(doc);

/** A document's tree went to another text (./reparse.ts): the document is no longer read from. */
export function forgetParsedText(doc: ParsedDocument): void {
  trees.delete(doc);
  parsedTexts.delete(doc);
}

/** A document of a text read in part (./reparse.ts), over `state`'s tree. */
export function parsedDocument(state: ParsedText, object: unknown, documentIndex: number): ParsedDocument {
  const { text, lines, root, chunk } = state;
  const doc: ParsedDocument = {
    object,
    documentIndex,
    source: lines.range(root.start, root.end),
    documentSource: lines.range(chunk.start, chunk.end),
    positions: lazyIndex(() => createPositionIndex(root, lines, text, chunk)),
  };
  trees.set(doc, root);
  parsedTexts.set(doc, state);
  return doc;
}

function parseInto(
  text: string,
  options: ParseOptions,
  documents: ParsedDocument[],
  errors: YamlError[],
  warnings: YamlError[],
  duplicateKeys: DuplicateKey[],
): void {
  const unwrapLists = options.unwrapLists ?? true;
  const allowNonObjects = options.allowNonObjects ?? false;
  const toError = (p: TextProblem, documentIndex: number): YamlError => {
    const a = lines.lineColumn(p.start);
    const b = lines.lineColumn(p.end);
    return {
      message: p.message,
      line: a.line,
      column: a.column,
      endLine: b.line,
      endColumn: b.column,
      offset: p.start,
      documentIndex,
      ...(p.path ? { path: formatPath(p.path) } : {}),
    };
  };

  const chunks = splitDocuments(text, MAX_DOCUMENTS);
  if (chunks.length > MAX_DOCUMENTS) {
    errors.push({
      message: `The text holds more than ${MAX_DOCUMENTS.toLocaleString('en-US')} documents (the limit). Split it into smaller files.`,
      line: 1,
      column: 1,
      offset: 0,
    });
    return;
  }
  const lines = lineIndex(text);
  // a tab that starts a line before a document's content: go-yaml refuses the document, js-yaml skips the line (a JSON
  // document is read by kubectl with encoding/json, where tabs are blanks)
  const tabbed = new Map<number, number>();
  chunks.forEach((c, i) => {
    const tab = looksLikeJson(text, c.start, c.end) ? -1 : leadingTab(text, c.start, c.end);
    if (tab >= 0) tabbed.set(i, tab);
  });
  const chunkAt = (offset: number, lo: number, hi: number): number => {
    // The last chunk in [lo, hi) that starts at or before offset.
    let a = lo;
    let b = hi - 1;
    while (a < b) {
      const mid = (a + b + 1) >> 1;
      if (chunks[mid]!.start <= offset) a = mid;
      else b = mid - 1;
    }
    return a;
  };

  const take = (doc: ConstructedDocument, documentIndex: number) => {
    if (tabbed.has(documentIndex)) return;
    const chunk = chunks[documentIndex]!;
    const firstWarning = warnings.length;
    for (const w of doc.warnings) warnings.push(toError(w, documentIndex));
    if (doc.errors.length > 0) {
      for (const e of doc.errors) errors.push(toError(e, documentIndex));
      return;
    }
    const value = doc.value;
    if (!isObject(value) && !allowNonObjects) {
      errors.push(toError({ message: notAMapping(value), start: doc.pos.start, end: doc.pos.end }, documentIndex));
      return;
    }
    // (in text order, as the apiserver's decoder lists them: a nested mapping's come before its own later key's)
    for (const d of [...doc.duplicates].sort((x, y) => x.start - y.start)) {
      duplicateKeys.push({ ...toError(d, documentIndex), key: d.key ?? '', path: formatPath(d.path ?? []), syntax: doc.json ? 'json' : 'yaml' });
    }
    const bounds = { start: chunk.start, end: chunk.end };
    const documentSource = lines.range(chunk.start, chunk.end);
    if (isObject(value) && unwrapLists && isList(value)) {
      unwrapList(value as Record<string, unknown>, doc.pos, documentIndex, documentSource, text, lines, documents, errors, toError, allowNonObjects);
      return;
    }
    const parsed: ParsedDocument = {
      object: value,
      documentIndex,
      source: lines.range(doc.pos.start, doc.pos.end),
      documentSource,
      positions: lazyIndex(() => createPositionIndex(doc.pos, lines, text, bounds)),
    };
    trees.set(parsed, doc.pos);
    parsedTexts.set(parsed, { text, lines, root: doc.pos, chunk: bounds, warnings: warnings.slice(firstWarning) });
    documents.push(parsed);
  };

  /**
   * Parse chunks [lo, hi) in one js-yaml call (one call per document would
   * cost a fixed ~30 µs each). On a syntax error, the chunk holding the error
   * is parsed alone and the chunks before and after it in their own calls, so
   * every good document still comes through and the work stays linear.
   */
  const batch = (lo: number, hi: number): void => {
    if (lo >= hi) return;
    const result = constructChunk(text, chunks[lo]!.start, chunks[hi - 1]!.end, lines);
    if (result.kind === 'documents') {
      for (const doc of result.documents) take(doc, chunkAt(doc.at, lo, hi));
      return;
    }
    if (hi - lo === 1) {
      if (!tabbed.has(lo)) errors.push(toError(result.problem, lo));
      return;
    }
    const bad = chunkAt(result.problem.start, lo, hi);
    batch(lo, bad);
    batch(bad, bad + 1);
    batch(bad + 1, hi);
  };
  batch(0, chunks.length);
  if (tabbed.size) {
    for (const [i, at] of tabbed) errors.push(toError({ message: LEADING_TAB, start: at, end: at + 1 }, i));
    errors.sort((a, b) => a.documentIndex! - b.documentIndex!); // (stable: each document's own stay in their order)
  }
}

function notAMapping(value: unknown): string {
  const what = Array.isArray(value) ? 'a list' : typeof value === 'string' ? 'a piece of text' : value === null ? 'null' : `a ${typeof value}`;
  const hint = Array.isArray(value)
    ? ' To give several objects in one document, use `apiVersion: v1`, `kind: List` and `items:`, or separate documents with `---`.'
    : ' Is a `key: value` line missing its colon, or is the indentation off?';
  return `This document is ${what}, not a Kubernetes object (a mapping with apiVersion and kind).${hint}`;
}

function isList(obj: Record<string, unknown>): boolean {
  return typeof obj.kind === 'string' && obj.kind.endsWith('List') && Object.hasOwn(obj, 'items');
}

function unwrapList(
  list: Record<string, unknown>,
  pos: PosNode,
  documentIndex: number,
  documentSource: SourceRange,
  text: string,
  lines: LineIndex,
  documents: ParsedDocument[],
  errors: YamlError[],
  toError: (p: TextProblem, documentIndex: number) => YamlError,
  allowNonObjects: boolean,
): void {
  const itemsEntry = pos.entries?.find((e) => e.key === 'items');
  const items = list.items;
  if (items === null) return; // `items:` with nothing: an empty List.
  if (!Array.isArray(items)) {
    const at = itemsEntry?.node ?? pos;
    errors.push(toError({ message: `items of a ${String(list.kind)} must be a list`, start: at.start, end: at.end, path: ['items'] }, documentIndex));
    return;
  }
  const envelope: Record<string, unknown> = {};
  for (const k of Object.keys(list)) if (k !== 'items') envelope[k] = list[k];
  const listSource = lines.range(pos.start, pos.end);
  if (itemsEntry?.node.kind === 'seq') listItemsTrees.set(envelope, itemsEntry.node);
  items.forEach((item, itemIndex) => {
    const itemPos = itemsEntry?.node.items?.[itemIndex] ?? pos;
    if (!isObject(item) && !allowNonObjects) {
      const path: PathSegment[] = ['items', itemIndex];
      errors.push(
        toError(
          {
            message: `Item ${itemIndex} of the ${String(list.kind)} is ${Array.isArray(item) ? 'a list' : item === null ? 'null' : `a ${typeof item}`}, not a Kubernetes object`,
            start: itemPos.start,
            end: itemPos.end,
            path,
          },
          documentIndex,
        ),
      );
      return;
    }
    const bounds = { start: itemPos.start, end: itemPos.end };
    documents.push({
      object: item,
      documentIndex,
      source: lines.range(itemPos.start, itemPos.end),
      documentSource,
      positions: lazyIndex(() => createPositionIndex(itemPos, lines, text, bounds)),
      fromList: { kind: String(list.kind), itemIndex, envelope, listSource },
    });
  });
}

/** A PositionIndex built on the first question, so parsing stays cheap when nobody asks. */
function lazyIndex(build: () => PositionIndex): PositionIndex {
  let index: PositionIndex | undefined;
  const get = () => (index ??= build());
  return {
    positionOf: (path) => get().positionOf(path),
    pathAt: (offset) => get().pathAt(offset),
    pathAtLineColumn: (line, column) => get().pathAtLineColumn(line, column),
  };
}
