/**
 * A cluster snapshot (`kubectl get … -o json|yaml`, one or several files, gzip or not) read as a
 * stream: objects as they come, Lists unwrapped, never the whole text in memory. A piece that does
 * not parse is a problem with its line and the rest go on; never throws. How JSON and YAML are
 * cut into pieces: README.md (`snapshot.ts`).
 */
import { isObject } from '../base/json';
import { parseDocuments } from '../yaml';
import { MAX_LINE_BYTES, readLineBatches, textChunks, type TextSource } from './lines';

/**
 * The command that writes a snapshot: every listable kind but Secrets (their contents are never
 * needed and should not leave the cluster). One home: the Impact view shows it, README.md quotes it
 * (report.test.ts holds them equal).
 */
export const SNAPSHOT_COMMAND = "kubectl get $(kubectl api-resources --verbs=list -o name | grep -v '^secrets$' | paste -sd, -) -A -o json > snapshot.json";

export type SnapshotItem = { object: unknown } | { problem: string };

/** Longest single object (or document) read, in characters. */
export const MAX_ITEM_CHARS = MAX_LINE_BYTES;
/** YAML pieces parsed in one call: up to this many characters (1 MiB: the 50,000-pod YAML peaked at 1,014 MB RSS; 128 KiB: 850 MB, the same CPU) … */
const YAML_BATCH_CHARS = 1 << 17;
/** … or this many pieces (well under the parser's MAX_DOCUMENTS). */
const YAML_BATCH_PIECES = 2_000;

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const mib = (n: number): string => `${Math.round(n / 1024 / 1024)} MiB`;
const isList = (v: unknown): v is { items: unknown } => isObject(v) && typeof v.kind === 'string' && v.kind.endsWith('List') && Object.hasOwn(v, 'items');

/** Objects and problems of one snapshot file (`name` prefixes each problem, as `name:line: …`). */
export async function* readSnapshot(source: TextSource, name: string, maxItem = MAX_ITEM_CHARS): AsyncGenerator<SnapshotItem> {
  const chunks = textChunks(source);
  const seen: string[] = [];
  let json: boolean | undefined;
  try {
    for (let r = await chunks.next(); !r.done; r = await chunks.next()) {
      seen.push(r.value);
      const m = /\S/.exec(r.value);
      if (m) {
        json = m[0] === '{' || m[0] === '[';
        break;
      }
    }
  } catch (e) {
    yield { problem: `${name}: ${message(e)}` };
    return;
  }
  if (json === undefined) return; // empty, or only white space
  const all: AsyncIterable<string> = {
    async *[Symbol.asyncIterator]() {
      yield* seen;
      yield* chunks;
    },
  };
  if (json) {
    const split = jsonSplitter(name, maxItem);
    try {
      for await (const chunk of all) yield* split.push(chunk);
    } catch (e) {
      yield* split.end();
      yield { problem: `${name}: ${message(e)}` };
      return;
    }
    yield* split.end();
  } else yield* yamlPieces(all, name, maxItem);
}

