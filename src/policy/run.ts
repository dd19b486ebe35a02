/**
 * A ValidatingAdmissionPolicy test run with a step-by-step trace, following
 * k8s.io/apiserver pkg/admission/plugin/policy/validating (dispatcher.go Dispatch,
 * validator.go Validate) and the match-conditions matcher
 * (pkg/admission/plugin/webhook/matchconditions/matcher.go).
 *
 * Exact (same code paths as the apiserver, re-expressed): which policy/bindings apply,
 * param resolution, matchConditions semantics (any false skips, even after an error;
 * errors → failurePolicy), validation decisions, messageExpression fallbacks, reasons and
 * HTTP codes, validationActions, the audit annotations and their keys, the denial and
 * warning wording. Every CEL expression is evaluated by the real engine (cel-go +
 * k8s.io/apiserver in WebAssembly), which also builds the activation.
 *
 * Approximated:
 *   - cost: the engine evaluates each expression on its own, computing the variables it
 *     uses lazily inside that evaluation. The apiserver caches a variable for the whole
 *     phase (validations / messageExpressions / auditAnnotations), so a variable used by
 *     several expressions is charged once there and once per expression here: our sums can
 *     be higher. The budget check (10M per phase, 2.5M for matchConditions) is made on
 *     these sums after each expression, as the apiserver does.
 *   - the trace shows every variable's value (evaluated on its own); `used` says whether
 *     an expression of the policy refers to it (textually, through other variables), i.e.
 *     whether Kubernetes would evaluate it at all.
 *   - matchPolicy Equivalent (see matching.ts) and paramKind scope (see params.ts).
 */
import { withDefaults } from '../k8s/defaults';
import { goJSON } from '../k8s/errors';
import { CEL_LIMITS, type CelCompileOptions, type CelTraceNode } from '../cel/types';
import { declaredVariables, declaresParams, type PolicyVariable } from '../k8s/cel-scope';
import { byteLength, isObject, list, nameOf, obj, str, trimSpace, type Obj } from '../base/json';
import { dispatchBindings, invocationApplied, matchPolicy, policyBindings, requestNotes, type BindingTraceBase, type RunRequestInput } from './dispatch';
import { admittedInput } from '../request/admitted';
import { celInputs } from '../request/cel-inputs';
import {
  evalExpr,
  OUT_OF_BUDGET,
  traceVariables,
  usedVariables,
  type ExpressionTrace,
  type PolicyCel,
  type PolicyExpression,
  type VariableTrace,
} from './expressions';
import { failurePolicyOf, matchConditionExpressions, runMatchConditions, type MatchConditionsTrace } from './match-conditions';
import type { MatchResult } from './matching';

export interface ValidatingRunInput extends RunRequestInput {
  policy: unknown;
  /** Bindings from the workspace; those whose spec.policyName is not the policy are ignored. */
  bindings: readonly unknown[];
  /**
   * Record every expression's sub-expression values (matchConditions, variables, validations,
   * messageExpressions, audit annotations: their `trace`); results and costs are the same.
   */
  trace?: boolean;
}

export type StatusReason = 'Unauthorized' | 'Forbidden' | 'Invalid' | 'RequestEntityTooLarge';

/** dispatcher.go reasonToCode */
export function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

export interface ValidationTrace {
  index: number;
  expression: string;
  /** admit: true; deny: false; error: evaluation error (see error). */
  evaluation: 'admit' | 'deny' | 'error';
  error?: string;
  cost: number;
  /** The message the decision carries (deny and error). */
  message?: string;
  /** Where the message came from. */
  messageSource?: 'messageExpression' | 'message' | 'expression' | 'error';
  /** messageExpression, when there is one: its result, or why it was not used. */
  messageExpression?: { expression: string; value?: unknown; error?: string; rejected?: string; cost: number; trace?: CelTraceNode[] };
  reason?: StatusReason;
  code?: number;
  /** What the policy decides for this validation after failurePolicy: admit or deny. */
  action: 'admit' | 'deny';
  /** With ValidatingRunInput.trace: the expression's sub-expression values. */
  trace?: CelTraceNode[];
}

