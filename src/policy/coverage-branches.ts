/**
 * Branch points of a traced expression (`evaluate(…, { trace: true })`, src/cel/trace.ts) for
 * coverage: each operand of `&&` and `||`, each `?:` condition, and the predicate of every macro
 * (`all`, `exists`, `exists_one`, `filter`, the three-argument `map`), each of which can be true
 * or false. Pure; node indices are into the trace (one entry per node of the checked AST in
 * pre-order, the same for every run of one expression).
 *
 * Macros: cel-go expands `r.all(x, p)` into a comprehension over `r` (parser/macro.go: `all`
 * steps `@result && p` while `@result` is not false, `exists` steps `@result || p` while it is not
 * true, `exists_one` counts `p ? @result + 1 : @result` over every element, `filter` and
 * `map(x, p, f)` append when `p`). The evaluation state keeps only the last iteration's value of
 * `p`, so a predicate counts as true (false) in a run when that last value was, or when the
 * macro's result says so: `all` true over a non-empty range means every `p` was true, `all` false
 * that one was false; `exists` the other way round; `exists_one`'s count (its step's last value),
 * `filter`'s and `map`'s result length against the range's size say whether some element was
 * kept (true) and some dropped (false). What none of these shows (an `all` that is false at its
 * third element was true at the first two) is not counted: coverage never claims a side it did
 * not see.
 */
import type { CelTraceNode } from '../cel/types';

export type BranchOperator = '&&' | '||' | '?:' | 'all' | 'exists' | 'exists_one' | 'filter' | 'map';

export interface BranchPoint {
  operator: BranchOperator;
  /** The operand, condition or predicate. */
  node: number;
  /** Macros: the comprehension (its value is the macro's result) and its range. */
  macro?: { comprehension: number; range: number; step?: number };
}

const MACRO = /^\s*\.\s*(all|exists_one|exists|filter|map)\s*\(/;

/**
 * The top-level comma-separated arguments of the call whose "(" is just before `open`, up to its
 * matching ")", as [from, to) ranges trimmed of blanks; undefined when it does not close.
 */
function splitArgs(expression: string, open: number): [number, number][] | undefined {
  const out: [number, number][] = [];
  let depth = 0;
  let quote = '';
  let start = open;
  const push = (end: number) => {
    let a = start;
    let b = end;
    while (a < b && /\s/.test(expression[a]!)) a++;
    while (b > a && /\s/.test(expression[b - 1]!)) b--;
    out.push([a, b]);
  };
  for (let i = open; i < expression.length; i++) {
    const c = expression[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if (c === ')') {
      push(i);
      return out;
    } else if (c === ',' && depth === 0) {
      push(i);
      start = i + 1;
    }
  }
  return undefined;
}

/** The node spanning exactly [from, to) after `after` (outer parentheses of the text stripped). */
function nodeSpanning(expression: string, trace: readonly CelTraceNode[], after: number, from: number, to: number): number {
  for (;;) {
    const k = trace.findIndex((n, j) => j > after && n.from === from && n.to === to);
    if (k >= 0) return k;
    if (expression[from] !== '(' || expression[to - 1] !== ')') return -1;
    from++;
    to--;
    while (from < to && /\s/.test(expression[from]!)) from++;
    while (to > from && /\s/.test(expression[to - 1]!)) to--;
  }
}

function macroPoint(expression: string, trace: readonly CelTraceNode[], i: number): BranchPoint | undefined {
  const n = trace[i]!;
  const range = trace[i + 1];
  if (!range || range.from !== n.from || range.to >= n.to) return undefined;
  const m = MACRO.exec(expression.slice(range.to, n.to));
  if (!m) return undefined;
  // the arguments up to the matching ")" (the node's span may stop at a ")" of parentheses inside)
  const args = splitArgs(expression, range.to + m[0].length);
  if (!args) return undefined;
  const name = m[1] as BranchOperator;
  // the predicate: the last argument; map's only with three arguments (map(x, p, f)), the second
  let arg: [number, number] | undefined;
  if (name === 'map') arg = args.length === 3 ? args[1] : undefined;
  else if (args.length >= 2) arg = args[args.length - 1];
  if (!arg) return undefined;
  const node = nodeSpanning(expression, trace, i + 1, arg[0], arg[1]);
  if (node < 0) return undefined;
  // exists_one's step (`p ? @result + 1 : @result`): the innermost node above the predicate, below the comprehension
  let step: number | undefined;
  for (let k = node - 1; k > i + 1; k--) {
    const c = trace[k]!;
    if (c.from <= trace[node]!.from && trace[node]!.to <= c.to && c.to > c.from) {
      step = k;
      break;
    }
  }
  return { operator: name, node, macro: { comprehension: i, range: i + 1, ...(step !== undefined ? { step } : {}) } };
}

/** Branch points of one trace: operands of `&&`/`||`, conditions of `?:`, macro predicates. */
export function branchPoints(expression: string, trace: readonly CelTraceNode[]): BranchPoint[] {
  const out: BranchPoint[] = [];
  trace.forEach((n, i) => {
    const op = expression.slice(n.start, n.end);
    if (op !== '&&' && op !== '||' && op !== '?') {
      if (n.start === n.end) {
        const m = macroPoint(expression, trace, i);
        if (m) out.push(m);
      }
      return;
    }
    // The left operand (condition): the first node under the operator in pre-order. (Not by its
    // start: a `has()` node's range starts at its "(", its parent's at "has".)
    const next = trace[i + 1];
    const left = next && next.from >= n.from && next.to <= n.start ? i + 1 : -1;
    if (left >= 0) out.push({ operator: op === '?' ? '?:' : op, node: left });
    if (op === '?') return;
    // The right operand: the widest node that starts first after the operator, within the parent.
    let right = -1;
    trace.forEach((c, k) => {
      if (k <= i || c.from < n.end || c.to > n.to) return;
      const r = trace[right];
      if (!r || c.from < r.from || (c.from === r.from && c.to > r.to)) right = k;
    });
    if (right >= 0) out.push({ operator: op, node: right });
  });
  return out;
}

const sizeOf = (v: unknown): number | undefined => (Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : undefined);
const valueOf = (n: CelTraceNode | undefined): unknown => (n?.ran && n.error === undefined ? n.value : undefined);

/** Which sides of a branch point one traced run took. */
export function branchTaken(point: BranchPoint, trace: readonly CelTraceNode[]): { true: boolean; false: boolean } {
  const last = valueOf(trace[point.node]);
  const taken = { true: last === true, false: last === false };
  const m = point.macro;
  if (!m) return taken;
  const result = valueOf(trace[m.comprehension]);
  const size = sizeOf(valueOf(trace[m.range]));
  if (size === undefined || size === 0) return taken;
  switch (point.operator) {
    case 'all':
      if (result === true) taken.true = true;
      if (result === false) taken.false = true;
      break;
    case 'exists':
      if (result === true) taken.true = true;
      if (result === false) taken.false = true;
      break;
    case 'exists_one': {
      const count = m.step !== undefined ? valueOf(trace[m.step]) : undefined;
      if (typeof count === 'number') {
        if (count >= 1) taken.true = true;
        if (count < size) taken.false = true;
      } else if (result === true) {
        taken.true = true;
        if (size > 1) taken.false = true;
      }
      break;
    }
    case 'filter':
    case 'map': {
      const kept = sizeOf(result);
      if (kept !== undefined) {
        if (kept >= 1) taken.true = true;
        if (kept < size) taken.false = true;
      }
      break;
    }
  }
  return taken;
}
