/**
 * One evaluation of a ValidatingAdmissionPolicy for one binding and param, after k8s.io/apiserver
 * policy/validating validator.go Validate: matchConditions, validations and their messages,
 * audit annotations, each phase on its budget, every expression by the real CEL engine.
 * Approximated: cost (the engine computes a variable inside each expression that uses it, where
 * the apiserver caches it for the phase, so our sums can be higher; the budget is checked on
 * them after each expression, as the apiserver does), and the trace shows every variable's value,
 * `used` saying whether Kubernetes would evaluate it. The dispatch: ./run.ts; design:
 * docs/architecture.md (Policy test runs).
 */
import { CEL_LIMITS, type CelTraceNode } from '../cel/types';
import { byteLength, isObject, list, nameOf, obj, str, trimSpace, type Obj } from '../base/json';
import type { RunRequestInput } from './dispatch';
import { celInputs } from '../request/cel-inputs';
import {
  evalExpr,
  OUT_OF_BUDGET,
  policyOptions,
  traceVariables,
  usedVariables,
  type ExpressionTrace,
  type PolicyCel,
  type PolicyExpression,
  type VariableTrace,
} from './expressions';
import { matchConditionExpressions, runMatchConditions, type MatchConditionsTrace } from './match-conditions';

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
  if (m?.ok) {
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

/**
 * Collect: every expression one evaluation of the (defaulted) policy `spec` may ask the engine
 * for, with the options it asks with — variables (each on its own, as traceVariables does),
 * matchConditions, validations, messageExpressions, audit annotations. The run decides with
 * the answers, in its order, short-circuits and budgets (evaluateValidations); the ones it
 * never reads change nothing.
 */
export function validatingExpressions(spec: Obj, traced = false): PolicyExpression[] {
  const { variables, variable, options, traced: tracedOptions } = policyOptions(spec);
  const validationOptions = traced ? tracedOptions : options;
  const out: PolicyExpression[] = variables.map((v) => ({ expression: v.expression, context: 'vap-variable', options: variable.get(v.name)![0] }));
  out.push(...matchConditionExpressions(spec, 'vap-matchCondition', options));
  for (const v of list(spec.validations).map(obj)) {
    out.push({ expression: str(v.expression), context: 'vap-validation', options: validationOptions });
    if (str(v.messageExpression)) out.push({ expression: str(v.messageExpression), context: 'vap-messageExpression', options });
  }
  for (const a of list(spec.auditAnnotations).map(obj)) out.push({ expression: str(a.valueExpression), context: 'vap-auditAnnotation', options });
  return out;
}

export async function evaluateValidations(
  cel: PolicyCel,
  spec: Obj,
  failurePolicy: string,
  input: RunRequestInput,
  param: unknown,
  traced = false,
): Promise<EvaluationTrace> {
  const compiled = policyOptions(spec);
  const validationOptions = traced ? compiled.traced : compiled.options;
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
    variables: await traceVariables(cel, compiled, usedVariables(compiled.variables, allExpressions), inputs, traced),
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