export interface AuditAnnotationTrace {
  key: string;
  valueExpression: string;
  action: 'publish' | 'exclude' | 'error';
  value?: string;
  error?: string;
  cost: number;
  /** With ValidatingRunInput.trace: the valueExpression's sub-expression values. */
  trace?: CelTraceNode[];
}

/** One PolicyDecision of validator.go. */
export interface PolicyDecision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  reason?: StatusReason;
  /** The validation index (-1 for match conditions, budget or audit annotation errors). */
  index: number;
}

export interface EvaluationTrace {
  /** The param object (null when params is null). */
  param: unknown;
  paramName?: string;
  matchConditions?: MatchConditionsTrace;
  variables: VariableTrace[];
  validations: ValidationTrace[];
  auditAnnotations: AuditAnnotationTrace[];
  /** Validations + messageExpressions (+ the variables they use, see the module comment), against CEL_LIMITS.runtimeCelCostBudget. */
  cost: number;
  auditAnnotationsCost: number;
  budget: number;
  /** Set when the validation phase exceeded the budget. */
  outOfBudget?: boolean;
  decisions: PolicyDecision[];
}

export interface BindingTrace extends BindingTraceBase {
  validationActions: string[];
  evaluations: EvaluationTrace[];
}

export interface RunOutcomeDecision {
  allowed: boolean;
  /** The apiserver's message for a denial. */
  message?: string;
  code?: number;
  reason?: StatusReason;
}

/** One entry of `validation.policy.admission.k8s.io/validation_failure` (k8s.io/apiserver validating/dispatcher.go ValidationFailureValue, fields in its order). */
export interface ValidationFailure {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: string[];
}

export const VALIDATION_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';

export interface ValidatingRunResult {
  /** deny: rejected; warn: admitted with warnings; admit: admitted (the policy applied); skip: the policy did not apply. */
  outcome: 'admit' | 'deny' | 'warn' | 'skip';
  decision: RunOutcomeDecision;
  warnings: string[];
  /** Audit annotations added to the request's audit event. */
  auditAnnotations: Record<string, string>;
  /** The Audit-action failures, in order (what `validation.policy.admission.k8s.io/validation_failure` lists; the admission chain merges them across policies by its release). */
  validationFailures: ValidationFailure[];
  /** Evaluation and configuration errors met (whatever failurePolicy did with them). */
  errors: string[];
  /** Where the test inputs make this run differ from a real apiserver (missing namespace object, equivalent resources not tried). */
  notes: string[];
  policyName: string;
  failurePolicy: string;
  policyMatch?: MatchResult;
  /** Why the policy did not apply (skip). */
  skipReason?: string;
  bindings: BindingTrace[];
  /** Names of workspace bindings for other policies. */
  ignoredBindings: string[];
  totalCost: number;
  /**
   * Every reason the request is denied (the dispatcher's deniedDecisions, in its order:
   * bindings, then each binding's validations), with their messages; the apiserver reports
   * the first (`reported`) to the client (policy/validating/dispatcher.go: deniedDecisions[0]).
   */
  denials: Denial[];
}

export interface Denial {
  message: string;
  binding?: string;
  /** The validation index (-1: a configuration, match-condition, budget or audit-annotation error). */
  index: number;
  reason?: StatusReason;
  reported: boolean;
}

const MAX_AUDIT_VALUE = 10 * 1024;

function truncateBytes(s: string, max: number): string {
  const b = new TextEncoder().encode(s);
  return b.length <= max ? s : new TextDecoder().decode(b.slice(0, max));
}

/** An answer a failed validation's messageExpression gave (evalExpr's or the engine's own): what its message is made of. */
export interface MessageAnswer {
  ok: boolean;
  value?: unknown;
}

