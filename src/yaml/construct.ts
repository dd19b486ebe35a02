/**
 * Values and a position tree built from js-yaml's event stream (`parseEvents`) in one pass: plain
 * scalars typed as Kubernetes types them (./resolve.ts), every key's and value's position,
 * duplicate keys reported at the later occurrence (whose value is kept), alias expansion bounded before anything is
 * copied. README.md ("Types", "Limits").
 */
import { COLLECTION_STYLE, EVENT_ID, SCALAR_STYLE, getScalarValue, parseEvents, type Event, type ScalarEvent } from 'js-yaml';
import type { LineIndex } from './lines';
import type { PosEntry, PosNode, TextProblem } from './pos-tree';
import type { PathSegment } from '../base/path';
import { isObject, setOwn } from '../base/json';
import { MAX_ALIAS_EXPANSION, MAX_DEPTH, MAX_PROBLEMS_PER_DOCUMENT } from './limits';
import { aliasBomb, aliasBombProblem, firstOffset, skipToDocumentEnd, syntaxProblem } from './events';
import { duplicateMessage, looksLikeJson, scanJson } from './json';
import { decodeBinary, keyString, resolvePlain, type Resolved } from './resolve';
import { readWithTabsAsSpaces, SLASH_ESCAPE, slashEscape } from './go-yaml-scanner';

export interface ConstructedDocument {
  /** Absolute offset of the document's first node (to tell which `---` document it is). */
  at: number;
  value: unknown;
  pos: PosNode;
  errors: TextProblem[];
  warnings: TextProblem[];
  /** Keys given twice (the last value is in `value` and `pos`). */
  duplicates: TextProblem[];
  /** Read by the strict JSON reader (./json.ts), not as YAML. */
  json?: boolean;
}

export type ChunkResult = { kind: 'documents'; documents: ConstructedDocument[] } | { kind: 'syntax'; problem: TextProblem };

class Abort {
  constructor(readonly problem: TextProblem) {}
}

interface Built {
  value: unknown;
  pos: PosNode;
  /** Nodes in the value, aliases expanded; used to bound alias expansion. */
  size: number;
  /** For scalars: what the scalar was resolved as. */
  resolved?: Resolved;
  /** For scalars: whether it was plain and untagged. */
  plain?: boolean;
  /** For scalars: the scalar's text. */
  source?: string;
}

/** Parse one chunk of `text` (from splitDocuments) and build its documents. */
export function constructChunk(text: string, start: number, end: number, lines: LineIndex): ChunkResult {
  if (looksLikeJson(text, start, end)) {
    const json = scanJson(text, start, end, lines);
    if (json)
      return {
        kind: 'documents',
        documents: [{ at: json.pos.start, value: json.value, pos: json.pos, errors: json.errors, warnings: [], duplicates: json.duplicates, json: true }],
      };
  }
  const src = text.slice(start, end);
  let events: Event[];
  try {
    events = parseEvents(src, { maxDepth: MAX_DEPTH });
  } catch (e) {
    // a tab before a line's content in a flow collection or a quoted scalar is a blank to go-yaml, where js-yaml may refuse it
    const read = (s: string, l: LineIndex) => buildDocuments(s, start, parseEvents(s, { maxDepth: MAX_DEPTH }), l);
    const documents = readWithTabsAsSpaces(src, start, lines, read);
    return documents ? { kind: 'documents', documents } : { kind: 'syntax', problem: syntaxProblem(e, start, end) };
  }
  return { kind: 'documents', documents: buildDocuments(src, start, events, lines) };
}

