/**
 * The AuthorizationConditionsEnforcer admission plugin (Kubernetes 1.38, KEP-5681): between
 * ValidatingAdmissionPolicy and ValidatingAdmissionWebhook, inert unless the alpha
 * ConditionalAuthorization gate is on. An authorizer may answer a request "allowed if these
 * conditions hold on the object"; the authorization filter lets it through (audit annotation
 * `authorization.k8s.io/is-conditional-decision: "true"`) and this plugin evaluates the conditions
 * on the admitted object by calling the authorizer back. The Workbench has no authorizer: the
 * answer is assumed (SimOptions.conditionalAuthorization), and the plugin's handling of it is
 * k8s.io/apiserver v0.38 pkg/admission/plugin/authorizer/conditionsenforcer/conditionsenforcer.go
 * and pkg/endpoints/filters/authorization.go (annotation keys and values, the 403 message:
 * endpoints/handlers/responsewriters/errors.go ForbiddenStatusError). Checked against a real 1.38
 * apiserver with a conditional webhook authorizer: tools/admission-oracle/conditional.test.ts.
 */
import { obj, str } from '../base/json';
import { gateEnabled } from '../base/releases';
import type { SimContext } from './context';
import type { ConditionalAuthorization, SimOptions } from './types';

export const CONDITIONS_ENFORCER = 'AuthorizationConditionsEnforcer' as const;
export const CONDITIONAL_GATE = 'ConditionalAuthorization' as const;

/** filters/authorization.go */
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';
export const CONDITIONAL_ANNOTATION = 'authorization.k8s.io/is-conditional-decision';
const REASON_ERROR = 'internal error';

/** Whether the plugin acts in this run: the release has the gate and the workspace turned it on. */
export const enforcerOn = (options: Pick<SimOptions, 'kubernetesVersion' | 'featureGates'>): boolean =>
  gateEnabled(CONDITIONAL_GATE, options.kubernetesVersion, options.featureGates);

/**
 * The verb the authorizer saw: the operation's, except that a PATCH (admission options PatchOptions,
 * whether it updates or creates) was authorized as `patch`, and a CONNECT as the POST kubectl exec
 * sends, `create` (a CONNECT by GET is never conditional: the classifier leaves `get` out). The
 * admission oracle's TestConditionalAuthorization saw `patch` and `create` in the real 403s.
 */
const VERBS: Record<string, string> = { CREATE: 'create', UPDATE: 'update', DELETE: 'delete', CONNECT: 'create' };
function authorizedVerb(r: SimContext['request']): string {
  if (str(obj(r.options).kind) === 'PatchOptions') return 'patch';
  return VERBS[str(r.operation)] ?? str(r.operation).toLowerCase();
}

/** responsewriters.ForbiddenStatusError wrapped by apierrors.NewForbidden, for a resource request. */
function forbiddenMessage(ctx: SimContext, reason: string): string {
  const r = ctx.request;
  const group = str(r.resource?.group);
  const resource = str(r.resource?.resource);
  const full = r.subResource ? `${resource}/${r.subResource}` : resource;
  const user = str(r.userInfo?.username);
  const verb = authorizedVerb(r);
  const where = r.namespace ? `in the namespace "${r.namespace}"` : 'at the cluster scope';
  const msg = `User "${user}" cannot ${verb} resource "${full}" in API group "${group}" ${where}`;
  const qualified = group ? `${resource}.${group}` : resource;
  // a create's authorizer attributes carry no name (it is not in the URL; a patch's URL has it, also when it creates)
  const name = r.operation === 'CREATE' && verb !== 'patch' ? '' : str(r.name);
  return `${qualified}${name ? ` "${name}"` : ''} is forbidden: ${reason ? `${msg}: ${reason}` : msg}`;
}

/**
 * Before admission: the authorization filter marks a conditional decision in the audit annotations
 * (filters.WithConditionsAwareAuthorization), so the mark is there also when a plugin before the
 * enforcer rejects the request (the admission oracle's TestConditionalAuthorization saw it).
 */
export function markConditional(ctx: SimContext): void {
  if (enforcerOn(ctx.options) && (ctx.options.conditionalAuthorization?.decision ?? 'none') !== 'none') ctx.auditAnnotations[CONDITIONAL_ANNOTATION] = 'true';
}

/** The enforcer's step (and, for a deny or an error, the request's rejection); nothing while the gate is off. */
export function runConditionsEnforcer(ctx: SimContext): void {
  if (!enforcerOn(ctx.options)) return;
  const answer: ConditionalAuthorization = ctx.options.conditionalAuthorization ?? { decision: 'none' };
  const step = {
    phase: 'validating' as const,
    kind: CONDITIONS_ENFORCER,
    name: CONDITIONS_ENFORCER,
    document: { kind: CONDITIONS_ENFORCER, name: CONDITIONS_ENFORCER, index: -1 },
    path: '',
    round: 0 as const,
    notes: ['the authorizer is not simulated: its conditional decision is the assumed one'],
  };
  if (answer.decision === 'none') {
    ctx.steps.push({
      ...step,
      outcome: 'skipped',
      reason: 'the authorizer allowed the request unconditionally: nothing to enforce (its allow was recorded at authorization)',
    });
    return;
  }
  const reason = answer.reason ?? '';
  if (answer.decision === 'allow') {
    ctx.auditAnnotations[DECISION_ANNOTATION] = 'allow';
    ctx.auditAnnotations[REASON_ANNOTATION] = reason;
    ctx.steps.push({
      ...step,
      outcome: 'admitted',
      reason: 'the conditions of the authorizer’s conditional allow hold on the object',
      auditAnnotations: { [DECISION_ANNOTATION]: 'allow', [REASON_ANNOTATION]: reason },
    });
    return;
  }
  if (answer.decision === 'error') {
    ctx.auditAnnotations[REASON_ANNOTATION] = REASON_ERROR;
    const message = `Internal error occurred: ${reason || 'the authorizer could not evaluate the conditions'}`;
    ctx.steps.push({
      ...step,
      outcome: 'error-rejected',
      reason: 'the authorizer failed to evaluate its conditions (and did not allow): 500',
      message,
      auditAnnotations: { [REASON_ANNOTATION]: REASON_ERROR },
    });
    ctx.denied = { kind: CONDITIONS_ENFORCER, name: CONDITIONS_ENFORCER, message, reason: 'InternalError', code: 500 };
    return;
  }
  ctx.auditAnnotations[DECISION_ANNOTATION] = 'forbid';
  ctx.auditAnnotations[REASON_ANNOTATION] = reason;
  const message = forbiddenMessage(ctx, reason);
  ctx.steps.push({
    ...step,
    outcome: 'denied',
    reason: 'the conditions of the authorizer’s conditional decision deny the request: 403',
    message,
    auditAnnotations: { [DECISION_ANNOTATION]: 'forbid', [REASON_ANNOTATION]: reason },
  });
  ctx.denied = { kind: CONDITIONS_ENFORCER, name: CONDITIONS_ENFORCER, message, reason: 'Forbidden', code: 403 };
}
