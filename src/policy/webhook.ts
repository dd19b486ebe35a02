/**
 * Would a webhook of a Validating/MutatingWebhookConfiguration be called for a request?
 * generic/webhook.go ShouldCallHook: exemption of admission configuration kinds,
 * namespaceSelector, objectSelector, rules (matching.ts), then the webhook's
 * matchConditions (matchconditions/matcher.go: any false → not called; errors and no
 * false → failurePolicy: Fail rejects the request, Ignore skips the webhook).
 *
 * Pass a webhook as it is in the configuration; it is defaulted here (failurePolicy Fail,
 * matchPolicy Equivalent, selectors `{}`, rule scope `*`). The apiserver wraps a
 * matchConditions error further when it rejects the request (the webhook's name and an
 * internal-error status); `error` here is the matcher's error.
 */
import { withDefaults } from '../k8s/defaults';
import type { CelInputs } from '../cel/types';
import { matchWebhook, type MatchResult } from './matching';
import type { RunRequestInput } from './dispatch';
import type { PolicyCel } from './expressions';
import { runMatchConditions, type MatchConditionsTrace } from './match-conditions';
import { list, obj, str } from '../k8s/json';

export interface WebhookCallResult {
  /** called: the request is sent; not-called: rules/selectors/matchConditions exclude it; rejected: a matchConditions error with failurePolicy Fail; ignored: the same with Ignore (not called). */
  outcome: 'called' | 'not-called' | 'rejected' | 'ignored';
  name: string;
  failurePolicy: string;
  match: MatchResult;
  matchConditions?: MatchConditionsTrace;
  error?: string;
  reason: string;
}

/**
 * `webhook`: one entry of `webhooks`; `configurationKind`: ValidatingWebhookConfiguration
 * or MutatingWebhookConfiguration (for defaulting; v1).
 */
export async function webhookWouldBeCalled(
  webhook: unknown,
  configurationKind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration',
  input: RunRequestInput,
  cel: PolicyCel,
): Promise<WebhookCallResult> {
  const defaulted = withDefaults({ apiVersion: 'admissionregistration.k8s.io/v1', kind: configurationKind, webhooks: [webhook] });
  const w = obj(list(obj(defaulted).webhooks)[0]);
  const name = str(w.name);
  const failurePolicy = str(w.failurePolicy) || 'Fail';
  const match = matchWebhook(w, input);
  const base = { name, failurePolicy, match };
  if (match.error) {
    // selector errors are returned as errors by ShouldCallHook, then handled by failurePolicy
    return { ...base, outcome: failurePolicy === 'Ignore' ? 'ignored' : 'rejected', error: match.error, reason: match.error };
  }
  if (!match.matches) return { ...base, outcome: 'not-called', reason: match.reason };
  const inputs: CelInputs = {
    object: input.object ?? null,
    oldObject: input.oldObject ?? null,
    request: input.request,
    authorizer: input.authorizer ?? { rules: [] },
  };
  const mc = await runMatchConditions(cel, w, 'webhook-matchCondition', inputs, {});
  if (!mc || mc.outcome === 'match') return { ...base, matchConditions: mc, outcome: 'called', reason: match.reason };
  if (mc.outcome === 'skip') return { ...base, matchConditions: mc, outcome: 'not-called', reason: `matchCondition '${mc.failedCondition}' is false` };
  return {
    ...base,
    matchConditions: mc,
    outcome: failurePolicy === 'Ignore' ? 'ignored' : 'rejected',
    error: mc.error,
    reason: `matchConditions failed to evaluate: ${mc.error ?? ''}`,
  };
}