/** A value's objects: a List's items, a mapping itself; anything else a problem. */
function* objectsOf(value: unknown, where: string): Generator<SnapshotItem> {
  if (isList(value)) {
    if (value.items == null) return;
    if (!Array.isArray(value.items)) return yield { problem: `${where}: a List whose items are not a list` };
    for (const item of value.items) yield* objectsOf(item, where);
  } else if (isObject(value)) yield { object: value };
  else yield { problem: `${where}: ${Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`}, not a Kubernetes object` };
}

/** JSON.parse, its failure with the file's line (V8 names the position). */
function parseJson(text: string, line: number, name: string): Generator<SnapshotItem> | SnapshotItem {
  try {
    return objectsOf(JSON.parse(text), `${name}:${line}`);
  } catch (e) {
    const msg = message(e);
    const at = /position (\d+)/.exec(msg);
    let l = line;
    if (at) for (let i = 0, end = Math.min(Number(at[1]), text.length); i < end; i++) if (text.charCodeAt(i) === 10) l++;
    // one line: V8 quotes the text around the error, newlines and all
    return { problem: `${name}:${l}: not JSON: ${msg.replace(/\s+/g, ' ')}` };
  }
}

const NONE = 0;
const SHELL = 1;
const ELEMENT = 2;
const GAP = 3;

/**
 * The incremental JSON splitter: `push` a chunk, get the objects completed in it; `end` says
 * what was left unfinished. Top-level values one after another (pretty or compact); the elements
 * of a top-level object's `items` array are cut out and parsed one by one.
 */
function jsonSplitter(name: string, maxItem: number): { push(chunk: string): SnapshotItem[]; end(): SnapshotItem[] } {
  let line = 1;
  let depth = 0;
  let inString = false;
  let escapePending = false;
  let target = NONE;
  /** The top-level value: an object (its items may be streamed), its first line. */
  let topObject = false;
  let topLine = 0;
  let inItems = false;
  let itemsSeen = false;
  /** The last depth-1 string (a key, once a colon follows it), and the key whose value comes. */
  let str: string | undefined;
  let lastStr = '';
  let key = '';
  let shell: string[] = [];
  let shellLength = 0;
  let shellTooLong = false;
  let element: string[] = [];
  let elementLength = 0;
  let elementTooLong = false;
  let elementLine = 0;
  let junkLine = 0;
  let seg0 = 0; // where the depth-1 string being read began in the current chunk

  const add = (to: number, piece: string): void => {
    if (!piece) return;
    if (to === SHELL) {
      if (shellTooLong) return;
      shellLength += piece.length;
      if (shellLength > maxItem) (shellTooLong = true), (shell = []);
      else shell.push(piece);
    } else if (to === ELEMENT) {
      if (elementTooLong) return;
      elementLength += piece.length;
      if (elementLength > maxItem) (elementTooLong = true), (element = []);
      else element.push(piece);
    }
  };

  const push = (chunk: string): SnapshotItem[] => {
    const out: SnapshotItem[] = [];
    let seg = 0;
    const flush = (i: number): void => {
      if (target === SHELL || target === ELEMENT) add(target, chunk.slice(seg, i));
      seg = i;
    };
    const endElement = (): void => {
      if (elementTooLong) out.push({ problem: `${name}:${elementLine}: an item of more than ${mib(maxItem)}: not read` });
      else {
        const r = parseJson(element.join(''), elementLine, name);
        if ('next' in r) out.push(...r);
        else out.push(r);
      }
      element = [];
      elementLength = 0;
      elementTooLong = false;
    };
    const endValue = (): void => {
      if (shellTooLong) out.push({ problem: `${name}:${topLine}: a value of more than ${mib(maxItem)}: not read` });
      else {
        const r = parseJson(shell.join(''), topLine, name);
        if (!('next' in r)) out.push(r);
        else if (!itemsSeen) out.push(...r);
        // else: the List around its items, already read
      }
      shell = [];
      shellLength = 0;
      shellTooLong = false;
      inItems = itemsSeen = false;
      key = lastStr = '';
    };
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) line++;
      if (inString) {
        // to the string's end at once: the next quote after an even run of backslashes (most of
        // a snapshot's characters are in strings; JSON strings hold no raw line breaks)
        const from = escapePending ? i + 1 : i; // an escape left by the last chunk takes this character
        escapePending = false;
        let closed = -1;
        for (let j = from, q = chunk.indexOf('"', j); q >= 0; j = q + 1, q = chunk.indexOf('"', j)) {
          let b = 0;
          while (q - 1 - b >= from && chunk.charCodeAt(q - 1 - b) === 92) b++;
          if ((b & 1) === 0) {
            closed = q;
            break;
          }
        }
        if (closed < 0) {
          let b = 0;
          while (n - 1 - b >= from && chunk.charCodeAt(n - 1 - b) === 92) b++;
          escapePending = (b & 1) === 1;
          i = n - 1;
          continue;
        }
        inString = false;
        if (str !== undefined) {
          lastStr = (str + chunk.slice(seg0, closed)).slice(0, 32);
          str = undefined;
        }
        i = closed;
        continue;
      }
      if (c <= 32) continue; // white space
      if (depth === 0) {
        if (c !== 123 && c !== 91) {
          if (junkLine !== line) out.push({ problem: `${name}:${line}: not JSON: unexpected ${JSON.stringify(chunk[i])}` });
          junkLine = line;
          continue;
        }
        target = SHELL;
        seg = i;
        topObject = c === 123;
        topLine = line;
      } else if (inItems && depth === 2) {
        if (c === 44) {
          if (target === ELEMENT) flush(i), endElement();
          target = GAP;
          seg = i + 1;
          continue;
        }
        if (target === GAP && c !== 93) {
          target = ELEMENT;
          seg = i;
          elementLine = line;
        }
      }
      switch (c) {
        case 34:
          inString = true;
          if (depth === 1) (str = ''), (seg0 = i + 1);
          break;
        case 123:
        case 91:
          depth++;
          if (c === 91 && depth === 2 && topObject && key === 'items' && !itemsSeen) {
            flush(i + 1);
            target = GAP;
            inItems = itemsSeen = true;
          }
          break;
        case 125:
        case 93:
          depth--;
          if (inItems && depth === 1) {
            if (target === ELEMENT) flush(i), endElement();
            target = SHELL;
            seg = i;
            inItems = false;
          } else if (depth === 0) {
            flush(i + 1);
            target = NONE;
            endValue();
          }
          break;
        case 58:
          if (depth === 1) key = lastStr;
          break;
        case 44:
          if (depth === 1) key = '';
          break;
      }
    }
    flush(n);
    if (str !== undefined) (str = (str + chunk.slice(seg0)).slice(0, 32)), (seg0 = 0);
    return out;
  };
  const end = (): SnapshotItem[] => {
    const out: SnapshotItem[] = [];
    if (target === ELEMENT) out.push({ problem: `${name}:${elementLine}: the text ends inside this item (a truncated file?)` });
    else if (depth > 0 || inString) out.push({ problem: `${name}:${topLine}: the JSON value that starts here does not end (a truncated file?)` });
    return out;
  };
  return { push, end };
}

interface Piece {
  /** The piece's first line in the batch's text, and in the file. */
  at: number;
  fileLine: number;
}

const SEPARATOR = /^(---|\.\.\.)(\s|$)/;
const ITEMS = /^items:[ \t]*(#.*)?$/;
const KIND = /^kind:[ \t]*["']?([^"'\s#]+)/;
const BLANK = /^\s*(#.*)?$/;

/** The YAML path: documents and List entries cut from lines, parsed in batches. */
async function* yamlPieces(text: AsyncIterable<string>, name: string, maxItem: number): AsyncGenerator<SnapshotItem> {
  const out: SnapshotItem[] = [];
  // the document being read (whole, or the List around its items)
  let doc: string[] = [];
  let docLine = 1;
  let docLength = 0;
  let docTooLong = false;
  let docKind = '';
  let inItems = false;
  let itemsSeen = false;
  let itemIndent = -1;
  // the List entry being read
  let item: string[] | undefined;
  let itemLine = 0;
  let itemLength = 0;
  let itemTooLong = false;
  let contentCol = -1;
  // pieces waiting for the parser
  let batch: string[] = [];
  let batchLines = 0;
  let batchChars = 0;
  let pieces: Piece[] = [];

  const flushBatch = (): void => {
    if (!pieces.length) return;
    const r = parseDocuments(batch.join('\n'), { maxTextLength: Infinity });
    for (const d of r.documents) out.push({ object: d.object });
    for (const e of r.errors) {
      let lo = 0;
      for (let hi = pieces.length - 1; lo < hi; ) {
        const mid = (lo + hi + 1) >> 1;
        if (pieces[mid]!.at <= e.line) lo = mid;
        else hi = mid - 1;
      }
      const p = pieces[lo]!;
      out.push({ problem: `${name}:${p.fileLine + Math.max(0, e.line - p.at)}:${e.column}: ${e.message}` });
    }
    batch = [];
    batchLines = batchChars = 0;
    pieces = [];
  };
  const addPiece = (lines: string[], fileLine: number): void => {
    if (pieces.length) batch.push('---'), batchLines++;
    pieces.push({ at: batchLines + 1, fileLine });
    for (const l of lines) batch.push(l), (batchChars += l.length + 1);
    batchLines += lines.length;
    if (batchChars >= YAML_BATCH_CHARS || pieces.length >= YAML_BATCH_PIECES) flushBatch();
  };
  const endItem = (): void => {
    if (!item) return;
    if (itemTooLong) out.push({ problem: `${name}:${itemLine}: an item of more than ${mib(maxItem)}: not read` });
    else addPiece(item, itemLine);
    item = undefined;
  };
  const endDoc = (): void => {
    endItem();
    if (docTooLong) out.push({ problem: `${name}:${docLine}: a document of more than ${mib(maxItem)}: not read` });
    else if (doc.some((l) => !BLANK.test(l) && !SEPARATOR.test(l))) {
      if (!itemsSeen) {
        const bare = /^---\s*$/.test(doc[0]!); // the batch puts its own separator
        addPiece(bare ? doc.slice(1) : doc, bare ? docLine + 1 : docLine);
      } else {
        // the List around its items: only its problems matter
        const r = parseDocuments(doc.join('\n'), { unwrapLists: false, maxTextLength: Infinity });
        for (const e of r.errors) out.push({ problem: `${name}:${docLine + e.line - 1}:${e.column}: ${e.message}` });
      }
    }
    doc = [];
    docLength = 0;
    docTooLong = inItems = itemsSeen = false;
    docKind = '';
    itemIndent = -1;
  };
  const toDoc = (l: string): void => {
    if (docTooLong) return;
    docLength += l.length + 1;
    if (docLength > maxItem) (docTooLong = true), (doc = []);
    else doc.push(l);
  };
  const toItem = (l: string): void => {
    if (itemTooLong || !item) return;
    itemLength += l.length + 1;
    if (itemLength > maxItem) (itemTooLong = true), (item = []);
    else item.push(l);
  };
  const indentOf = (l: string): number => {
    let i = 0;
    while (l.charCodeAt(i) === 32) i++;
    return i;
  };

  const line = (t: string, n: number): void => {
    if (SEPARATOR.test(t)) {
      endDoc();
      docLine = n;
      if (t.startsWith('---')) toDoc(t);
      else docLine = n + 1;
      return;
    }
    if (!inItems) {
      if (!docKind) docKind = KIND.exec(t)?.[1] ?? '';
      if (ITEMS.test(t) && (!docKind || docKind.endsWith('List'))) inItems = itemsSeen = true;
      toDoc(t);
      return;
    }
    if (BLANK.test(t)) {
      if (item) toItem(contentCol >= 0 ? t.slice(Math.min(indentOf(t), contentCol)) : ''); // every line kept: the piece's lines are the file's
      return;
    }
    const indent = indentOf(t);
    const entry = t.charCodeAt(indent) === 45 && (t.length === indent + 1 || t.charCodeAt(indent + 1) === 32);
    if (itemIndent < 0) {
      if (!entry) {
        // `items:` is not followed by a block sequence: the document is read whole
        inItems = itemsSeen = false;
        toDoc(t);
        return;
      }
      itemIndent = indent;
    }
    if (entry && indent === itemIndent) {
      endItem();
      item = [];
      itemLine = n;
      itemLength = 0;
      itemTooLong = false;
      const rest = indentOf(t.slice(indent + 1));
      if (indent + 1 + rest < t.length) {
        contentCol = indent + 1 + rest;
        toItem(t.slice(contentCol));
      } else (contentCol = -1), (itemLine = n + 1);
    } else if (indent > itemIndent && item) {
      if (contentCol < 0) contentCol = indent;
      toItem(t.slice(Math.min(indent, contentCol)));
    } else {
      // back at the List's own keys (`kind: List`, `metadata:`)
      endItem();
      inItems = false;
      toDoc(t);
    }
  };

  for await (const lines of readLineBatches(text, maxItem)) {
    for (const l of lines) {
      if (l.error !== undefined) out.push({ problem: `${name}: ${l.error}` });
      else if (l.tooLong !== undefined) {
        out.push({ problem: `${name}:${l.line}: a line of ${mib(l.tooLong)}: not read` });
        if (item) itemTooLong = true;
        else docTooLong = true;
      } else line(l.text, l.line);
    }
    if (out.length) yield* out.splice(0);
  }
  endDoc();
  flushBatch();
  yield* out;
}
