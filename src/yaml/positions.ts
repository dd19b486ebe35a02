/**
 * Field path ↔ text position, over the PosNode tree built by ./construct.ts.
 * Paths are those of src/k8s/path.ts.
 */
import { parsePath, type PathSegment } from '../base/path';
import { formatPath } from '../base/path-format';
import { opened, type PosEntry, type PosNode } from './pos-tree';
import type { LineIndex } from './lines';
import type { FieldPosition, ParsedDocument, PathHit, PositionIndex, SourceRange } from './types';

export function createPositionIndex(root: PosNode, lines: LineIndex, text: string, bounds: { start: number; end: number }): PositionIndex {
  const range = (s: number, e: number): SourceRange => lines.range(s, e);

  const positionOf = (path: string | readonly PathSegment[]): FieldPosition => {
    const wanted = typeof path === 'string' ? parsePath(path) : path;
    let node = root;
    let entry: PosEntry | undefined;
    const found: PathSegment[] = [];
    for (const seg of wanted) {
      let next: PosNode | undefined;
      let nextEntry: PosEntry | undefined;
      let step: PathSegment = seg;
      opened(node);
      if (node.kind === 'map' && node.entries) {
        const k = String(seg);
        nextEntry = node.entries.find((e) => e.key === k);
        next = nextEntry?.node;
        step = k;
      } else if (node.kind === 'seq' && node.items) {
        const idx = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
        next = idx >= 0 ? node.items[idx] : undefined;
        nextEntry = undefined;
      }
      if (!next) break;
      node = next;
      entry = nextEntry;
      found.push(step);
    }
    const exact = found.length === wanted.length;
    const isRoot = found.length === 0;
    return {
      path: formatPath(found),
      segments: found,
      exact,
      ...(entry && !isRoot ? { key: range(entry.keyStart, entry.keyEnd) } : {}),
      value: isRoot ? range(root.start, root.end) : range(node.start, node.end),
    };
  };

  const pathAt = (offset: number): PathHit | undefined => {
    if (offset < bounds.start || offset > bounds.end) return undefined;
    const segs: PathSegment[] = [];
    let node = root;
    for (;;) {
      opened(node);
      if (node.kind === 'map' && node.entries) {
        const e = findEntry(node.entries, offset);
        if (!e) break;
        segs.push(e.key);
        if (offset >= e.keyStart && offset < e.keyEnd) return hit(segs, 'key');
        node = e.node;
      } else if (node.kind === 'seq' && node.items) {
        const idx = findItem(node, offset, text);
        if (idx < 0) break;
        segs.push(idx);
        node = node.items[idx]!;
      } else {
        break;
      }
    }
    return hit(segs, 'value');
  };

  return {
    positionOf,
    pathAt,
    pathAtLineColumn: (line, column) => pathAt(lines.offset(line, column)),
  };
}

function hit(segs: PathSegment[], part: 'key' | 'value'): PathHit {
  return { path: formatPath(segs), segments: segs.slice(), part };
}

/** The entry whose key or value covers `offset` (entries are in text order). */
function findEntry(entries: PosEntry[], offset: number): PosEntry | undefined {
  let lo = 0;
  let hi = entries.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.keyStart <= offset) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best < 0) return undefined;
  const e = entries[best]!;
  const end = Math.max(e.keyEnd, e.node.end);
  return offset <= end ? e : undefined;
}

/** The item covering `offset`; a block item also covers its `- ` marker. */
function findItem(node: PosNode, offset: number, text: string): number {
  const items = node.items!;
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const it = items[mid]!;
    const start = node.flow ? it.start : dashStart(it.start, text);
    if (offset < start) hi = mid - 1;
    else if (offset > it.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

function dashStart(start: number, text: string): number {
  let j = start;
  while (j > 0 && (text[j - 1] === ' ' || text[j - 1] === '\t')) j--;
  return j > 0 && text[j - 1] === '-' ? j - 1 : start;
}

/**
 * The document (of a parse result) at a 0-based offset of the text: the one
 * whose content covers it, else the first one of the YAML document (`---`
 * part) that covers it (a comment line, a List's envelope).
 */
export function documentAt(documents: readonly ParsedDocument[], offset: number): ParsedDocument | undefined {
  let best: ParsedDocument | undefined;
  let around: ParsedDocument | undefined;
  for (const d of documents) {
    if (offset >= d.source.startOffset && offset <= d.source.endOffset) {
      // List items are nested in their List's range: the narrowest wins.
      if (!best || d.source.endOffset - d.source.startOffset < best.source.endOffset - best.source.startOffset) best = d;
    } else if (!around && offset >= d.documentSource.startOffset && offset < d.documentSource.endOffset) {
      around = d;
    }
  }
  return best ?? around;
}

/** `doc.positions.positionOf(path)`. */
export function positionOf(doc: ParsedDocument, path: string | readonly PathSegment[]): FieldPosition {
  return doc.positions.positionOf(path);
}

/** `doc.positions.pathAt(offset)`. */
export function pathAt(doc: ParsedDocument, offset: number): PathHit | undefined {
  return doc.positions.pathAt(offset);
}

/** `doc.positions.pathAtLineColumn(line, column)`. */
export function pathAtLineColumn(doc: ParsedDocument, line: number, column: number): PathHit | undefined {
  return doc.positions.pathAtLineColumn(line, column);
}