/** The documents of `src` (at `start` in the text) from its events. */
function buildDocuments(src: string, start: number, events: Event[], lines: LineIndex): ConstructedDocument[] {
  const documents: ConstructedDocument[] = [];
  let i = 0;
  while (i < events.length) {
    const ev = events[i]!;
    if (ev.type !== EVENT_ID.DOCUMENT) {
      i++;
      continue;
    }
    const first = firstOffset(events, i + 1);
    const at = first >= 0 ? start + first : start;
    const bomb = aliasBomb(src, start, events, i + 1);
    if (bomb) {
      documents.push({ at, value: undefined, pos: emptyPos(at), errors: [bomb], warnings: [], duplicates: [] });
      i = skipToDocumentEnd(events, i + 1);
      continue;
    }
    const b = new Builder(src, start, events, i + 1, lines);
    try {
      const built = b.node(start);
      b.valueWarnings(built);
      if (!isEmptyDocument(built)) {
        documents.push({ at, value: built.value, pos: built.pos, errors: b.errors, warnings: b.warnings, duplicates: b.duplicates });
      }
      // the builder stopped at the document's closing POP: no need to walk its events again
      i = skipToDocumentEnd(events, b.cursor);
    } catch (e) {
      if (!(e instanceof Abort)) throw e;
      documents.push({ at, value: undefined, pos: emptyPos(at), errors: [e.problem], warnings: b.warnings, duplicates: [] });
      i = skipToDocumentEnd(events, i + 1);
    }
  }
  return documents;
}

function isEmptyDocument(b: Built): boolean {
  return b.pos.kind === 'scalar' && b.value === null && b.plain === true;
}

function emptyPos(at: number): PosNode {
  return { kind: 'scalar', start: at, end: at, flow: false };
}

const STANDARD_TAG_PREFIX = 'tag:yaml.org,2002:';
const preview = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

function normalizeTag(tag: string): string {
  if (tag.startsWith(`!<${STANDARD_TAG_PREFIX}`) && tag.endsWith('>')) {
    return `!!${tag.slice(STANDARD_TAG_PREFIX.length + 2, -1)}`;
  }
  return tag;
}

/** Deep copy of a JSON-like value, so an alias never shares objects with its anchor. */
function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(out, k, clone((v as Record<string, unknown>)[k]));
    return out;
  }
  return v;
}

class Builder {
  readonly errors: TextProblem[] = [];
  readonly warnings: TextProblem[] = [];
  readonly duplicates: TextProblem[] = [];
  private readonly anchors = new Map<string, Built>();
  private expanded = 0;
  private readonly path: PathSegment[] = [];
  /*
   * The values, items and entries of the collections being built, on three stacks: a
   * collection takes its own off the top (`splice`) when it is complete, so the arrays kept
   * in the result are allocated once, at their exact length. (An array grown by push keeps
   * 17 or more slots: ~4 MB of empty slots for a 1,000-webhook document, which garbage
   * collection would copy with the result.)
   */
  private readonly values: unknown[] = [];
  private readonly items: PosNode[] = [];
  private readonly entries: PosEntry[] = [];

  constructor(
    private readonly src: string,
    private readonly base: number,
    private readonly events: Event[],
    private i: number,
    private readonly lines: LineIndex,
  ) {}

  /** The next event to read (after `node()`, the one after that node). */
  get cursor(): number {
    return this.i;
  }

  private problem(list: TextProblem[], message: string, start: number, end: number): void {
    if (list.length < MAX_PROBLEMS_PER_DOCUMENT) {
      list.push({ message, start, end, path: this.path.slice() });
    } else if (list.length === MAX_PROBLEMS_PER_DOCUMENT) {
      list.push({ message: `More problems in this document are not listed (only the first ${MAX_PROBLEMS_PER_DOCUMENT} are)`, start, end });
    }
  }

  /** Build the node starting at the cursor. `fallback`: offset used when the node has no position (an empty value). */
  node(fallback: number): Built {
    const ev = this.events[this.i]!;
    switch (ev.type) {
      case EVENT_ID.SCALAR:
        this.i++;
        return this.anchor(ev, this.scalar(ev, fallback));
      case EVENT_ID.ALIAS:
        this.i++;
        return this.alias(ev.anchorStart, ev.anchorEnd);
      case EVENT_ID.SEQUENCE:
        this.i++;
        return this.anchor(ev, this.sequence(ev.start, ev.style === COLLECTION_STYLE.FLOW, this.tagOf(ev)));
      case EVENT_ID.MAPPING:
        this.i++;
        return this.anchor(ev, this.mapping(ev.start, ev.style === COLLECTION_STYLE.FLOW, this.tagOf(ev)));
      default:
        // POP or DOCUMENT where a node was expected: an empty node.
        return { value: null, pos: emptyPos(fallback), size: 1, resolved: { kind: 'null', value: null }, plain: true, source: '' };
    }
  }

