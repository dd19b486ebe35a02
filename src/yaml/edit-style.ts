/**
 * How applyEdits (./edit.ts) reads a text and writes new nodes into it: where lines, keys and
 * nodes start and end, the document's style (indentation step, lists under their key, quoting),
 * and values as plain, quoted, flow or block text in that style. The splices: ./edit-splice.ts.
 * Design: ./README.md (Edit).
 */
import type { PosNode } from './pos-tree';
import { Refused } from './edit-types';
import { doubleQuote, isPlainSafe, literalBlock, scalarText } from './serialize';

export type Quote = 'double' | 'single' | undefined;

const FLOW_INDICATORS = /[,[\]{}]/;
const NO_SINGLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;

export class TextStyle {
  private readonly json: boolean;
  private stepCache?: number;
  private seqIndentCache?: boolean;

  constructor(
    protected readonly text: string,
    private readonly root: PosNode,
  ) {
    this.json = root.flow;
  }

  /** Where the line holding `off` starts (on the first line, after a BOM: it is no column, and stays first). */
  protected lineStart(off: number): number {
    const ls = this.text.lastIndexOf('\n', off - 1) + 1;
    return ls === 0 && this.text.charCodeAt(0) === 0xfeff ? Math.min(1, off) : ls;
  }
  protected col(off: number): number {
    return off - this.lineStart(off);
  }
  /** Offset just past the newline that ends the line holding `off` (the text's end if none). */
  protected lineEnd(off: number): number {
    const nl = this.text.indexOf('\n', off);
    return nl < 0 ? this.text.length : nl + 1;
  }
  protected dashStart(start: number): number {
    let j = start;
    while (j > 0 && (this.text[j - 1] === ' ' || this.text[j - 1] === '\t')) j--;
    return j > 0 && this.text[j - 1] === '-' ? j - 1 : start;
  }
  /** Offset just past the `:` after a key. */
  protected colonEnd(keyEnd: number): number {
    let j = keyEnd;
    while (j < this.text.length && (this.text[j] === ' ' || this.text[j] === '\t')) j++;
    if (this.text[j] !== ':') throw new Refused('Unexpected text after a key (a `? key` or a comment between key and colon is not edited)');
    return j + 1;
  }
  /** The indentation step of the document (2 unless the text says otherwise). */
  protected get step(): number {
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
  protected get seqIndent(): boolean {
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

  protected quoteOf(node: PosNode | undefined): Quote {
    if (node?.kind !== 'scalar' || node.end <= node.start) return undefined;
    const c = this.text[node.start];
    return c === '"' ? 'double' : c === "'" ? 'single' : undefined;
  }

  // --- values as text

  protected keyText(k: string, flow: boolean): string {
    if (this.json) return JSON.stringify(k);
    return isPlainSafe(k) && !(flow && FLOW_INDICATORS.test(k)) ? k : doubleQuote(k);
  }

  /** A string as a scalar: in `quote` style if it can carry it, else plain if that reads back the same, else double-quoted. */
  protected stringText(s: string, o: { quote?: Quote; flow: boolean; indent: number }): string {
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
  protected inline(v: unknown, o: { quote?: Quote; flow: boolean; indent: number }): string | undefined {
    if (typeof v === 'string') return this.stringText(v, o);
    if (v === null || typeof v !== 'object') return scalarText(v);
    const empty = Array.isArray(v) ? v.length === 0 : entries(v).length === 0;
    if (empty) return Array.isArray(v) ? '[]' : '{}';
    return o.flow || this.json ? this.flow(v, o.quote) : undefined;
  }

  protected flow(v: unknown, quote: Quote): string {
    if (Array.isArray(v)) return `[${v.map((x) => this.flow(x === undefined ? null : x, quote)).join(', ')}]`;
    if (v !== null && typeof v === 'object')
      return `{${entries(v)
        .map(([k, x]) => `${this.keyText(k, true)}: ${this.flow(x, quote)}`)
        .join(', ')}}`;
    if (typeof v === 'string') return this.stringText(v, { quote, flow: true, indent: 0 });
    return scalarText(v);
  }

  /** Block lines of a non-empty map or list whose lines start at column `indent`. */
  protected block(v: object, indent: number): string[] {
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

  /**
   * Where a node's text ends: a block map or list whose last key has no value (`b:`, its value
   * range empty right after the key) ends after that key's colon, not before it.
   */
  protected end(n: PosNode): number {
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

  /** The start of the comment lines directly above the line at `ls` (not above `floor`). */
  protected commentsAbove(ls: number, floor: number): number {
    let start = ls;
    while (start > floor) {
      const prev = this.lineStart(start - 1);
      if (prev < floor) break;
      if (!this.text.slice(prev, start).trimStart().startsWith('#')) break;
      start = prev;
    }
    return start;
  }
}

function entries(v: object): [string, unknown][] {
  return Object.keys(v)
    .map((k): [string, unknown] => [k, (v as Record<string, unknown>)[k]])
    .filter(([, x]) => x !== undefined);
}
