/**
 * Run a policy document against its test inputs: the inputs are parsed from the
 * texts the user typed, the bindings and params come from the workspace, and the
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
import { parseDocuments } from '../yaml';
import type { WorkspaceDoc } from './documents';
import type { PolicyTestInputs } from './policy-tests';

export interface InputProblem {
  input: 'object' | 'oldObject' | 'namespace' | 'params' | 'authorizer';
  message: string;
}

export type PolicyRunOutcome =
  | { ok: true; kind: 'validating'; result: ValidatingRunResult; inputProblems: InputProblem[] }
  | { ok: true; kind: 'mutating'; result: MutatingRunResult; inputProblems: InputProblem[] }
  | { ok: false; inputProblems: InputProblem[] };

const cel = { evaluate };

/** The single object of a YAML text; undefined for an empty text. */
function parseOne(text: string, input: InputProblem['input'], problems: InputProblem[]): unknown {
  if (!text.trim()) return undefined;
  const { documents, errors } = parseDocuments(text, { unwrapLists: false });
  if (errors.length) {
    problems.push({ input, message: `line ${errors[0].line}, column ${errors[0].column}: ${errors[0].message}` });
    return undefined;
  }
  if (documents.length !== 1) problems.push({ input, message: `expected one object, found ${documents.length}` });
  return documents[0]?.object;
}

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

/** The request and objects of the test inputs, or what is wrong with them. */
export function requestInput(inputs: PolicyTestInputs): { input: RunRequestInput; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const object = parseOne(inputs.objectText, 'object', problems);
  const oldObject = parseOne(inputs.oldObjectText, 'oldObject', problems);
  const namespaceObject = parseOne(inputs.namespaceText, 'namespace', problems);
  const params = parseOne(inputs.paramsText, 'params', problems);
  const authorizer = parseOne(inputs.authorizerText, 'authorizer', problems) as { rules?: unknown } | undefined;
  if (authorizer !== undefined && !Array.isArray(authorizer.rules)) problems.push({ input: 'authorizer', message: 'expected `rules:` with a list of rules' });
  const r = inputs.request;
  const gvr = { group: r.group, version: r.version, resource: r.resource };
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const input: RunRequestInput = {
    params,
    request: {
      uid: '00000000-0000-0000-0000-000000000000',
      kind: gvk,
      resource: gvr,
      subResource: r.subResource || undefined,
      requestKind: gvk,
      requestResource: gvr,
      requestSubResource: r.subResource || undefined,
      name: r.name || undefined,
      namespace: r.namespace || undefined,
      operation: r.operation,
      userInfo: { username: r.username, groups: r.groups.split(/[\s,]+/).filter(Boolean) },
      dryRun: r.dryRun,
    },
    object: r.operation === 'DELETE' ? undefined : object,
    oldObject: r.operation === 'CREATE' ? undefined : oldObject,
    namespaceObject: r.namespace ? namespaceObject : undefined,
    authorizer: authorizer as RunRequestInput['authorizer'],
  };
  return { input, problems };
}

export async function runPolicyTest(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], inputs: PolicyTestInputs): Promise<PolicyRunOutcome> {
  const { input, problems } = requestInput(inputs);
  if (problems.length) return { ok: false, inputProblems: problems };
  const run = { ...caseTarget(policy, docs), ...input };
  if (kindOfDoc(policy) === 'MutatingAdmissionPolicy') return { ok: true, kind: 'mutating', result: await runMutatingPolicy(run, cel), inputProblems: [] };
  return { ok: true, kind: 'validating', result: await runValidatingPolicy(run, cel), inputProblems: [] };
}

/** A saved case from the current inputs and what they produce now (the expectation the user confirms). */
export function caseFromInputs(name: string, inputs: PolicyTestInputs, expect: { outcome: CaseOutcome; message?: string; object?: unknown }): PolicyTestCase | InputProblem[] {
  const { input, problems } = requestInput(inputs);
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
  return runCases(caseTarget(policy, docs), cases, cel);
}

export function kaptestExport(policy: WorkspaceDoc, docs: readonly WorkspaceDoc[], cases: readonly PolicyTestCase[]): KaptestExport {
  return toKaptestManifest(caseTarget(policy, docs), cases);
}
