/**
 * A MutatingAdmissionPolicy test run, as k8s.io/apiserver's mutating dispatcher runs it: per
 * applying binding and param, matchConditions, then each mutation on the object as the previous
 * one left it; failurePolicy decides what the errors do. The order, the messages and what is
 * approximated: README.md ("MutatingAdmissionPolicy runs").
 */
import { withDefaults } from '../k8s/defaults';
import type { CelInputs, CelTraceNode } from '../cel/types';
import { CEL_LIMITS } from '../cel/types';
import { diffJson, applyJsonPatch, type DiffEntry, type JsonPatchOp } from '../base/jsonpatch';
import type { MatchResult } from './matching';
import { mergeApplyConfiguration, type ListMergeNote } from './merge';
import { dispatchBindings, invocationApplied, matchPolicy, policyBindings, requestNotes, type BindingTraceBase, type RunRequestInput } from './dispatch';
import { admittedInput, admittedObject } from '../request/admitted';
import { celInputs } from '../request/cel-inputs';
import { OUT_OF_BUDGET, policyOptions, traceVariables, usedVariables, type PolicyCel, type VariableTrace } from './expressions';
import { failurePolicyOf, runMatchConditions, type MatchConditionsTrace } from './match-conditions';
import { deepEqual, isObject, list, nameOf, obj, str, type Obj } from '../base/json';

export interface MutatingRunInput extends RunRequestInput {
  policy: unknown;
  bindings: readonly unknown[];
  /** Record every expression's sub-expression values (matchConditions, variables, mutations: their `trace`); results and costs are the same. */
  trace?: boolean;
  /** What the apiserver's decoder refuses in a mutated object of the request's kind (src/k8s/typed): given, a mutation whose result does not decode fails (applyMutation). */
  decode?: Decode;
}

/** The problems of decoding an object into its Go type (none: it decodes). */
export type Decode = (object: unknown) => readonly string[];

export interface MutationTrace {
  index: number;
  patchType: 'ApplyConfiguration' | 'JSONPatch' | string;
  expression: string;
  /** The evaluated apply configuration (an object) or JSON patch (a list of operations). */
  value?: unknown;
  /** The error as the apiserver reports it (before the policy/binding prefix). */
  error?: string;
  cost: number;
  /** What this mutation changed. */
  changes: DiffEntry[];
  /** ApplyConfiguration: how each list was merged (see merge.ts). */
  listMerges?: ListMergeNote[];
  /** JSONPatch: a `test` operation failed, so the patch was not applied. */
  testFailed?: { index: number; path: string };
  /** The mutation did not run (no object: DELETE). */
  skipped?: string;
  /** With MutatingRunInput.trace: the expression's sub-expression values. */
  trace?: CelTraceNode[];
}

export interface MutatingEvaluationTrace {
  param: unknown;
  paramName?: string;
  matchConditions?: MatchConditionsTrace;
  variables: VariableTrace[];
  mutations: MutationTrace[];
  objectBefore: unknown;
  objectAfter: unknown;
  cost: number;
}

export interface MutatingBindingTrace extends BindingTraceBase {
  evaluations: MutatingEvaluationTrace[];
}

export interface MutatingRunResult {
  /** deny: failurePolicy Fail and an error; admit: the policy applied (mutated or not); skip: it did not apply. */
  outcome: 'admit' | 'deny' | 'skip';
  mutated: boolean;
  decision: { allowed: boolean; message?: string; code?: number; reason?: string };
  /** The object after all mutations (the input object when nothing applied). */
  object: unknown;
  /** Structural diff input → output. */
  diff: DiffEntry[];
  errors: string[];
  /** See ValidatingRunResult.notes. */
  notes: string[];
  policyName: string;
  failurePolicy: string;
  reinvocationPolicy: string;
  policyMatch?: MatchResult;
  skipReason?: string;
  bindings: MutatingBindingTrace[];
  ignoredBindings: string[];
  totalCost: number;
  /** The policy applied again to its own output (only when it mutated and was admitted). */
  reinvocation?: { changesAgain: boolean; diff: DiffEntry[]; object: unknown; errors: string[] };
}

interface PolicyError {
  message: string;
  binding?: string;
  reason?: string;
}

/**
 * A mutation's evaluated expression applied to the object as the mutations before it left it (a
 * JSON Patch, or an apply configuration merged as server-side apply merges it), or the error the
 * apiserver reports for it. What the run and the impact replay's lean verdicts both apply.
 */
