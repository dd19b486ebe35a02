/**
 * Coverage of a ValidatingAdmissionPolicy's saved cases (run traced: `runCases(…, { trace: true })`):
 * per validation, how many cases made it true / false / an error / did not evaluate it; node
 * coverage (sub-expressions that ran in some case) and branch coverage from the traces (each
 * operand of `&&` and `||` and each `?:` condition, true and false); and findings for cases that
 * cannot catch anything. Pure; its JSON is documented in README.md ("Coverage of saved cases").
 */
import type { CelTraceNode } from '../cel/types';
import { notRun } from '../cel/trace';
import type { CaseResult } from './cases';
import type { ValidatingRunResult, ValidationTrace } from './run';
import { nameOf } from '../base/json';

export interface ValidationCoverage {
  index: number;
  expression: string;
  /** Cases (and bindings × params) in which it was true, false, an error; cases that did not evaluate it. */
  true: number;
  false: number;
  error: number;
  notEvaluated: number;
  /** Nodes of its checked AST that ran in at least one case, of all. */
  nodes: { covered: number; total: number };
  branches: BranchCoverage[];
}

/** One branch point: an operand of `&&`/`||` or a `?:` condition, at its UTF-16 range in the expression. */
export interface BranchCoverage {
  operator: '&&' | '||' | '?:';
  from: number;
  to: number;
  /** Cases in which it was true / false. */
  true: number;
  false: number;
}

export interface CoverageFinding {
  code: 'allowed-unmatched' | 'never-denies';
  case?: string;
  message: string;
}

export interface PolicyCoverage {
  policy: string;
  cases: number;
  validations: ValidationCoverage[];
  /** Over all validations: nodes that ran, and branch sides (true and false count apart) taken. */
  nodes: { covered: number; total: number };
  branches: { covered: number; total: number };
  findings: CoverageFinding[];
  /** One line, e.g. "3 of 5 validations never failed in any case; 6 of 8 branches (75 %)". */
  summary: string;
}

/** Branch points of one trace: operands of `&&`/`||`, conditions of `?:` (node indices into the trace). */
export function branchPoints(expression: string, trace: readonly CelTraceNode[]): { operator: BranchCoverage['operator']; node: number }[] {
  const out: { operator: BranchCoverage['operator']; node: number }[] = [];
  trace.forEach((n, i) => {
    const op = expression.slice(n.start, n.end);
    if (op !== '&&' && op !== '||' && op !== '?') return;
    const left = trace.findIndex((c, k) => k > i && c.from === n.from && c.to <= n.start);
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

function validationsOf(run: ValidatingRunResult): ValidationTrace[][] {
  return run.bindings.flatMap((b) => b.evaluations.map((e) => e.validations));
}

export function policyCoverage(policy: unknown, results: readonly CaseResult[], expected: readonly { name: string; expect: { outcome: string } }[] = []): PolicyCoverage {
  const validations = new Map<number, ValidationCoverage>();
  const traces = new Map<number, CelTraceNode[][]>();
  const findings: CoverageFinding[] = [];
  const spec = (policy as { spec?: { validations?: { expression?: string }[] } })?.spec;
  (spec?.validations ?? []).forEach((v, index) => {
    validations.set(index, { index, expression: String(v?.expression ?? ''), true: 0, false: 0, error: 0, notEvaluated: 0, nodes: { covered: 0, total: 0 }, branches: [] });
    traces.set(index, []);
  });
  let denied = false;
  for (const r of results) {
    const run = r.run as ValidatingRunResult;
    if (!('denials' in run)) continue;
    if (run.outcome === 'deny') denied = true;
    const seen = new Set<number>();
    for (const list of validationsOf(run)) {
      for (const v of list) {
        const c = validations.get(v.index);
        if (!c) continue;
        seen.add(v.index);
        if (v.evaluation === 'admit') c.true++;
        else if (v.evaluation === 'deny') c.false++;
        else c.error++;
        if (v.trace) traces.get(v.index)!.push(v.trace);
      }
    }
    for (const c of validations.values()) if (!seen.has(c.index)) c.notEvaluated++;
    const want = expected.find((e) => e.name === r.name)?.expect.outcome;
    if ((want === 'admit' || want === 'warn') && run.outcome === 'skip') {
      findings.push({
        code: 'allowed-unmatched',
        case: r.name,
        message: `case '${r.name}' expects the request to be allowed, but no binding or matchConstraints matched it: it cannot catch a change in the validations`,
      });
    }
  }
  if (!denied && validations.size > 0) {
    findings.push({ code: 'never-denies', message: 'no case makes the policy deny: a validation that always passes would go unnoticed' });
  }
  const totals = { nodes: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } };
  for (const c of validations.values()) {
    const ts = traces.get(c.index)!;
    const first = ts[0];
    if (!first) continue;
    c.nodes.total = first.length;
    // A node ran in a case unless it lies in what did not run (notRun: a node under a path
    // cel-go resolves as one attribute has no value of its own, yet it ran).
    const skipped = ts.map((t) => notRun(c.expression, t));
    c.nodes.covered = first.filter((n, i) => ts.some((t, k) => t[i]?.ran || !skipped[k]!.some((r) => r.from <= n.from && n.to <= r.to))).length;
    c.branches = branchPoints(c.expression, first).map(({ operator, node }) => ({
      operator,
      from: first[node]!.from,
      to: first[node]!.to,
      true: ts.filter((t) => t[node]?.ran && t[node]?.value === true).length,
      false: ts.filter((t) => t[node]?.ran && t[node]?.value === false).length,
    }));
    totals.nodes.covered += c.nodes.covered;
    totals.nodes.total += c.nodes.total;
    for (const b of c.branches) {
      totals.branches.total += 2;
      totals.branches.covered += (b.true > 0 ? 1 : 0) + (b.false > 0 ? 1 : 0);
    }
  }
  const list = [...validations.values()];
  const neverFailed = list.filter((c) => c.false === 0).length;
  const pct = (x: { covered: number; total: number }) => (x.total ? Math.floor((100 * x.covered) / x.total) : 100);
  const summary =
    `${neverFailed} of ${list.length} validations never failed in any case; ` +
    `${totals.branches.covered} of ${totals.branches.total} branches (${pct(totals.branches)} %); ` +
    `${totals.nodes.covered} of ${totals.nodes.total} nodes (${pct(totals.nodes)} %)`;
  return { policy: nameOf(policy), cases: results.length, validations: list, ...totals, findings, summary };
}