/**
 * validator.go: the message of a validation that is false — its messageExpression's value when
 * that is a non-empty string of at most maxEvaluatedMessageExpressionSizeBytes on one line
 * (trimmed), else the static `message` (trimmed), else `failed expression: <expression>`; and
 * why the messageExpression's value was not used (`rejected`). `m`: the messageExpression's
 * answer (undefined: the validation has none). The one home of this wording (the policy run,
 * the impact replay's lean verdicts).
 */
export function failedValidationMessage(
  v: Obj,
  m: MessageAnswer | undefined,
): { message: string; source: 'messageExpression' | 'message' | 'expression'; rejected?: string } {
  let message = '';
  let rejected: string | undefined;
  if (m && m.ok) {
    if (typeof m.value === 'string') {
      message = trimSpace(m.value);
      if (byteLength(message) > CEL_LIMITS.maxEvaluatedMessageExpressionSizeBytes) {
        rejected = `longer than ${CEL_LIMITS.maxEvaluatedMessageExpressionSizeBytes} bytes`;
        message = '';
      }
      if (message.includes('\n')) {
        rejected = 'contains a line break';
        message = '';
      }
      if (!message && !rejected) rejected = 'empty after trimming';
    } else {
      rejected = 'not a string';
    }
    if (message) return { message, source: 'messageExpression' };
  } else if (m && !m.ok) {
    rejected = 'evaluation error';
  }
  const withRejected = rejected ? { rejected } : {};
  message = trimSpace(str(v.message));
  if (message) return { message, source: 'message', ...withRejected };
  return { message: `failed expression: ${trimSpace(str(v.expression))}`, source: 'expression', ...withRejected };
}

/** The message a policy's denial carries (dispatcher.go): by a binding, or by the policy (a configuration error). */
export const policyDenialMessage = (policyName: string, binding: string | undefined, message: string): string =>
  binding !== undefined
    ? `ValidatingAdmissionPolicy '${policyName}' with binding '${binding}' denied request: ${message}`
    : `ValidatingAdmissionPolicy '${policyName}' denied request: ${message}`;

/** The warning of a failed validation under the Warn action (dispatcher.go). */
export const validationWarning = (policyName: string, binding: string, message: string): string =>
  `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${binding}': ${message}`;

// ---------------------------------------------------------------------------
// validator.go Validate

type EvaluationOptions = { hasParams: boolean; variables: PolicyVariable[]; options: CelCompileOptions; validationOptions: CelCompileOptions };

/** The compile options of one policy's expressions: the one place evaluateValidations and validatingExpressions read them. */
function evaluationOptions(spec: Obj, traced: boolean): EvaluationOptions {
  const hasParams = declaresParams(spec);
  const variables = declaredVariables(spec.variables);
  const options: CelCompileOptions = { hasParams, variables };
  const validationOptions: CelCompileOptions = traced ? { ...options, trace: true } : options;
  return { hasParams, variables, options, validationOptions };
}

/**
 * Collect: every expression one evaluation of the (defaulted) policy `spec` may ask the engine
 * for, with the options it asks with — variables (each on its own, as traceVariables does),
 * matchConditions, validations, messageExpressions, audit annotations. The run decides with
 * the answers, in its order, short-circuits and budgets (evaluateValidations); the ones it
 * never reads change nothing.
 */
export function validatingExpressions(spec: Obj, traced = false): PolicyExpression[] {
  const { hasParams, variables, options, validationOptions } = evaluationOptions(spec, traced);
  const out: PolicyExpression[] = variables.map((v) => ({
    expression: v.expression,
    context: 'vap-variable',
    options: { hasParams, variables, variableName: v.name },
  }));
  out.push(...matchConditionExpressions(spec, 'vap-matchCondition', options));
  for (const v of list(spec.validations).map(obj)) {
    out.push({ expression: str(v.expression), context: 'vap-validation', options: validationOptions });
    if (str(v.messageExpression)) out.push({ expression: str(v.messageExpression), context: 'vap-messageExpression', options });
  }
  for (const a of list(spec.auditAnnotations).map(obj)) out.push({ expression: str(a.valueExpression), context: 'vap-auditAnnotation', options });
  return out;
}

