/**
 * Run a policy document against its test inputs (src/request's one model): the inputs are
 * parsed from the texts the user typed, the bindings and params come from the workspace, and the
 * real CEL engine evaluates (src/policy over src/cel). Saved cases run the same way.
 */
import { evaluate } from '../cel';
import {
  runMutatingPolicy,
  runValidatingPolicy,
  toKaptestManifest,
  type CaseOutcome,
  type CasesReport,
  type CaseTarget,
  type KaptestExport,
  type MutatingRunResult,
  type PolicyTestCase,
  type ValidatingRunResult,
} from '../policy';
import { toDraft, toTestInput, type DraftError, type TestInput, type TestInputDraft } from '../request';
import { kindOf } from '../base/json';
import { expressionSample, lineOf, policyCoverage, policyExpressions, type CoverageRun } from '../policy/coverage';
import { testInputs } from './test-inputs';
import { scalarLines } from '../yaml/scalar-lines';
import type { CoverageMarkState, DocCoverage } from './coverage';
import { docPositions } from './documents';
import type { WorkspaceDoc } from './documents';
import { workspace } from './workspace';
import { scenarioCoverageOf } from './simulator';
// Saved cases run in the check pipeline's one home (src/check/cases.ts, as `check --cases`); this
// file and that one are loaded with the policy panel, on first use (store/index.ts does not export them).
import { caseTarget as targetOf, celAtRelease, runCelCases, runPolicyCases as runSavedCases, type CelCaseRun } from '../check/cases';

export type InputProblem = DraftError;

export type PolicyRunOutcome =
  | { ok: true; kind: 'validating'; result: ValidatingRunResult; inputProblems: InputProblem[] }
  | { ok: true; kind: 'mutating'; result: MutatingRunResult; inputProblems: InputProblem[] }
  | { ok: false; inputProblems: InputProblem[] };

/** The CEL engine at the workspace's target release (its environment and libraries; absent option = 1.36). */
const celAtTarget = (): { evaluate: typeof evaluate } => celAtRelease({ evaluate }, workspace.getState().kubernetesVersion);

/** The policy, its bindings and the possible params, from the workspace (src/check/cases.ts caseTarget). */
export const caseTarget = (policy: WorkspaceDoc, docs: readonly WorkspaceDoc[]): CaseTarget =>
  targetOf(
    policy.object,
    docs.map((d) => d.object),
  );

/** The test input of a draft, or what is wrong with it. */
export function requestInput(draft: TestInputDraft): { input: TestInput; problems: InputProblem[] } {
  const { input, errors } = toTestInput(draft);
  return { input, problems: errors };
}

export async function runPolicyTest(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], draft: TestInputDraft): Promise<PolicyRunOutcome> {
  const { input, problems } = requestInput(draft);
  if (problems.length) return { ok: false, inputProblems: problems };
  const run = { ...caseTarget(policy, docs), ...input, kubernetesVersion: workspace.getState().kubernetesVersion };
  // Traced: the run shows every expression's values inline (matchConditions, variables, validations,
  // messages, audit annotations, mutations), and the policy's validation editors too.
  if (kindOf(policy.object) === 'MutatingAdmissionPolicy')
    return { ok: true, kind: 'mutating', result: await runMutatingPolicy({ ...run, trace: true }, celAtTarget()), inputProblems: [] };
  return { ok: true, kind: 'validating', result: await runValidatingPolicy({ ...run, trace: true }, celAtTarget()), inputProblems: [] };
}

/** A saved case from the current inputs and what they produce now (the expectation the user confirms). */
export function caseFromInputs(
  name: string,
  draft: TestInputDraft,
  expect: { outcome: CaseOutcome; message?: string; object?: unknown },
): PolicyTestCase | InputProblem[] {
  const { input, problems } = requestInput(draft);
  if (problems.length) return problems;
  return { name, input, expect };
}

/** Saved cases, traced: results are the same, and caseCoverage reads the traces. */
export function runPolicyCases(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): Promise<CasesReport> {
  return runSavedCases(
    policy.object,
    docs.map((d) => d.object),
    cases,
    { evaluate },
    workspace.getState().kubernetesVersion,
    { trace: true },
  );
}

