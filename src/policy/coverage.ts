/**
 * Coverage of a policy's saved cases (run traced): per validation the cases' outcomes, per
 * expression node and branch coverage, and findings for cases that cannot catch anything; other
 * runs of the policy's expressions count too (`extra`). Pure. README.md ("Coverage"); its JSON is
 * in the repository's README ("Coverage of saved cases").
 */
import type { CelTraceNode } from '../cel/types';
import { notRun } from '../cel/trace';
import type { CaseResult } from './cases';
import type { ValidatingRunResult } from './run';
import type { EvaluationTrace } from './validate';
import type { MutatingEvaluationTrace, MutatingRunResult } from './mutate';
import { branchPoints, branchTaken, type BranchOperator } from './coverage-branches';
import { kindOf, list, nameOf, obj, str } from '../base/json';
import { lineIndex } from '../yaml/lines';

export { branchPoints, branchTaken, type BranchOperator, type BranchPoint } from './coverage-branches';

/** One expression of the policy: where it sits, and what the cases made of it. */
export interface ExpressionCoverage {
  /** Its field path in the policy (`spec.validations[0].expression`, `spec.matchConditions[1].expression`). */
  field: string;
  expression: string;
  /** Evaluations (cases × bindings × params) that gave true / false / an error (validations: admit / deny / error). */
  true: number;
  false: number;
  error: number;
  /** Cases that did not evaluate it. */
  notEvaluated: number;
  /** Nodes of its checked AST that ran in at least one case, of all. */
  nodes: { covered: number; total: number };
  branches: BranchCoverage[];
  /**
   * Per line of the expression (0-based; a single-line expression has line 0): its nodes that ran
   * in some case, of all, and in how many evaluations the most-run of them ran (LCOV's DA, the
   * editor's gutter).
   */
  lines: { line: number; hits: number; covered: number; total: number }[];
}

export interface ValidationCoverage extends ExpressionCoverage {
  index: number;
}

/** One branch point at its UTF-16 range in the expression. */
export interface BranchCoverage {
  operator: BranchOperator;
  from: number;
  to: number;
  /** Evaluations in which it was true / false (one inside a macro: at some element, `seen`). */
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
  kind: string;
  cases: number;
  validations: ValidationCoverage[];
  /** Every other expression: matchConditions, variables, messageExpressions, audit annotations, mutations. */
  expressions: ExpressionCoverage[];
  /** Over all expressions: nodes that ran, and branch sides (true and false count apart) taken. */
  nodes: { covered: number; total: number };
  branches: { covered: number; total: number };
  findings: CoverageFinding[];
  /** One line, e.g. "2 of 5 validations fail in some case; 6 of 8 branches (75 %); …" (a validation no case fails is untested). */
  summary: string;
}

/** One evaluation of one expression of the policy. */
export interface CoverageSample {
  field: string;
  outcome: 'true' | 'false' | 'error' | 'value';
  trace?: CelTraceNode[];
}

/** Another run of the policy's expressions that counts as a case (a CEL case, a scenario). */
export interface CoverageRun {
  name: string;
  samples: CoverageSample[];
}

/** Every CEL expression of a policy, with its field path, in spec order. */
export function policyExpressions(policy: unknown): { field: string; expression: string }[] {
  const spec = obj(obj(policy).spec);
  const out: { field: string; expression: string }[] = [];
  list(spec.matchConditions).forEach((m, i) => out.push({ field: `spec.matchConditions[${i}].expression`, expression: str(obj(m).expression) }));
  list(spec.variables).forEach((v, i) => out.push({ field: `spec.variables[${i}].expression`, expression: str(obj(v).expression) }));
  list(spec.validations).forEach((v, i) => {
    out.push({ field: `spec.validations[${i}].expression`, expression: str(obj(v).expression) });
    if (str(obj(v).messageExpression)) out.push({ field: `spec.validations[${i}].messageExpression`, expression: str(obj(v).messageExpression) });
  });
  list(spec.auditAnnotations).forEach((a, i) => out.push({ field: `spec.auditAnnotations[${i}].valueExpression`, expression: str(obj(a).valueExpression) }));
  list(spec.mutations).forEach((m, i) => {
    const jsonPatch = str(obj(m).patchType) === 'JSONPatch';
    out.push({
      field: `spec.mutations[${i}].${jsonPatch ? 'jsonPatch' : 'applyConfiguration'}.expression`,
      expression: str(obj(obj(m)[jsonPatch ? 'jsonPatch' : 'applyConfiguration']).expression),
    });
  });
  return out.filter((e) => e.expression);
}

const outcomeOf = (e: { ok: boolean; value?: unknown }): CoverageSample['outcome'] =>
  !e.ok ? 'error' : e.value === true ? 'true' : e.value === false ? 'false' : 'value';
