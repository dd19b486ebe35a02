/**
 * The splices of applyEdits (./edit.ts): a scalar replaced, a node rewritten, an entry or item
 * removed, inserted or moved, each as the text edit that keeps everything around it, written in
 * the style of its neighbours (./edit-style.ts). Design: ./README.md (Edit).
 */
import type { PathSegment } from '../base/path';
import type { PosEntry, PosNode } from './pos-tree';
import { TextStyle, type Quote } from './edit-style';
import { Refused, type EditOptions, type Splice, type Step } from './edit-types';
import { refoldScalar } from './edit-refold';
import { scalarText } from './serialize';

export class Writer extends TextStyle {
  constructor(
    text: string,
    root: PosNode,
    private readonly options: EditOptions,
  ) {
    super(text, root);
  }

  /**
   * Replace a scalar's span, keeping its quoting when the new value allows it; a string over
   * several lines (`before`, its value) keeps its style and its unchanged lines (./edit-refold.ts).
   */
  replaceScalar(steps: Step[], value: unknown, before?: unknown): Omit<Splice, 'seq' | 'depth'>[] {
    const { node, entry } = steps[steps.length - 1]!;
    const parent = steps[steps.length - 2]?.node;
    const flow = !!parent?.flow;
    const c = this.text[node.start];
    const blockStyle = c === '|' || c === '>';
    const holderCol = entry ? this.col(entry.keyStart) : this.col(this.dashStart(node.start));
    // A tag or anchor before the scalar, or a block scalar: checked by parsing the result.
    const lead = this.text.slice(this.lineStart(node.start), node.start).trimEnd();
    const bare = lead === '' || /[:\-,[{?]$/.test(lead);
    if (typeof value === 'string' && typeof before === 'string' && parent && !flow && this.text.lastIndexOf('\n', node.end - 1) >= node.start) {
      const place = {
        text: this.text,
        start: node.start,
        end: node.end,
        col: this.col(node.start),
        holder: { kind: entry ? 'key' : 'dash', col: holderCol },
      } as const;
      // (read back already: a keystroke needs no parse of the whole text)
      const refolded = refoldScalar(place, before, value);
      if (refolded) return refolded.map((sp) => ({ ...sp, ...(bare ? { scalar: true } : {}) }));
    }
    const indent = holderCol + 2;
    const insert = typeof value === 'string' ? this.stringText(value, { quote: this.quoteOf(node), flow, indent }) : scalarText(value);
    const simple = bare && !blockStyle && !insert.includes('\n');
    return [{ start: node.start, end: node.end, insert, ...(simple ? { scalar: true } : {}) }];
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
    const i = c.kind === 'map' ? c.entries!.indexOf(target.entry!) : Number(seg);
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
