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
import type { WorkspaceDoc } from './documents';
import { workspace } from './workspace';
// Saved cases run in the check pipeline's one home (src/check/cases.ts, as `check --cases`); this
// file and that one are loaded with the policy panel, on first use (store/index.ts does not export them).
import { caseTarget as targetOf, celAtRelease, runPolicyCases as runSavedCases } from '../check/cases';

export type InputProblem = DraftError;

export type PolicyRunOutcome =
  | { ok: true; kind: 'validating'; result: ValidatingRunResult; inputProblems: InputProblem[] }
  | { ok: true; kind: 'mutating'; result: MutatingRunResult; inputProblems: InputProblem[] }
  | { ok: false; inputProblems: InputProblem[] };

/** The CEL engine at the workspace's target release (its environment and libraries; absent option = 1.36). */
const celAtTarget = (): { evaluate: typeof evaluate } => celAtRelease({ evaluate }, workspace.getState().kubernetesVersion);

/** The policy, its bindings and the possible params, from the workspace (src/check/cases.ts caseTarget). */
export const caseTarget = (policy: WorkspaceDoc, docs: readonly WorkspaceDoc[]): CaseTarget => targetOf(policy.object, docs.map((d) => d.object));

/** The test input of a draft, or what is wrong with it. */
export function requestInput(draft: TestInputDraft): { input: TestInput; problems: InputProblem[] } {
  const { input, errors } = toTestInput(draft);
  return { input, problems: errors };
}

export async function runPolicyTest(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], draft: TestInputDraft): Promise<PolicyRunOutcome> {
  const { input, problems } = requestInput(draft);
  if (problems.length) return { ok: false, inputProblems: problems };
  const run = { ...caseTarget(policy, docs), ...input };
  if (kindOf(policy.object) === 'MutatingAdmissionPolicy') return { ok: true, kind: 'mutating', result: await runMutatingPolicy(run, celAtTarget()), inputProblems: [] };
  // Traced: the policy's validation editors show the values of this run inline (ValidationTrace.trace).
  return { ok: true, kind: 'validating', result: await runValidatingPolicy({ ...run, trace: true }, celAtTarget()), inputProblems: [] };
}

/** A saved case from the current inputs and what they produce now (the expectation the user confirms). */
export function caseFromInputs(name: string, draft: TestInputDraft, expect: { outcome: CaseOutcome; message?: string; object?: unknown }): PolicyTestCase | InputProblem[] {
  const { input, problems } = requestInput(draft);
  if (problems.length) return problems;
  return { name, input, expect };
}

export function runPolicyCases(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): Promise<CasesReport> {
  return runSavedCases(policy.object, docs.map((d) => d.object), cases, { evaluate }, workspace.getState().kubernetesVersion);
}

export function kaptestExport(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): KaptestExport {
  return toKaptestManifest(caseTarget(policy, docs), cases);
}

/** The inputs a saved case was made from, as a draft for the test-input form. */
export const draftOfCase = (c: PolicyTestCase): TestInputDraft => toDraft(c.input);