  /** Warn where Kubernetes' YAML 1.1 reading differs from what most editors (YAML 1.2) show. */
  valueWarnings(b: Built): void {
    const sc = b;
    if (!sc.plain || b.pos.kind !== 'scalar' || sc.resolved === undefined || sc.source === undefined) return;
    const r = sc.resolved;
    if (r.kind === 'bool' && !/^(?:true|True|TRUE|false|False|FALSE)$/.test(sc.source)) {
      this.problem(
        this.warnings,
        `${sc.source} is read by Kubernetes as the boolean ${r.value} (YAML 1.1); quote it ("${sc.source}") if you mean the text`,
        b.pos.start,
        b.pos.end,
      );
    } else if (r.kind === 'int' && !/^[-+]?(?:0|[1-9][0-9]*)$/.test(sc.source)) {
      this.problem(
        this.warnings,
        `${sc.source} is read by Kubernetes as the number ${r.value.toString()}; quote it ("${sc.source}") if you mean the text`,
        b.pos.start,
        b.pos.end,
      );
    }
  }

  private tagOf(ev: { tagStart: number; tagEnd: number }): string {
    return ev.tagStart >= 0 ? normalizeTag(this.src.slice(ev.tagStart, ev.tagEnd)) : '';
  }

  private anchor(ev: { anchorStart: number; anchorEnd: number }, built: Built): Built {
    if (ev.anchorStart >= 0) this.anchors.set(this.src.slice(ev.anchorStart, ev.anchorEnd), built);
    return built;
  }

  private alias(anchorStart: number, anchorEnd: number): Built {
    const name = this.src.slice(anchorStart, anchorEnd);
    const start = this.base + anchorStart - 1;
    const end = this.base + anchorEnd;
    const pos: PosNode = { kind: 'alias', start, end, flow: false };
    const target = this.anchors.get(name);
    if (!target) {
      this.problem(this.errors, `Unknown alias *${name}: no anchor &${name} is defined before it`, start, end);
      return { value: null, pos, size: 1 };
    }
    this.expanded += target.size;
    if (this.expanded > MAX_ALIAS_EXPANSION) {
      throw new Abort(aliasBombProblem(start, end, this.path.slice()));
    }
    return { value: clone(target.value), pos, size: target.size, resolved: target.resolved, source: target.source, plain: target.plain };
  }

  private scalar(ev: ScalarEvent, fallback: number): Built {
    const src = this.src;
    const empty = ev.valueStart < 0;
    const text = empty ? '' : ev.fast ? src.slice(ev.valueStart, ev.valueEnd) : getScalarValue(src, ev);
    const pos = this.scalarPos(ev, fallback);
    const slash = ev.style === SCALAR_STYLE.DOUBLE_QUOTED && !ev.fast ? slashEscape(src, ev.valueStart, ev.valueEnd) : -1;
    if (slash >= 0) this.problem(this.errors, SLASH_ESCAPE, this.base + slash, this.base + slash + 2);
    const tag = this.tagOf(ev);
    const plain = ev.style === SCALAR_STYLE.PLAIN;
    let resolved: Resolved;
    if (tag === '') {
      resolved = plain ? resolvePlain(text) : { kind: 'str', value: text };
    } else {
      resolved = this.tagged(tag, text, pos);
    }
    if (resolved.kind === 'float' && !Number.isFinite(resolved.value)) {
      this.problem(
        this.errors,
        `${text} is not a number JSON can carry; Kubernetes rejects it (quote it if you mean the string "${text}")`,
        pos.start,
        pos.end,
      );
    }
    return { value: resolved.value, pos, size: 1, resolved, plain: plain && tag === '', source: text };
  }