export function applyMutation(
  patchType: string,
  object: unknown,
  r: { value: unknown; type: string; cost: number },
  decode?: Decode,
): { object: unknown; testFailed?: { index: number; path: string }; listMerges?: ListMergeNote[] } | { error: string; internal?: true } {
  if (r.cost > CEL_LIMITS.runtimeCelCostBudget) return { error: OUT_OF_BUDGET };
  if (patchType === 'JSONPatch') {
    const ops = Array.isArray(r.value) ? (r.value as JsonPatchOp[]) : [];
    const applied = applyJsonPatch(
      object,
      ops.map((o) => ({ ...o, op: str(o.op), path: str(o.path), ...(o.from ? { from: str(o.from) } : {}) })),
    );
    if (!applied.ok) return { error: `JSON Patch: ${applied.error}` };
    // json_patch.go decodes the patched JSON into the Go type: a failure is an internal error, which
    // the dispatcher returns as it is (a StatusError: failurePolicy does not apply)
    const problems = applied.testFailed ? [] : (decode?.(applied.value) ?? []);
    if (problems.length) return { error: `Internal error occurred: ${problems[0]}`, internal: true };
    return { object: applied.value, ...(applied.testFailed ? { testFailed: applied.testFailed } : {}) };
  }
  if (patchType === 'ApplyConfiguration') {
    if (!isObject(r.value)) return { error: `invalid return type: ${r.type}` };
    const listMerges: ListMergeNote[] = [];
    const merged = mergeApplyConfiguration(object, r.value, listMerges);
    // the merge goes through the typed object (apply_configuration.go): a value of another type is the mutation's error
    const problems = decode?.(merged) ?? [];
    if (problems.length) return { error: `error applying patch: failed to convert patch object to typed object: ${problems[0]}` };
    return { object: merged, listMerges };
  }
  return { error: `unsupported patch type ${JSON.stringify(patchType)}` };
}

async function invoke(
  cel: PolicyCel,
  spec: Obj,
  input: MutatingRunInput,
  param: unknown,
  current: unknown,
): Promise<{ trace: MutatingEvaluationTrace; object: unknown; errors: string[]; internal?: string }> {
  const compiled = policyOptions(spec);
  const { variables } = compiled;
  const options = input.trace ? compiled.traced : compiled.options;
  const mutations = list(spec.mutations).map(obj);
  const exprOf = (m: Record<string, unknown>) =>
    str(m.patchType) === 'JSONPatch' ? str(obj(m.jsonPatch).expression) : str(obj(m.applyConfiguration).expression);
  const makeInputs = (object: unknown): CelInputs => celInputs(input, param, object);
  const inputs0 = makeInputs(current);
  const used = usedVariables(variables, [...list(spec.matchConditions).map((m) => str(obj(m).expression)), ...mutations.map(exprOf)]);
  const trace: MutatingEvaluationTrace = {
    param: param ?? null,
    paramName: isObject(param) ? nameOf(param) : undefined,
    variables: await traceVariables(cel, compiled, used, inputs0, input.trace),
    mutations: [],
    objectBefore: current,
    objectAfter: current,
    cost: 0,
  };
  const errors: string[] = [];
  const mc = await runMatchConditions(cel, spec, 'map-matchCondition', inputs0, options);
  trace.matchConditions = mc;
  if (mc) trace.cost += mc.cost;
  if (mc?.outcome === 'error') {
    // mutating dispatcher: addConfigError(matchResults.Error, invocation, Invalid); with Ignore the matcher answers "no match"
    if (str(spec.failurePolicy) !== 'Ignore') errors.push(mc.error ?? '');
    return { trace, object: current, errors };
  }
  if (mc?.outcome === 'skip') return { trace, object: current, errors };

  let object = current;
  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i]!;
    const patchType = str(m.patchType);
    const expression = exprOf(m);
    const mt: MutationTrace = { index: i, patchType, expression, cost: 0, changes: [] };
    trace.mutations.push(mt);
    if (object === null || object === undefined) {
      mt.skipped = 'no object to patch (DELETE)';
      continue;
    }
    const context = patchType === 'JSONPatch' ? 'map-jsonPatch' : 'map-applyConfiguration';
    const r = await cel.evaluate(expression, context, makeInputs(object), options);
    if (r.trace) mt.trace = r.trace;
    if (!r.ok) {
      mt.cost = (r as { cost?: number }).cost ?? 0;
      mt.error = r.message;
      errors.push(r.message);
      trace.cost += mt.cost;
      continue;
    }
    mt.cost = r.cost;
    mt.value = r.value;
    trace.cost += r.cost;
    const applied = applyMutation(patchType, object, r, input.decode);
    if ('error' in applied) {
      mt.error = applied.error;
      // an internal error ends the plugin (dispatcher.go returns a StatusError at once)
      if ('internal' in applied) {
        trace.objectAfter = object;
        return { trace, object, errors, internal: applied.error };
      }
      errors.push(mt.error);
      continue;
    }
    if (applied.testFailed) mt.testFailed = applied.testFailed;
    if (applied.listMerges) mt.listMerges = applied.listMerges;
    mt.changes = diffJson(object, applied.object);
    object = applied.object;
  }
  trace.objectAfter = object;
  return { trace, object, errors };
}

