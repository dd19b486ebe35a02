/**
 * Run a policy document against its test inputs (src/request's one model): the inputs are
 * parsed from the texts the user typed, the bindings and params come from the workspace, and the
 * real CEL engine evaluates (src/policy over src/cel). Saved cases run the same way.
 */
import { evaluate } from '../cel';
import {
  runCases,
  runMutatingPolicy,
  runValidatingPolicy,
  toKaptestManifest,
  type CaseOutcome,
  type CasesReport,
  type CaseTarget,
  type KaptestExport,
  type MutatingRunResult,
  type PolicyTestCase,
  type RunRequestInput,
  type ValidatingRunResult,
} from '../policy';
import { isOperation, toDraft, toTestInput, type DraftError, type TestInput, type TestInputDraft } from '../request';
import type { WorkspaceDoc } from './documents';
import { workspace } from './workspace';
import { celAtRelease } from '../check';

export type InputProblem = DraftError;

export type PolicyRunOutcome =
  | { ok: true; kind: 'validating'; result: ValidatingRunResult; inputProblems: InputProblem[] }
  | { ok: true; kind: 'mutating'; result: MutatingRunResult; inputProblems: InputProblem[] }
  | { ok: false; inputProblems: InputProblem[] };

/** The CEL engine at the workspace's target release (its environment and libraries; absent option = 1.36). */
const celAtTarget = (): { evaluate: typeof evaluate } => celAtRelease({ evaluate }, workspace.getState().kubernetesVersion);

const kindOfDoc = (d: WorkspaceDoc) => (d.object as { kind?: unknown } | undefined)?.kind;

/** The policy, its bindings and the possible params, from the workspace. */
export function caseTarget(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[]): CaseTarget {
  const bindingKind = kindOfDoc(policy) === 'MutatingAdmissionPolicy' ? 'MutatingAdmissionPolicyBinding' : 'ValidatingAdmissionPolicyBinding';
  return {
    policy: policy.object,
    bindings: docs.filter((d) => kindOfDoc(d) === bindingKind).map((d) => d.object),
    paramDocuments: docs.map((d) => d.object),
  };
}

/** A test input as a policy run reads it (the request as the apiserver fills it: uid, requestKind, …). */
export function runInputOf(input: TestInput): RunRequestInput {
  const { object, oldObject, ...q } = input.request;
  return {
    params: input.params,
    request: { uid: '00000000-0000-0000-0000-000000000000', ...q, requestKind: q.kind, requestResource: q.resource, requestSubResource: q.subResource },
    object,
    oldObject,
    namespaceObject: input.namespaceObject,
    authorizer: { rules: input.authorizer ?? [] },
  };
}

/** The run input of a draft, or what is wrong with it. */
export function requestInput(draft: TestInputDraft): { input: RunRequestInput; problems: InputProblem[] } {
  const { input, errors } = toTestInput(draft);
  return { input: runInputOf(input), problems: errors };
}

export async function runPolicyTest(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], draft: TestInputDraft): Promise<PolicyRunOutcome> {
  const { input, problems } = requestInput(draft);
  if (problems.length) return { ok: false, inputProblems: problems };
  const run = { ...caseTarget(policy, docs), ...input };
  if (kindOfDoc(policy) === 'MutatingAdmissionPolicy') return { ok: true, kind: 'mutating', result: await runMutatingPolicy(run, celAtTarget()), inputProblems: [] };
  return { ok: true, kind: 'validating', result: await runValidatingPolicy(run, celAtTarget()), inputProblems: [] };
}

/** A saved case from the current inputs and what they produce now (the expectation the user confirms). */
export function caseFromInputs(name: string, draft: TestInputDraft, expect: { outcome: CaseOutcome; message?: string; object?: unknown }): PolicyTestCase | InputProblem[] {
  const { input, problems } = requestInput(draft);
  if (problems.length) return problems;
  return {
    name,
    request: input.request,
    object: input.object,
    oldObject: input.oldObject,
    params: input.params,
    namespaceObject: input.namespaceObject,
    authorizer: input.authorizer,
    expect,
  };
}

export function runPolicyCases(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): Promise<CasesReport> {
  return runCases(caseTarget(policy, docs), cases, celAtTarget());
}

export function kaptestExport(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): KaptestExport {
  return toKaptestManifest(caseTarget(policy, docs), cases);
}

/** The inputs a saved case was made from, as a draft for the test-input form. */
export function draftOfCase(c: PolicyTestCase): TestInputDraft {
  const q = c.request;
  const op = q.operation;
  const input: TestInput = {
    request: {
      operation: isOperation(op) ? op : 'CREATE',
      resource: { group: q.resource?.group ?? '', version: q.resource?.version ?? '', resource: q.resource?.resource ?? '' },
      kind: { group: q.kind?.group ?? '', version: q.kind?.version ?? '', kind: q.kind?.kind ?? '' },
      subResource: q.subResource,
      name: q.name,
      namespace: q.namespace,
      userInfo: { username: q.userInfo?.username ?? '', uid: q.userInfo?.uid, groups: q.userInfo?.groups },
      dryRun: q.dryRun,
      object: c.object,
      oldObject: c.oldObject,
    },
    params: c.params,
    namespaceObject: c.namespaceObject,
    authorizer: c.authorizer?.rules,
  };
  return toDraft(input);
}