const traced = (t: CelTraceNode[] | undefined) => (t ? { trace: t } : {});

/** One evaluation of the expression at `field` (a CEL case's) as a coverage sample. */
export const expressionSample = (field: string, r: { ok: boolean; value?: unknown; trace?: CelTraceNode[] }): CoverageSample => ({
  field,
  outcome: outcomeOf(r),
  ...traced(r.trace),
});

/**
 * The evaluations of one run of `policy`, by field. Variables count where the invocation reached
 * the expressions that use them (past matchConditions) and one of them refers to the variable:
 * Kubernetes evaluates variables lazily, the run evaluates each on its own (run.ts).
 */
export function runSamples(policy: unknown, run: ValidatingRunResult | MutatingRunResult): CoverageSample[] {
  return run.bindings.flatMap((b) => evaluationSamples(policy, b.evaluations));
}

/** The evaluations of some invocations (a binding's: one per param) of `policy`, by field (see runSamples). */
export function evaluationSamples(policy: unknown, evaluations: readonly (EvaluationTrace | MutatingEvaluationTrace)[]): CoverageSample[] {
  const spec = obj(obj(policy).spec);
  const variableIndex = (name: string) => list(spec.variables).findIndex((v) => str(obj(v).name) === name);
  const out: CoverageSample[] = [];
  for (const ev of evaluations) {
    ev.matchConditions?.conditions.forEach((c, i) => out.push({ field: `spec.matchConditions[${i}].expression`, outcome: outcomeOf(c), ...traced(c.trace) }));
    const reached = 'validations' in ev ? ev.validations.length > 0 : ev.mutations.length > 0;
    if (reached) {
      for (const v of ev.variables) {
        const i = variableIndex(v.name);
        if (v.used && i >= 0) out.push({ field: `spec.variables[${i}].expression`, outcome: outcomeOf(v), ...traced(v.trace) });
      }
    }
    if ('validations' in ev) {
      for (const v of ev.validations) {
        out.push({
          field: `spec.validations[${v.index}].expression`,
          outcome: v.evaluation === 'admit' ? 'true' : v.evaluation === 'deny' ? 'false' : 'error',
          ...traced(v.trace),
        });
        const m = v.messageExpression;
        if (m)
          out.push({
            field: `spec.validations[${v.index}].messageExpression`,
            outcome: outcomeOf({ ok: m.error === undefined, value: m.value }),
            ...traced(m.trace),
          });
      }
      ev.auditAnnotations.forEach((a, i) =>
        out.push({ field: `spec.auditAnnotations[${i}].valueExpression`, outcome: a.error !== undefined ? 'error' : 'value', ...traced(a.trace) }),
      );
    } else {
      for (const m of ev.mutations) {
        if (m.skipped) continue;
        const field = `spec.mutations[${m.index}].${m.patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration'}.expression`;
        out.push({ field, outcome: m.error !== undefined ? 'error' : 'value', ...traced(m.trace) });
      }
    }
  }
  return out;
}

/** The 0-based line of an offset in an expression. */
export const lineOf = (expression: string, offset: number): number => lineIndex(expression).lineColumn(offset).line - 1;

/** A traced expression of a run, at its field in the policy (the simulator's steps show them). */
export interface TracedExpression {
  field: string;
  expression: string;
  trace: CelTraceNode[];
}

/** The traced expressions of a binding's evaluations, the first of each field, in the policy's order. */
export function tracedExpressions(policy: unknown, evaluations: readonly (EvaluationTrace | MutatingEvaluationTrace)[]): TracedExpression[] {
  const traces = new Map<string, CelTraceNode[]>();
  for (const s of evaluationSamples(policy, evaluations)) if (s.trace && !traces.has(s.field)) traces.set(s.field, s.trace);
  return policyExpressions(policy).flatMap((e) => (traces.has(e.field) ? [{ ...e, trace: traces.get(e.field)! }] : []));
}

const pct = (x: { covered: number; total: number }) => (x.total ? Math.floor((100 * x.covered) / x.total) : 100);