async function evaluateValidations(
  cel: PolicyCel,
  spec: Obj,
  failurePolicy: string,
  input: RunRequestInput,
  param: unknown,
  traced = false,
): Promise<EvaluationTrace> {
  const { hasParams, variables, options, validationOptions } = evaluationOptions(spec, traced);
  const errorAction: 'admit' | 'deny' = failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const inputs = celInputs(input, param);
  const validations = list(spec.validations).map(obj);
  const audits = list(spec.auditAnnotations).map(obj);
  const allExpressions = [
    ...list(spec.matchConditions).map((m) => str(obj(m).expression)),
    ...validations.flatMap((v) => [str(v.expression), str(v.messageExpression)]),
    ...audits.map((a) => str(a.valueExpression)),
  ];
  const trace: EvaluationTrace = {
    param: param ?? null,
    paramName: isObject(param) ? nameOf(param) : undefined,
    variables: await traceVariables(cel, variables, usedVariables(variables, allExpressions), inputs, hasParams, traced),
    validations: [],
    auditAnnotations: [],
    cost: 0,
    auditAnnotationsCost: 0,
    budget: CEL_LIMITS.runtimeCelCostBudget,
    decisions: [],
  };

  // matchConditions
  const mc = await runMatchConditions(cel, spec, 'vap-matchCondition', inputs, validationOptions);
  trace.matchConditions = mc;
  if (mc?.outcome === 'error') {
    if (failurePolicy === 'Ignore') return trace; // the matcher answers "no match"
    trace.decisions.push({ action: errorAction, evaluation: 'error', message: mc.error ?? '', index: -1 });
    return trace;
  }
  if (mc?.outcome === 'skip') return trace;

  // validations (one budget), then messageExpressions (the remaining budget)
  const results: ExpressionTrace[] = [];
  let cost = 0;
  for (const v of validations) {
    const t = await evalExpr(cel, str(v.expression), 'vap-validation', inputs, validationOptions);
    results.push(t);
    cost += t.cost;
    if (cost > CEL_LIMITS.runtimeCelCostBudget) {
      trace.cost = cost;
      trace.outOfBudget = true;
      trace.decisions.push({ action: errorAction, evaluation: 'error', message: OUT_OF_BUDGET, index: -1 });
      return trace;
    }
  }
  const messages: (ExpressionTrace | undefined)[] = [];
  let messageOutOfBudget = false;
  for (const v of validations) {
    const me = str(v.messageExpression);
    if (!me || messageOutOfBudget) {
      messages.push(undefined);
      continue;
    }
    const t = await evalExpr(cel, me, 'vap-messageExpression', inputs, validationOptions);
    messages.push(t);
    cost += t.cost;
    if (cost > CEL_LIMITS.runtimeCelCostBudget) messageOutOfBudget = true;
  }
  trace.cost = cost;

  validations.forEach((v, i) => {
    const r = results[i]!;
    const expression = str(v.expression);
    const vt: ValidationTrace = { index: i, expression, evaluation: 'admit', cost: r.cost, action: 'admit', ...(r.trace ? { trace: r.trace } : {}) };
    const m = messages[i];
    if (m)
      vt.messageExpression = { expression: str(v.messageExpression), value: m.value, error: m.error, cost: m.cost, ...(m.trace ? { trace: m.trace } : {}) };
    if (!r.ok) {
      vt.evaluation = 'error';
      vt.error = r.error;
      vt.message = r.error;
      vt.messageSource = 'error';
      vt.action = errorAction;
    } else if (messageOutOfBudget) {
      vt.evaluation = 'error';
      vt.message = `failed messageExpression: ${OUT_OF_BUDGET}`;
      vt.error = vt.message;
      vt.messageSource = 'error';
      vt.action = errorAction;
      trace.outOfBudget = true;
    } else if (r.value !== true) {
      vt.evaluation = 'deny';
      vt.action = 'deny';
      const reason = (str(v.reason) || 'Invalid') as StatusReason;
      vt.reason = reason;
      vt.code = reasonToCode(reason);
      const { message, source, rejected } = failedValidationMessage(v, m);
      if (rejected) vt.messageExpression!.rejected = rejected;
      vt.message = message;
      vt.messageSource = source;
    }
    trace.validations.push(vt);
    const d: PolicyDecision = { action: vt.action, evaluation: vt.evaluation, message: vt.message ?? '', index: i };
    if (vt.reason) d.reason = vt.reason;
    trace.decisions.push(d);
  });

  // audit annotations: their own budget
  let auditCost = 0;
  for (const a of audits) {
    const key = str(a.key);
    const valueExpression = str(a.valueExpression);
    const t = await evalExpr(cel, valueExpression, 'vap-auditAnnotation', inputs, validationOptions);
    auditCost += t.cost;
    if (auditCost > CEL_LIMITS.runtimeCelCostBudget) {
      trace.auditAnnotationsCost = auditCost;
      trace.decisions = [{ action: errorAction, evaluation: 'error', message: OUT_OF_BUDGET, index: -1 }];
      return trace;
    }
    const at: AuditAnnotationTrace = { key, valueExpression, action: 'exclude', cost: t.cost, ...(t.trace ? { trace: t.trace } : {}) };
    if (!t.ok) {
      at.action = failurePolicy === 'Ignore' ? 'exclude' : 'error';
      at.error = t.error;
    } else if (t.value === null || t.value === undefined) {
      at.action = 'exclude';
    } else if (typeof t.value === 'string') {
      const value = trimSpace(t.value);
      if (value) {
        at.action = 'publish';
        at.value = value;
      }
    } else {
      at.action = 'error';
      at.error = `valueExpression '${valueExpression}' resulted in unsupported return type: ${t.type ?? typeof t.value}. Return type must be either string or null.`;
    }
    trace.auditAnnotations.push(at);
  }
  trace.auditAnnotationsCost = auditCost;
  return trace;
}