/** The document's CEL cases of its policy's expressions, run traced: they count toward coverage, as `check --coverage` counts them. */
export async function celCaseRuns(policy: WorkspaceDoc): Promise<CoverageRun[]> {
  const byPath = testInputs.getState().docs[policy.id]?.celCases ?? {};
  const fields = new Set(policyExpressions(policy.object).map((e) => e.field));
  const out: CoverageRun[] = [];
  for (const [path, cases] of Object.entries(byPath)) {
    if (!fields.has(path) || !cases.length) continue;
    const traced: CelCaseRun[] = [];
    await runCelCases(policy.object, path, cases, celAtTarget(), traced, workspace.getState().kubernetesVersion);
    traced.forEach((r, i) => out.push({ name: cases[i]?.name ?? `CEL case ${i + 1}`, samples: [expressionSample(path, r)] }));
  }
  return out;
}

/**
 * The coverage of a policy's saved cases (src/policy/coverage.ts) as the editor shows it: a mark
 * per YAML line holding an expression — covered (every node ran and every branch went both
 * ways), partly, never (nothing on it ran) — with the summary and the findings.
 */
export function caseCoverage(policy: WorkspaceDoc, cases: readonly PolicyTestCase[], report: CasesReport, extra: readonly CoverageRun[] = []): DocCoverage {
  const cov = policyCoverage(policy.object, report.results, cases, extra);
  const positions = policy.error ? undefined : docPositions(policy);
  const lines = new Map<number, { nodes: number; ran: number; sides: number; taken: number; notes: string[] }>();
  for (const e of [...cov.validations, ...cov.expressions]) {
    const pos = positions?.positionOf(e.field);
    if (!pos?.exact) continue;
    const at = scalarLines(policy.text, pos.value.startOffset, pos.value.endOffset, e.expression);
    const line = (l: number) => at[Math.min(l, at.length - 1)]!;
    const entry = (n: number) => lines.get(n) ?? lines.set(n, { nodes: 0, ran: 0, sides: 0, taken: 0, notes: [] }).get(n)!;
    if (e.lines.length === 0) {
      for (const n of new Set(at)) {
        entry(n).nodes++;
        entry(n).notes.push(`${e.field}: not evaluated by any case`);
      }
      continue;
    }
    for (const l of e.lines) {
      const x = entry(line(l.line));
      x.nodes += l.total;
      x.ran += l.covered;
      x.notes.push(`${e.field}: ${l.covered} of ${l.total} sub-expressions ran`);
    }
    for (const b of e.branches) {
      const x = entry(line(lineOf(e.expression, b.from)));
      x.sides += 2;
      x.taken += (b.true > 0 ? 1 : 0) + (b.false > 0 ? 1 : 0);
      x.notes.push(`${b.operator} ${e.expression.slice(b.from, b.to).slice(0, 40)}: true in ${b.true}, false in ${b.false}`);
    }
  }
  const marks = [...lines]
    .sort((a, b) => a[0] - b[0])
    .map(([line, x]) => ({
      line,
      state: (x.ran === 0 && x.taken === 0 ? 'never' : x.ran === x.nodes && x.taken === x.sides ? 'covered' : 'partly') as CoverageMarkState,
      title: x.notes.join('\n'),
    }));
  return { text: policy.text, marks, summary: cov.summary, findings: cov.findings };
}

/**
 * What the policy panel shows of a policy's saved cases: the cases' report (when it has policy
 * cases) and the coverage of every run that exercises it — its policy cases, the CEL cases of its
 * expressions and the saved scenarios that run it — as `check --coverage` computes it for any
 * policy with one of those. No runs at all: no coverage.
 */
export async function docCaseCoverage(
  policy: WorkspaceDoc,
  docs: readonly WorkspaceDoc[],
  cases: readonly PolicyTestCase[],
): Promise<{ report?: CasesReport; coverage?: DocCoverage }> {
  const report = await runPolicyCases(policy, docs, cases);
  const extra = [...(await celCaseRuns(policy)), ...(await scenarioCoverageOf(policy, docs))];
  if (!cases.length && !extra.length) return {};
  return { ...(cases.length ? { report } : {}), coverage: caseCoverage(policy, cases, report, extra) };
}

export function kaptestExport(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): KaptestExport {
  return toKaptestManifest(caseTarget(policy, docs), cases);
}

/** The inputs a saved case was made from, as a draft for the test-input form. */
export const draftOfCase = (c: PolicyTestCase): TestInputDraft => toDraft(c.input);