/** Node and branch coverage of one expression over its traces (all of one AST: the same length). */
function traceCoverage(c: ExpressionCoverage, traces: readonly CelTraceNode[][]): void {
  const first = traces[0];
  if (!first) return;
  const ts = traces.filter((t) => t.length === first.length);
  c.nodes.total = first.length;
  // A node ran in a case unless it lies in what did not run (notRun: a node under a path
  // cel-go resolves as one attribute has no value of its own, yet it ran).
  const skipped = ts.map((t) => notRun(c.expression, t));
  const runs = first.map((n, i) => ts.filter((t, k) => t[i]?.ran || !skipped[k]!.some((r) => r.from <= n.from && n.to <= r.to)).length);
  c.nodes.covered = runs.filter((r) => r > 0).length;
  const lines = new Map<number, ExpressionCoverage['lines'][number]>();
  const index = lineIndex(c.expression);
  first.forEach((n, i) => {
    const line = index.lineColumn(n.from).line - 1;
    const l = lines.get(line) ?? { line, hits: 0, covered: 0, total: 0 };
    l.total++;
    if (runs[i]! > 0) l.covered++;
    l.hits = Math.max(l.hits, runs[i]!);
    lines.set(line, l);
  });
  c.lines = [...lines.values()].sort((a, b) => a.line - b.line);
  c.branches = branchPoints(c.expression, first).map((p) => {
    const taken = ts.map((t) => branchTaken(p, t));
    return {
      operator: p.operator,
      from: first[p.node]!.from,
      to: first[p.node]!.to,
      true: taken.filter((x) => x.true).length,
      false: taken.filter((x) => x.false).length,
    };
  });
}

export function policyCoverage(
  policy: unknown,
  results: readonly CaseResult[],
  expected: readonly { name: string; expect: { outcome: string } }[] = [],
  extra: readonly CoverageRun[] = [],
): PolicyCoverage {
  const entries = new Map<string, ExpressionCoverage>();
  const traces = new Map<string, CelTraceNode[][]>();
  for (const { field, expression } of policyExpressions(policy)) {
    const m = /^spec\.validations\[(\d+)\]\.expression$/.exec(field);
    const base: ExpressionCoverage = {
      field,
      expression,
      true: 0,
      false: 0,
      error: 0,
      notEvaluated: 0,
      nodes: { covered: 0, total: 0 },
      branches: [],
      lines: [],
    };
    entries.set(field, m ? ({ index: Number(m[1]), ...base } as ValidationCoverage) : base);
    traces.set(field, []);
  }
  const findings: CoverageFinding[] = [];
  const validating = kindOf(policy) !== 'MutatingAdmissionPolicy';
  let denied = false;
  const runs: CoverageRun[] = [];
  for (const r of results) {
    runs.push({ name: r.name, samples: runSamples(policy, r.run) });
    if (r.run.outcome === 'deny') denied = true;
    const want = expected.find((e) => e.name === r.name)?.expect.outcome;
    if ((want === 'admit' || want === 'warn') && r.run.outcome === 'skip') {
      findings.push({
        code: 'allowed-unmatched',
        case: r.name,
        message: `case '${r.name}' expects the request to be allowed, but no binding or matchConstraints matched it: it cannot catch a change in the ${validating ? 'validations' : 'mutations'}`,
      });
    }
  }
  runs.push(...extra);
  for (const run of runs) {
    const seen = new Set<string>();
    for (const s of run.samples) {
      const c = entries.get(s.field);
      if (!c) continue;
      seen.add(s.field);
      if (s.outcome === 'true') c.true++;
      else if (s.outcome === 'false') c.false++;
      else if (s.outcome === 'error') c.error++;
      if (s.trace) traces.get(s.field)!.push(s.trace);
    }
    for (const c of entries.values()) if (!seen.has(c.field)) c.notEvaluated++;
  }
  const validations = [...entries.values()].filter((c): c is ValidationCoverage => 'index' in c);
  if (validating && !denied && validations.length > 0) {
    findings.push({ code: 'never-denies', message: 'no case makes the policy deny: a validation that always passes would go unnoticed' });
  }
  const totals = { nodes: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } };
  for (const c of entries.values()) {
    traceCoverage(c, traces.get(c.field)!);
    totals.nodes.covered += c.nodes.covered;
    totals.nodes.total += c.nodes.total;
    for (const b of c.branches) {
      totals.branches.total += 2;
      totals.branches.covered += (b.true > 0 ? 1 : 0) + (b.false > 0 ? 1 : 0);
    }
  }
  // Counted the way branches and nodes are, by what the cases reached: the validations some case fails.
  const failed = validations.filter((c) => c.false > 0).length;
  const one = validations.length === 1;
  const summary =
    (validations.length ? `${failed} of ${validations.length} validation${one ? ' fails' : 's fail'} in some case; ` : '') +
    `${totals.branches.covered} of ${totals.branches.total} branches (${pct(totals.branches)} %); ` +
    `${totals.nodes.covered} of ${totals.nodes.total} nodes (${pct(totals.nodes)} %)`;
  return {
    policy: nameOf(policy),
    kind: kindOf(policy),
    cases: runs.length,
    validations,
    expressions: [...entries.values()].filter((c) => !('index' in c)),
    ...totals,
    findings,
    summary,
  };
}

/** Branch coverage in per cent (100 when there is no branch), as `--min-coverage` compares it. */
export const branchPercent = (c: { branches: { covered: number; total: number } }): number =>
  c.branches.total ? (100 * c.branches.covered) / c.branches.total : 100;