// ---------------------------------------------------------------------------
// dispatcher.go Dispatch (one policy)

export async function runValidatingPolicy(input: ValidatingRunInput, cel: PolicyCel): Promise<ValidatingRunResult> {
  input = await admittedInput(input); // the objects as the apiserver decodes them (src/request/admitted.ts)
  const policy = withDefaults(input.policy);
  const spec = obj(obj(policy).spec);
  const policyName = nameOf(policy);
  const failurePolicy = failurePolicyOf(spec);
  const result: ValidatingRunResult = {
    outcome: 'skip',
    decision: { allowed: true },
    warnings: [],
    auditAnnotations: {},
    validationFailures: [],
    errors: [],
    notes: requestNotes(input),
    policyName,
    failurePolicy,
    bindings: [],
    ignoredBindings: [],
    totalCost: 0,
    denials: [],
  };
  const { own: bindings, ignored } = policyBindings(policyName, input.bindings);
  result.ignoredBindings = ignored;

  interface Denied {
    message: string;
    binding?: string;
    index?: number;
    reason?: StatusReason;
  }
  const denied: Denied[] = [];
  const failures: ValidationFailure[] = [];

  const configError = (err: string, binding?: string) => {
    result.errors.push(err);
    if (failurePolicy === 'Ignore') return;
    if (failurePolicy === 'Fail') {
      denied.push({ message: binding === undefined ? `failed to configure policy: ${err}` : `failed to configure binding: ${err}`, binding });
    } else {
      denied.push({ message: `unrecognized failure policy: '${failurePolicy}'`, binding });
    }
  };

  const pm = matchPolicy(spec, input);
  result.policyMatch = pm.match;
  result.notes.push(...pm.notes);
  if (pm.configError) configError(pm.configError);
  if (pm.configError || pm.skipReason) {
    result.skipReason = pm.skipReason;
    return finish();
  }
  if (bindings.length === 0) result.skipReason = `no binding for policy '${policyName}'`;

  // auditAnnotationCollector: key → distinct values
  const collected = new Map<string, string[]>();
  const anyApplied = await dispatchBindings(bindings, spec, input, 'validate', {
    trace(name, bspec) {
      const bt: BindingTrace = {
        name,
        validationActions: list(bspec.validationActions).filter((a): a is string => typeof a === 'string'),
        applies: false,
        reason: '',
        evaluations: [],
      };
      result.bindings.push(bt);
      return bt;
    },
    configError,
    async invoke(bt, bspec, param) {
      const bName = bt.name;
      const actions = bt.validationActions;
      const ev = await evaluateValidations(cel, spec, failurePolicy, input, param, input.trace);
      bt.evaluations.push(ev);
      result.totalCost += (ev.matchConditions?.cost ?? 0) + ev.cost + ev.auditAnnotationsCost;
      if (ev.matchConditions?.error) result.errors.push(ev.matchConditions.error);
      for (const v of ev.validations) if (v.error) result.errors.push(v.error);
      for (const d of ev.decisions) {
        if (d.evaluation === 'error' && d.index < 0) result.errors.push(d.message);
        if (d.action !== 'deny') continue;
        for (const action of actions) {
          if (action === 'Deny') denied.push({ message: d.message, binding: bName, reason: d.reason, index: d.index });
          else if (action === 'Audit')
            failures.push({
              message: d.message,
              policy: str(bspec.policyName),
              binding: bName,
              expressionIndex: d.index < 0 ? 0 : d.index,
              validationActions: actions,
            });
          else if (action === 'Warn') result.warnings.push(validationWarning(policyName, bName, d.message));
        }
      }
      for (const a of ev.auditAnnotations) {
        if (a.action === 'publish' && a.value !== undefined) {
          const value = truncateBytes(a.value, MAX_AUDIT_VALUE);
          const vals = collected.get(a.key) ?? [];
          if (!vals.includes(value)) vals.push(value);
          collected.set(a.key, vals);
        } else if (a.action === 'error') {
          result.errors.push(a.error ?? '');
          denied.push({ message: a.error ?? '', binding: bName });
        }
      }
      return invocationApplied(ev.matchConditions, failurePolicy);
    },
  });
  for (const [key, vals] of collected) result.auditAnnotations[`${policyName}/${key}`] = vals.length === 1 ? vals[0]! : vals.join(', ');
  if (failures.length > 0) result.auditAnnotations[VALIDATION_FAILURE_KEY] = goJSON(failures);
  result.validationFailures = failures;
  if (anyApplied) result.skipReason = undefined;
  else if (!result.skipReason) result.skipReason = result.bindings.map((b) => `binding '${b.name}': ${b.reason}`).join('; ') || 'no binding applies';
  return finish(anyApplied);

  function finish(applied = false): ValidatingRunResult {
    result.errors = [...new Set(result.errors)];
    result.denials = denied.map((d, i) => ({ message: d.message, binding: d.binding, index: d.index ?? -1, reason: d.reason, reported: i === 0 }));
    if (denied.length > 0) {
      const d = denied[0]!;
      const message = policyDenialMessage(policyName, d.binding, d.message);
      const reason = d.reason ?? 'Invalid';
      result.decision = { allowed: false, message, reason, code: reasonToCode(reason) };
      result.outcome = 'deny';
      result.skipReason = undefined;
    } else if (result.warnings.length > 0) {
      result.outcome = 'warn';
    } else {
      result.outcome = applied ? 'admit' : 'skip';
    }
    return result;
  }
}