  private tagged(tag: string, text: string, pos: PosNode): Resolved {
    switch (tag) {
      case '!':
      case '!!str':
        return { kind: 'str', value: text };
      case '!!timestamp':
        return { kind: 'str', value: text };
      case '!!binary': {
        const value = decodeBinary(text);
        if (value === undefined)
          this.problem(this.errors, '!!binary value contains invalid base64 data (Kubernetes refuses it: padded base64 is wanted)', pos.start, pos.end);
        else this.problem(this.warnings, `!!binary: Kubernetes decodes the base64 and reads the text ${preview(value)}`, pos.start, pos.end);
        return { kind: 'str', value: value ?? text };
      }
      case '!!null':
      case '!!bool':
      case '!!int':
      case '!!float': {
        const r = resolvePlain(text);
        const want = tag.slice(2);
        if (r.kind === want) return r;
        if (want === 'float' && r.kind === 'int') return { kind: 'float', value: Number(r.value) };
        this.problem(this.errors, `Cannot read ${JSON.stringify(text)} as ${tag}`, pos.start, pos.end);
        return { kind: 'str', value: text };
      }
      default:
        if (tag.startsWith('!!')) {
          this.problem(this.errors, `The tag ${tag} is not supported (Kubernetes reads plain JSON values only)`, pos.start, pos.end);
        } else {
          this.problem(this.warnings, `The tag ${tag} is ignored, as Kubernetes ignores it; the value is read as a string`, pos.start, pos.end);
        }
        return { kind: 'str', value: text };
    }
  }

