/**
 * A ValidatingAdmissionPolicy test run with a step-by-step trace, after k8s.io/apiserver
 * policy/validating dispatcher.go Dispatch: the bindings that apply, their params and
 * validationActions, failurePolicy, the denial, warnings and audit annotations. Approximated:
 * matchPolicy Equivalent (matching.ts) and paramKind scope (params.ts). Each evaluation:
 * ./validate.ts; design: docs/architecture.md (Policy test runs).
 */
import { withDefaults } from '../k8s/defaults';
import { goJSON } from '../k8s/errors';
import { releaseOf, type KubernetesVersion } from '../base/releases';
import { list, nameOf, obj, str } from '../base/json';
import { dispatchBindings, invocationApplied, matchPolicy, policyBindings, requestNotes, type BindingTraceBase, type RunRequestInput } from './dispatch';
import { admittedInput } from '../request/admitted';
import type { PolicyCel } from './expressions';
import { failurePolicyOf } from './match-conditions';
import type { MatchResult } from './matching';
import { evaluateValidations, reasonToCode, type EvaluationTrace, type StatusReason } from './validate';

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

/** At most this many failures in the one annotation (validating/dispatcher.go maxValidationFailures). */
const MAX_VALIDATION_FAILURES = 50;

/**
 * The Audit-action failures of a request's policies as the release's dispatcher publishes them
 * (its row's `chain.auditValidationFailures`): 'first' — one annotation per failure, and the
 * request keeps the first value for the key (AddAnnotation refuses another); 'all' — one
 * annotation listing every failure of every policy, the first 50.
 */
export function validationFailuresValue(failures: readonly ValidationFailure[], release: KubernetesVersion | undefined): string {
  const all = releaseOf(release).chain.auditValidationFailures === 'all';
  return goJSON(all ? failures.slice(0, MAX_VALIDATION_FAILURES) : failures.slice(0, 1));
}

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

/** The message a policy's denial carries (dispatcher.go): by a binding, or by the policy (a configuration error). */
export const policyDenialMessage = (policyName: string, binding: string | undefined, message: string): string =>
  binding !== undefined
    ? `ValidatingAdmissionPolicy '${policyName}' with binding '${binding}' denied request: ${message}`
    : `ValidatingAdmissionPolicy '${policyName}' denied request: ${message}`;

/** The warning of a failed validation under the Warn action (dispatcher.go). */
export const validationWarning = (policyName: string, binding: string, message: string): string =>
  `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${binding}': ${message}`;

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
              expressionIndex: Math.max(d.index, 0),
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
