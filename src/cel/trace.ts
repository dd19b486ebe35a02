/**
 * What an editor shows of a trace (`evaluate(…, { trace: true })`): a value after each
 * sub-expression worth labelling, and the ranges that never ran. Pure; offsets are the
 * trace's UTF-16 offsets into the expression.
 */
import type { CelTraceNode } from './types';

/** A value to show after `at` (the end of the sub-expression `from`..`at`). */
export interface TraceLabel {
  from: number;
  at: number;
  /** Short text (`3`, `"web"`, `false`, `error: no such key: x`). */
  text: string;
  /** The whole value (hover), or the error. */
  full: string;
  error: boolean;
}

export const LABEL_MAX = 40;

/** A value as short text (JSON, strings quoted), cut to `max` characters with "…". */
export function shortValue(value: unknown, max = LABEL_MAX): string {
  const s = value === undefined ? 'null' : (JSON.stringify(value) ?? String(value));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * Labels: nodes that ran, except literals (their value is their text) and operands of a
 * field selection or a member call (`object` and `object.spec` in `object.spec.replicas`:
 * only the whole path gets one). Innermost first at one position.
 */
export function traceLabels(expression: string, trace: readonly CelTraceNode[]): TraceLabel[] {
  const out: TraceLabel[] = [];
  const seen = new Set<string>();
  for (const n of trace) {
    if (!n.ran || n.to <= n.from) continue;
    const text = expression.slice(n.from, n.to);
    const next = expression.slice(n.to).trimStart();
    if (next.startsWith('.') || next.startsWith('[')) continue;
    if (n.error === undefined && isLiteral(text)) continue;
    const key = `${n.from}:${n.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      from: n.from,
      at: n.to,
      text: n.error !== undefined ? `error: ${shortValue(n.error, LABEL_MAX - 7).replace(/^"|"$/g, '')}` : shortValue(n.value),
      full: n.error !== undefined ? n.error : (JSON.stringify(n.value, null, 2) ?? 'null'),
      error: n.error !== undefined,
    });
  }
  // At one end position: the innermost (the latest start) first.
  return out.sort((a, b) => a.at - b.at || b.from - a.from);
}

const LITERAL = /^(?:-?\d[\d.eE+-]*u?|0x[0-9a-fA-F]+u?|true|false|null|'[^']*'|"[^"]*")$/;
const isLiteral = (text: string): boolean => LITERAL.test(text.trim());

/** The operators whose operands may not run: `&&`, `||`, `?:` (the text at a node's start/end). */
const BRANCHING = new Set(['&&', '||', '?']);
/** Macros whose bodies run per element, maybe never (their comprehension's function name). */
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry', 'sortBy']);

/**
 * The ranges that never ran (short-circuited operands, untaken branches, macro bodies never
 * entered), outermost only, in order. A node without a value under one that has a value and
 * does not branch (`object` in `object.spec`: cel-go resolves the path as one attribute) ran.
 */
export function notRun(expression: string, trace: readonly CelTraceNode[]): { from: number; to: number }[] {
  const stack: CelTraceNode[] = [];
  const skipped: CelTraceNode[] = [];
  for (const n of trace) {
    while (stack.length && !(stack[stack.length - 1]!.from <= n.from && n.to <= stack[stack.length - 1]!.to)) stack.pop();
    if (!n.ran && n.to > n.from) {
      const ranAbove = [...stack].reverse().find((a) => a.ran);
      const op = ranAbove ? expression.slice(ranAbove.start, ranAbove.end).trim() : '';
      if (!ranAbove || BRANCHING.has(op) || MACROS.has(op.replace(/^\./, ''))) skipped.push(n);
    }
    stack.push(n);
  }
  const ranges = skipped.map((n) => ({ from: n.from, to: n.to })).sort((a, b) => a.from - b.from || b.to - a.to);
  const out: { from: number; to: number }[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r.from < last.to) {
      last.to = Math.max(last.to, r.to);
      continue;
    }
    out.push({ ...r });
  }
  return out;
}