async function runOnce(input: MutatingRunInput, cel: PolicyCel): Promise<MutatingRunResult> {
  const policy = withDefaults(input.policy);
  const spec = obj(obj(policy).spec);
  const policyName = nameOf(policy);
  const failurePolicy = failurePolicyOf(spec);
  const result: MutatingRunResult = {
    outcome: 'skip',
    mutated: false,
    decision: { allowed: true },
    object: input.request.object,
    diff: [],
    errors: [],
    notes: requestNotes(input),
    policyName,
    failurePolicy,
    reinvocationPolicy: str(spec.reinvocationPolicy) || 'Never',
    bindings: [],
    ignoredBindings: [],
    totalCost: 0,
  };
  const policyErrors: PolicyError[] = [];
  let internal: string | undefined;
  const configError = (err: string, binding?: string) => {
    policyErrors.push({ message: binding === undefined ? `failed to configure policy: ${err}` : `failed to configure binding: ${err}`, binding });
  };
  const { own: bindings, ignored } = policyBindings(policyName, input.bindings);
  result.ignoredBindings = ignored;
  let applied = false;
  let object: unknown = input.request.object;

  const pm = matchPolicy(spec, input);
  result.policyMatch = pm.match;
  result.notes.push(...pm.notes);
  if (pm.configError) configError(pm.configError);
  else if (pm.skipReason) result.skipReason = pm.skipReason;
  else {
    if (bindings.length === 0) result.skipReason = `no binding for policy '${policyName}'`;
    applied = await dispatchBindings(bindings, spec, input, 'mutate', {
      trace(name) {
        const bt: MutatingBindingTrace = { name, applies: false, reason: '', evaluations: [] };
        result.bindings.push(bt);
        return bt;
      },
      configError,
      async invoke(bt, _bspec, param) {
        const r = await invoke(cel, spec, input, param, object);
        bt.evaluations.push(r.trace);
        result.totalCost += r.trace.cost;
        if (r.trace.matchConditions?.outcome === 'error' && failurePolicy === 'Ignore') result.errors.push(r.trace.matchConditions.error ?? '');
        for (const e of r.errors) policyErrors.push({ message: e, binding: bt.name, reason: 'Invalid' });
        internal ??= r.internal;
        object = r.object;
        return invocationApplied(r.trace.matchConditions, failurePolicy);
      },
    });
  }
  if (applied) result.skipReason = undefined;
  else if (!result.skipReason && result.bindings.length) result.skipReason = result.bindings.map((b) => `binding '${b.name}': ${b.reason}`).join('; ');
  result.errors.push(...policyErrors.map((e) => e.message));
  result.errors = [...new Set(result.errors)];
  result.object = object;
  result.diff = diffJson(input.request.object, object);
  result.mutated = result.diff.length > 0;
  if (internal !== undefined) {
    result.decision = { allowed: false, message: internal, reason: 'InternalError', code: 500 };
    result.outcome = 'deny';
    result.skipReason = undefined;
  } else if (policyErrors.length > 0 && failurePolicy !== 'Ignore') {
    const e = policyErrors[0]!;
    const message =
      e.binding !== undefined
        ? `policy '${policyName}' with binding '${e.binding}' denied request: ${e.message}`
        : `policy ${JSON.stringify(policyName)} denied request: ${e.message}`;
    result.decision = { allowed: false, message, reason: e.reason ?? 'Forbidden', code: 403 };
    result.outcome = 'deny';
    result.skipReason = undefined;
  } else {
    result.outcome = applied ? 'admit' : 'skip';
  }
  return result;
}

/**
 * Runs a MutatingAdmissionPolicy on a request. When it mutates the object and admits,
 * it is run once more on its own output (`reinvocation`): `changesAgain` flags a policy
 * that is not idempotent (with reinvocationPolicy IfNeeded, or after other plugins
 * mutate, the apiserver would apply it again).
 */
/** One run of the policy, without the reinvocation check (the admission simulator reinvokes as the chain does). */
export const runMutatingPolicyOnce = runOnce;

export async function runMutatingPolicy(input: MutatingRunInput, cel: PolicyCel): Promise<MutatingRunResult> {
  input = await admittedInput(input); // the objects as the apiserver decodes them (src/request/admitted.ts)
  const first = await runOnce(input, cel);
  // the patched object decoded and defaulted again, as the mutating plugin does
  if (first.mutated) first.object = admittedObject(first.object, input);
  if (first.outcome === 'admit' && first.mutated) {
    const again = await runOnce({ ...input, trace: false, request: { ...input.request, object: first.object } }, cel);
    if (again.mutated) again.object = admittedObject(again.object, input);
    const diff = diffJson(first.object, again.object);
    first.reinvocation = { changesAgain: !deepEqual(first.object, again.object), diff, object: again.object, errors: again.errors };
  }
  return first;
}
