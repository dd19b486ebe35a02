/**
 * The validating webhook plugin on the lean path (./lean-verdict.ts): each webhook's
 * matchConditions decided from the batch's answers as the plugin's matcher decides them (their
 * error under failurePolicy Fail rejects the request before any call), and each call settled as
 * the plugin settles it. Design: ./README.md (Lean verdicts).
 */
import { list, obj, str } from '../base/json';
import { decideMatchConditions, expressionTrace, failurePolicyOf, matchConditionsTrace } from '../policy';
import { forbiddenMessage, type SimContext } from './context';
import type { LeanHook } from './lean-chain';
import type { CelEvalResult } from '../cel/types';
import { validatingCall } from './webhooks';

/** A validating webhook called (or refusing a dry run), its call settled (webhooks.ts validatingCall). */
export interface SettledCall {
  hook: LeanHook;
  call: ReturnType<typeof validatingCall>;
}

/** A webhook's rejection before any call (a LeanDenial: lean-verdict.ts, which imports this module). */
export interface WebhookRejection {
  kind: string;
  name: string;
  webhook: string;
  message: string;
}

/**
 * What the plugin does with the matching webhooks (`hooks`, the plan's, with their matchConditions' slots in `rs`): the webhooks whose
 * matchConditions err under failurePolicy Fail (`rejects`, in order: the first is the client's
 * denial, and no webhook is then called; the probe goes on past each) and the webhooks called
 * (matchConditions true; under Ignore an error passes the webhook over), each settled. Undefined
 * where a condition's answer is the batch's shared budget running out: the plugin gives each
 * webhook's conditions a budget of their own, so the full run decides.
 */
export function validatingWebhooks(
  hooks: readonly { hook: LeanHook; conditions: readonly number[] }[],
  ctx: SimContext,
  rs: readonly CelEvalResult[],
): { rejects: WebhookRejection[]; called: SettledCall[] } | undefined {
  const rejects: WebhookRejection[] = [];
  const called: SettledCall[] = [];
  for (const { hook, conditions } of hooks) {
    const d = webhookConditions(hook, ctx, rs, conditions);
    if (d === undefined) return undefined;
    if (typeof d === 'object') rejects.push(d);
    if (d === 'match') called.push({ hook, call: validatingCall(ctx, hook.wh) });
  }
  return { rejects, called };
}

/**
 * A webhook's matchConditions (their answers at `conditions` in `rs`) as the plugin's matcher
 * decides them (shouldCallHook): 'match', 'skip' (a false, or an error under failurePolicy
 * Ignore), the request's rejection (an error under Fail), or undefined where an answer is the
 * batch's shared budget running out (the plugin gives each webhook's conditions their own).
 */
export function webhookConditions(
  hook: LeanHook,
  ctx: SimContext,
  rs: readonly CelEvalResult[],
  conditions: readonly number[],
): 'match' | 'skip' | WebhookRejection | undefined {
  const w = hook.wh.webhook;
  const d = matcherOn(list(w.matchConditions), failurePolicyOf(w), rs, conditions);
  if (d?.action !== 'reject') return d?.action;
  return { kind: hook.wh.configKind, name: hook.wh.configName, webhook: hook.wh.name, message: forbiddenMessage(ctx, d.error) };
}

/**
 * matchConditions (`specs`, their answers at `conditions` in `rs`) as the apiserver's matcher
 * decides them under `failurePolicy` (decideMatchConditions on the trace runMatchConditions
 * would give), with the matcher's error; undefined where an answer is the batch's shared budget
 * running out (the plugins give each webhook's or policy's conditions a budget of their own).
 */
export function matcherOn(
  specs: readonly unknown[],
  failurePolicy: string,
  rs: readonly CelEvalResult[],
  conditions: readonly number[],
): { action: 'match' | 'skip' | 'reject'; error: string } | undefined {
  if (conditions.some((at) => pastSharedBudget(rs[at]!))) return undefined;
  // the matcher's trace from the batch's answers: the same results runMatchConditions gets one by one
  const trace = conditions.length
    ? matchConditionsTrace(conditions.map((at, i) => ({ ...expressionTrace(str(obj(specs[i]).expression), rs[at]!), name: str(obj(specs[i]).name) })))
    : undefined;
  return { action: decideMatchConditions(trace, failurePolicy).action, error: trace?.error ?? '' };
}

const pastSharedBudget = (r: CelEvalResult): boolean => !r.ok && r.kind === 'cost-exceeded' && r.limit === 'budget';
