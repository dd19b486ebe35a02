/**
 * Branch points of a traced expression for coverage (operands of `&&`/`||`, `?:` conditions,
 * macro predicates), each true or false, and which sides a run took, per-element outcomes
 * included. Pure; node indices are into the trace. README.md ("Coverage").
 */
import type { CelTraceNode } from '../cel/types';

export type BranchOperator = '&&' | '||' | '?:' | MacroName;
type MacroName = 'all' | 'exists' | 'exists_one' | 'existsOne' | 'filter' | 'map' | 'transformList' | 'transformMap';

/** Per macro, which of its arguments (given how many) is the predicate; none: it has none. */
const PREDICATE: Record<MacroName, (args: number) => number | undefined> = {
  all: (n) => (n >= 2 ? n - 1 : undefined), // all(x, p), all(i, v, p)
  exists: (n) => (n >= 2 ? n - 1 : undefined),
  exists_one: (n) => (n >= 2 ? n - 1 : undefined),
  existsOne: (n) => (n >= 2 ? n - 1 : undefined),
  filter: (n) => (n >= 2 ? n - 1 : undefined),
  map: (n) => (n === 3 ? 1 : undefined), // map(x, p, f); not map(x, f)
  transformList: (n) => (n === 4 ? 2 : undefined), // transformList(i, v, p, f); not (i, v, f)
  transformMap: (n) => (n === 4 ? 2 : undefined),
};

export interface BranchPoint {
  operator: BranchOperator;
  /** The operand, condition or predicate. */
  node: number;
}

const MACRO = /^\s*\.\s*(all|exists_one|existsOne|exists|filter|map|transformList|transformMap)\s*\(/;

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
  const name = m[1] as MacroName;
  const k = PREDICATE[name](args.length);
  const arg = k === undefined ? undefined : args[k];
  if (!arg) return undefined;
  const node = nodeSpanning(expression, trace, i + 1, arg[0], arg[1]);
  return node < 0 ? undefined : { operator: name, node };
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

/** Which sides of a branch point one traced run took: every evaluation's (`seen`), else the one value. */
export function branchTaken(point: BranchPoint, trace: readonly CelTraceNode[]): { true: boolean; false: boolean } {
  const n = trace[point.node];
  if (n?.seen) return { true: n.seen.true > 0, false: n.seen.false > 0 };
  const value = n?.ran && n.error === undefined ? n.value : undefined;
  return { true: value === true, false: value === false };
}