  private scalarPos(ev: ScalarEvent, fallback: number): PosNode {
    const base = this.base;
    if (ev.valueStart < 0) return { kind: 'scalar', start: fallback, end: fallback, flow: false };
    let start = ev.valueStart;
    let end = ev.valueEnd;
    if (ev.style === SCALAR_STYLE.SINGLE_QUOTED || ev.style === SCALAR_STYLE.DOUBLE_QUOTED) {
      start -= 1;
      end += 1;
    } else if (ev.style === SCALAR_STYLE.LITERAL_BLOCK || ev.style === SCALAR_STYLE.FOLDED_BLOCK) {
      const src = this.src;
      const contentStart = start;
      const lineEnd = src.lastIndexOf('\n', contentStart - 1);
      const lineStart = src.lastIndexOf('\n', lineEnd - 1) + 1;
      const header = src.slice(lineStart, Math.max(lineEnd, lineStart));
      const m = /[|>][0-9+-]*[ \t]*(?:#.*)?\r?$/.exec(header);
      if (m) start = lineStart + m.index;
      while (end > contentStart && /\s/.test(src[end - 1]!)) end--;
      if (end < start + 1) end = start + 1;
    }
    return { kind: 'scalar', start: base + start, end: base + end, flow: false };
  }

  private sequence(start: number, flow: boolean, tag: string): Built {
    this.collectionTag(tag, '!!seq', start);
    const from = this.values.length;
    let size = 1;
    let last = this.base + start;
    while (this.events[this.i]!.type !== EVENT_ID.POP) {
      this.path.push(this.values.length - from);
      const b = this.node(last);
      this.valueWarnings(b);
      this.path.pop();
      this.items.push(b.pos);
      this.values.push(b.value);
      size += b.size;
      last = b.pos.end;
    }
    this.i++;
    const absStart = this.base + start;
    const end = flow ? this.flowEnd(this.values.length > from ? last : absStart + 1, ']') : Math.max(last, absStart);
    const items = this.items.splice(from);
    return { value: this.values.splice(from), pos: { kind: 'seq', start: absStart, end, flow, items }, size };
  }

  private mapping(start: number, flow: boolean, tag: string): Built {
    this.collectionTag(tag, '!!map', start);
    const from = this.entries.length;
    const value: Record<string, unknown> = {};
    const merges: Array<{ source: unknown; start: number; end: number }> = [];
    let size = 1;
    let last = this.base + start;
    while (this.events[this.i]!.type !== EVENT_ID.POP) {
      const k = this.node(last);
      const key = this.keyOf(k);
      if (key === undefined) {
        // Not usable as a key: build and drop the value to keep the cursor right.
        const v = this.node(k.pos.end);
        last = v.pos.end;
        continue;
      }
      const isMerge = k.plain === true && k.resolved?.kind === 'merge';
      this.path.push(key);
      const v = this.node(k.pos.end);
      this.valueWarnings(v);
      this.path.pop();
      size += v.size;
      last = v.pos.end;
      if (isMerge) {
        merges.push({ source: v.value, start: k.pos.start, end: v.pos.end });
        continue;
      }
      if (Object.hasOwn(value, key)) {
        // The last value wins, as the apiserver's decoders keep it (the mode decides whether that is an error: src/k8s field-validation.ts).
        const j = this.entries.findIndex((e, n) => n >= from && e.key === key);
        if (this.duplicates.length < MAX_PROBLEMS_PER_DOCUMENT) {
          const at = this.lines.lineColumn(this.entries[j]!.keyStart);
          this.path.push(key);
          this.duplicates.push({ message: duplicateMessage(key, at), start: k.pos.start, end: k.pos.end, path: this.path.slice(), key });
          this.path.pop();
        }
        // (the earlier entry leaves the tree: the entries stay in text order, and the object's keys with them)
        this.entries.splice(j, 1);
        delete value[key];
      }
      setOwn(value, key, v.value);
      this.entries.push({ key, keyStart: k.pos.start, keyEnd: k.pos.end, node: v.pos });
    }
    this.i++;
    if (merges.length > 0) {
      const explicit = new Set(Object.keys(value));
      for (const m of merges) this.merge(value, explicit, m);
    }
    const absStart = this.base + start;
    const end = flow ? this.flowEnd(last > absStart ? last : absStart + 1, '}') : Math.max(last, absStart);
    return { value, pos: { kind: 'map', start: absStart, end, flow, entries: this.entries.splice(from) }, size };
  }

  private collectionTag(tag: string, expected: string, start: number): void {
    if (tag === '' || tag === '!' || tag === expected) return;
    const at = this.base + start;
    if (tag.startsWith('!!')) {
      this.problem(this.errors, `The tag ${tag} is not supported here (expected ${expected} or no tag)`, at, at + 1);
    } else {
      this.problem(this.warnings, `The tag ${tag} is ignored, as Kubernetes ignores it`, at, at + 1);
    }
  }

  /** YAML merge keys (`<<: *base`): keys not set explicitly are copied in. */
  private merge(target: Record<string, unknown>, seen: Set<string>, m: { source: unknown; start: number; end: number }): void {
    const sources = Array.isArray(m.source) ? m.source : [m.source];
    for (const s of sources) {
      if (!isObject(s)) {
        this.problem(this.errors, 'A merge key (<<) needs a mapping or a list of mappings', m.start, m.end);
        return;
      }
      for (const k of Object.keys(s)) {
        if (seen.has(k)) continue;
        seen.add(k);
        setOwn(target, k, s[k]);
      }
    }
  }

  /** The JSON key for a key node, as sigs.k8s.io/yaml makes it; undefined (with an error) if there is none. */
  private keyOf(k: Built): string | undefined {
    const { pos } = k;
    if (k.resolved !== undefined && k.source !== undefined) {
      const r = k.resolved;
      const source = k.source;
      const s = keyString(r);
      if (s === undefined) {
        this.problem(this.errors, 'A null key is not allowed (Kubernetes rejects it)', pos.start, pos.end);
        return undefined;
      }
      if (k.plain && r.kind !== 'str' && r.kind !== 'merge' && s !== source) {
        this.path.push(s);
        this.problem(
          this.warnings,
          `The key ${source} is read by Kubernetes as ${r.kind} ${s} and becomes the key "${s}"; quote it to keep "${source}"`,
          pos.start,
          pos.end,
        );
        this.path.pop();
      }
      return s;
    }
    this.problem(this.errors, 'Only text, numbers or booleans can be keys (this key is a list or a mapping)', pos.start, pos.end);
    return undefined;
  }

  /** Offset just past the closing bracket of a flow collection, scanning from `from` (absolute). */
  private flowEnd(from: number, close: string): number {
    const src = this.src;
    let j = from - this.base;
    while (j < src.length) {
      const c = src[j]!;
      if (c === close) return this.base + j + 1;
      if (c === '#') {
        const nl = src.indexOf('\n', j);
        j = nl < 0 ? src.length : nl + 1;
        continue;
      }
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ',') {
        j++;
        continue;
      }
      break;
    }
    return from;
  }
}
