/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins, as k8s.io/apiserver
 * pkg/admission/plugin/webhook runs them, with each webhook's assumed answer and the apiserver's
 * messages. Which upstream code decides what: README.md ("Webhooks").
 */
import { deepEqual, list, obj, str, strList } from '../base/json';
import {
  applyJsonPatch,
  decideMatchConditions,
  failurePolicyOf,
  matchConditionExpressions,
  matchWebhook,
  runMatchConditions,
  type EquivalentResource,
  type PolicyExpressionOn,
} from '../policy';
import { celInputs } from '../request/cel-inputs';
import { goJSON } from '../k8s/errors';
import { excludedBy, forbiddenMessage, inputFor, matchInput, actorOf, noteConversion, reject, requireReinvoking, type SimContext } from './context';
import type { JsonPatchOp, SimDenial, SimOutcome, SimStep } from './types';
import type { WorkspaceWebhook } from './workspace';

/** ShouldCallHook's answer: call (with the equivalent matched), skip (outcome), or reject the request (error). */
interface Decision {
  call: boolean;
  outcome?: 'skipped' | 'error-ignored';
  error?: SimDenial;
  matched?: EquivalentResource;
  reason: string;
  path: string;
}

const MATCH_FIELD: Record<string, string> = {
  namespaceSelector: 'namespaceSelector',
  objectSelector: 'objectSelector',
  rules: 'rules',
};

async function shouldCallHook(ctx: SimContext, wh: WorkspaceWebhook): Promise<Decision> {
  const at = `webhooks[${wh.index}]`;
  const m = matchWebhook(wh.webhook, matchInput(ctx), { static: wh.static === true });
  if (m.error) {
    const notFound = m.errorReason === 'NotFound';
    return {
      call: false,
      reason: `${m.error}: the request is rejected before any webhook is called (whatever failurePolicy says)`,
      path: `${at}.${m.steps.find((s) => s.check === 'objectSelector' && !s.passed) ? 'objectSelector' : 'namespaceSelector'}`,
      error: {
        kind: wh.configKind,
        name: wh.configName,
        webhook: wh.name,
        message: m.error,
        reason: notFound ? 'NotFound' : 'InternalError',
        code: notFound ? 404 : 500,
      },
    };
  }
  if (!m.matches) {
    const failed = [...m.steps].reverse().find((s) => !s.passed);
    const field = failed ? MATCH_FIELD[failed.check] : undefined;
    return { call: false, outcome: 'skipped', reason: m.reason, path: field ? `${at}.${field}` : at };
  }
  const matched = m.matchedResource && m.matchedKind ? { resource: m.matchedResource, kind: m.matchedKind } : undefined;
  const rulePath = `${at}.rules[${m.matchedRule ?? 0}]`;
  const conditions = (wh.webhook.matchConditions as unknown[] | undefined) ?? [];
  if (conditions.length === 0) return { call: true, matched, reason: m.reason, path: rulePath };
  const mc = await runMatchConditions(
    ctx.cel,
    wh.webhook,
    'webhook-matchCondition',
    celInputs(inputFor(ctx, matched), null),
    ctx.options.trace ? { trace: true } : {},
  );
  // traced: the webhook's step shows its matchConditions with their values (SimStep.expressions)
  if (ctx.options.trace && mc) {
    const traced = mc.conditions.flatMap((c, k) =>
      c.trace ? [{ field: `${at}.matchConditions[${k}].expression`, expression: c.expression, trace: c.trace }] : [],
    );
    (ctx.webhookExpressions ??= new Map()).set(wh.uid, traced);
  }
  const d = decideMatchConditions(mc, failurePolicyOf(wh.webhook));
  if (d.action === 'match') return { call: true, matched, reason: `${m.reason}; every matchCondition is true`, path: rulePath };
  const path = `${at}.matchConditions[${Math.max(0, d.index ?? 0)}].expression`;
  if (d.cause === 'false') return { call: false, outcome: 'skipped', reason: `matchCondition '${mc?.failedCondition ?? ''}' is false`, path };
  if (d.action === 'skip') {
    return {
      call: false,
      outcome: 'error-ignored',
      reason: `matchConditions failed to evaluate (${mc?.error ?? ''}); failurePolicy Ignore: the webhook is not called`,
      path,
    };
  }
  return {
    call: false,
    reason: `matchConditions failed to evaluate; failurePolicy Fail rejects the request`,
    path,
    error: { kind: wh.configKind, name: wh.configName, webhook: wh.name, message: forbiddenMessage(ctx, mc?.error ?? ''), reason: 'Forbidden', code: 403 },
  };
}

/** The URL the apiserver posts to (for the "failed calling webhook" message). */
function webhookUrl(w: Record<string, unknown>): string {
  const cc = obj(w.clientConfig);
  const timeout = typeof w.timeoutSeconds === 'number' ? w.timeoutSeconds : 10;
  let base = str(cc.url);
  const svc = obj(cc.service);
  if (!base && str(svc.name)) base = `https://${str(svc.name)}.${str(svc.namespace)}.svc:${typeof svc.port === 'number' ? svc.port : 443}${str(svc.path)}`;
  return `${base || 'https://webhook'}?timeout=${timeout}s`;
}

interface CallResult {
  outcome: SimOutcome;
  reason: string;
  path: string;
  /** A call failure (ErrCallingWebhook): failurePolicy decides. */
  callError?: string;
  /** Rejects the request whatever failurePolicy says. */
  denial?: SimDenial;
  warnings?: string[];
  patch?: JsonPatchOp[];
  changed?: boolean;
  /** The object as the apiserver serializes it after the patch (when it changed): applied once, here. */
  object?: unknown;
}

/** callAttrMutatingHook / callHook with the assumed response. */
function callHook(ctx: SimContext, wh: WorkspaceWebhook, mutating: boolean): CallResult {
  const at = `webhooks[${wh.index}]`;
  const w = wh.webhook;
  const base = { kind: wh.configKind, name: wh.configName, webhook: wh.name };
  if (ctx.dryRun) {
    const sideEffects = w.sideEffects;
    if (typeof sideEffects !== 'string' || sideEffects === '') {
      return {
        outcome: 'error-rejected',
        reason: 'dry-run request and sideEffects is not set',
        path: `${at}.sideEffects`,
        callError: `failed calling webhook "${wh.name}": Webhook SideEffects is nil`,
      };
    }
    if (sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') {
      return {
        outcome: 'denied',
        reason: `dry-run request to a webhook with sideEffects ${sideEffects}: rejected (only None and NoneOnDryRun may receive dry-run requests)`,
        path: `${at}.sideEffects`,
        denial: { ...base, message: `admission webhook "${wh.name}" does not support dry run`, reason: 'BadRequest', code: 400 },
      };
    }
  }
  const response = ctx.options.webhooks?.[wh.name] ?? 'allow';
  if (response === 'unavailable') {
    return {
      outcome: 'error-rejected',
      reason: 'the webhook is unavailable',
      path: `${at}.failurePolicy`,
      callError: `failed calling webhook "${wh.name}": failed to call webhook: Post "${webhookUrl(w)}": dial tcp: connect: connection refused`,
    };
  }
  if (response === 'deny') {
    return {
      outcome: 'denied',
      reason: 'the webhook denies the request',
      path: at,
      denial: { ...base, message: `admission webhook "${wh.name}" denied the request without explanation`, code: 400 },
    };
  }
  if (response === 'allow') return { outcome: 'admitted', reason: 'the webhook allows the request', path: at };
  if ('warnings' in response) {
    const warnings = strList(response.warnings);
    return {
      outcome: warnings.length ? 'warned' : 'admitted',
      reason: `the webhook allows the request with ${warnings.length} warning(s)`,
      path: at,
      warnings,
    };
  }
  const ops = Array.isArray(response.patch) ? response.patch : [];
  if (!mutating) {
    if (ops.length === 0) return { outcome: 'admitted', reason: 'the webhook allows the request', path: at };
    return {
      outcome: 'error-rejected',
      reason: 'a validating webhook answered with a patch',
      path: `${at}.failurePolicy`,
      callError: `failed calling webhook "${wh.name}": received invalid webhook response: validating webhook may not return response.patch`,
    };
  }
  if (ops.length === 0) return { outcome: 'admitted', reason: 'the webhook allows the request with an empty patch', path: at };
  if (ctx.object === null || ctx.object === undefined) {
    const message = `Internal error occurred: admission webhook "${wh.name}" attempted to modify the object, which is not supported for this operation`;
    return {
      outcome: 'denied',
      reason: 'the webhook patched a request without an object',
      path: at,
      denial: { ...base, message, reason: 'InternalError', code: 500 },
    };
  }
  const before = ctx.admitted(ctx.object);
  const result = applyJsonPatch(before, ops, { json: true });
  // a failed test fails a webhook's patch (dispatcher.go: any Apply error), where a policy's applies nothing
  const applied =
    result.ok && result.testFailed
      ? { ok: false as const, index: result.testFailed.index, error: `testing value ${result.testFailed.path} failed: test failed` }
      : result;
  if (!applied.ok) {
    const message = `Internal error occurred: ${applied.error}`;
    return {
      outcome: 'denied',
      reason: `the webhook's patch does not apply to the object as the apiserver serializes it (operation ${applied.index}: ${applied.error}); a patch error rejects the request whatever failurePolicy says`,
      path: at,
      denial: { ...base, message, reason: 'InternalError', code: 500 },
      patch: ops,
    };
  }
  const { object: after, problems: decoding } = ctx.decoded(applied.value, before);
  const problems = ctx.typed ? decoding : [];
  if (problems.length) {
    // dispatcher.go decodes the patched JSON into the Go type: its failure is an internal error, whatever failurePolicy says
    const message = `Internal error occurred: ${problems[0]}`;
    return {
      outcome: 'denied',
      reason: `the patched object does not decode into its Go type (${problems.join('; ')}): the apiserver answers 500 whatever failurePolicy says (its words are Go's JSON decoder's)`,
      path: at,
      denial: { ...base, message, reason: 'InternalError', code: 500 },
      patch: ops,
    };
  }
  const changed = !deepEqual(before, after);
  return {
    outcome: changed ? 'patched' : 'admitted',
    reason: changed ? 'the webhook patched the object' : "the webhook's patch changes nothing",
    path: at,
    patch: ops,
    changed,
    ...(changed ? { object: after } : {}),
  };
}

const called = (d: Decision, r: CallResult): string => `${d.reason}: called; ${r.reason}`;

/**
 * Whether a webhook step is a call the apiserver attempted (answered, or failed: unavailable, an
 * invalid response). Not a call: a webhook skipped, one whose matchConditions or selectors failed to
 * evaluate (the request is rejected, or the webhook passed over, before any call), nor a dry run
 * refused for its sideEffects before the call.
 */
export function webhookCalled(s: Pick<SimStep, 'webhook' | 'reason' | 'message'>): boolean {
  if (!s.webhook) return false;
  const failedCall = (s.message ?? '').includes('failed calling webhook') && !(s.message ?? '').includes('SideEffects is nil');
  return (s.reason.includes(': called; ') || failedCall) && !/dry-run request/.test(s.reason);
}
/** A call that went through is decided by the rule that matched; a failure by the field that handles it. */
const calledPath = (d: Decision, r: CallResult): string => (r.outcome === 'admitted' || r.outcome === 'patched' || r.outcome === 'warned' ? d.path : r.path);

function step(ctx: SimContext, wh: WorkspaceWebhook, phase: SimStep['phase'], outcome: SimOutcome, reason: string, path: string): SimStep {
  const w = wh.webhook;
  const s: SimStep = {
    phase,
    kind: wh.configKind,
    name: wh.configName,
    webhook: wh.name,
    outcome,
    reason,
    document: wh.document,
    path,
    round: ctx.round,
    ...(ctx.webhookExpressions?.has(wh.uid) ? { expressions: ctx.webhookExpressions.get(wh.uid) } : {}),
    failurePolicy: failurePolicyOf(w),
  };
  if (wh.static) s.static = true;
  if (typeof w.timeoutSeconds === 'number') s.timeoutSeconds = w.timeoutSeconds;
  if (typeof w.sideEffects === 'string') s.sideEffects = w.sideEffects;
  ctx.steps.push(s);
  return s;
}

/** Handles a call's failure as the dispatchers do; true when the request is rejected. */
function settle(ctx: SimContext, wh: WorkspaceWebhook, s: SimStep, r: CallResult, failedOpenKey: string): SimDenial | undefined {
  if (r.warnings?.length) {
    s.warnings = r.warnings;
    ctx.warnings.push(...r.warnings);
  }
  if (r.denial) {
    s.message = r.denial.message;
    return r.denial;
  }
  if (r.callError) {
    if (s.failurePolicy === 'Ignore') {
      s.outcome = 'error-ignored';
      s.reason = `${r.reason}; failurePolicy Ignore: the request goes on (failing open)`;
      s.message = r.callError;
      ctx.auditAnnotations[failedOpenKey] = wh.name;
      return undefined;
    }
    s.outcome = 'error-rejected';
    s.reason = `${r.reason}; failurePolicy Fail rejects the request`;
    const denial = callFailure(wh, r.callError);
    s.message = denial.message;
    return denial;
  }
  return undefined;
}

/** The audit annotation of a mutating webhook called (its value says whether it changed the object). */
export const webhookMutationKey = (round: number, index: number): string => `mutation.webhook.admission.k8s.io/round_${round}_index_${index}`;

/** The audit annotation of a mutating webhook failing open. */
export const mutatingFailedOpenKey = (round: number, index: number): string => `failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`;

/** The audit annotation of a validating webhook failing open: its position among the webhooks called. */
export const validatingFailedOpenKey = (called: number): string => `failed-open.validating.webhook.admission.k8s.io/round_0_index_${called}`;

/** A call failure under failurePolicy Fail: the request is rejected with an internal error. */
const callFailure = (wh: WorkspaceWebhook, callError: string): SimDenial => ({
  kind: wh.configKind,
  name: wh.configName,
  webhook: wh.name,
  message: `Internal error occurred: ${callError}`,
  reason: 'InternalError',
  code: 500,
});

/**
 * A validating webhook's call as the dispatcher settles it, without a step (the impact replay's
 * lean verdicts, lean-webhooks.ts): its warnings, its denial (an answer that denies, or a call
 * failure under failurePolicy Fail) or its failing open (a call failure under Ignore: the
 * `failed-open` audit annotation); `refused`: a dry run its sideEffects refuse before any call
 * (not a call: webhookCalled), a denial, or a call failure where they are not set.
 */
export function validatingCall(ctx: SimContext, wh: WorkspaceWebhook): { warnings: string[]; denial?: SimDenial; failedOpen?: true; refused?: true } {
  return settled(ctx, wh, callHook(ctx, wh, false));
}

/**
 * A mutating webhook's call as the dispatcher settles it, without a step (the lean path's
 * patches, lean-patch.ts): as validatingCall, and, when its assumed patch changes the object, the
 * object as the apiserver decodes it after the patch (callHook's own).
 */
export function mutatingCall(
  ctx: SimContext,
  wh: WorkspaceWebhook,
): { warnings: string[]; object?: unknown; denial?: SimDenial; failedOpen?: true; refused?: true } {
  const r = callHook(ctx, wh, true);
  return { ...settled(ctx, wh, r), ...(r.changed ? { object: r.object } : {}) };
}

/** A call's result as settle() settles it, for the lean path: see validatingCall. */
function settled(ctx: SimContext, wh: WorkspaceWebhook, r: CallResult): { warnings: string[]; denial?: SimDenial; failedOpen?: true; refused?: true } {
  const w = wh.webhook;
  const refused = ctx.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun' ? { refused: true as const } : {};
  const warnings = r.warnings ?? [];
  if (r.denial) return { warnings, denial: r.denial, ...refused };
  if (r.callError)
    return { warnings, ...(failurePolicyOf(w) === 'Ignore' ? { failedOpen: true as const } : { denial: callFailure(wh, r.callError) }), ...refused };
  return { warnings, ...refused };
}

/** The webhook plugin returns before any webhook for a resource its release excludes: one skipped step per webhook, saying so. */
function excludedSteps(ctx: SimContext, phase: SimStep['phase'], hooks: readonly WorkspaceWebhook[]): boolean {
  const why = excludedBy(ctx, 'webhooks');
  if (!why) return false;
  if (ctx.round === 0) for (const wh of hooks) step(ctx, wh, phase, 'skipped', why, `webhooks[${wh.index}].rules`);
  return true;
}

export async function runMutatingWebhooks(ctx: SimContext): Promise<void> {
  if (excludedSteps(ctx, 'mutating', ctx.ws.webhooks.mutating)) return;
  const st = ctx.reinvoke.webhooks;
  if (ctx.round === 1 && !(st.lastOutput && deepEqual(st.lastOutput.object, ctx.object))) requireReinvoking(st);
  try {
    const hooks = ctx.ws.webhooks.mutating;
    for (let i = 0; i < hooks.length; i++) {
      const wh = hooks[i]!;
      const d = await shouldCallHook(ctx, wh);
      if (d.error) {
        step(ctx, wh, 'mutating', 'error-rejected', d.reason, d.path).message = d.error.message;
        if (reject(ctx, d.error)) return;
        continue;
      }
      if (!d.call) {
        if (ctx.round === 0) step(ctx, wh, 'mutating', d.outcome ?? 'skipped', d.reason, d.path);
        continue;
      }
      if (ctx.round === 1 && !st.reinvoke.has(wh.uid)) continue;
      const r = callHook(ctx, wh, true);
      const reinvoked = ctx.round === 1;
      const s = step(ctx, wh, 'mutating', r.outcome, called(d, r), calledPath(d, r));
      if (reinvoked) {
        s.reason = `reinvoked (reinvocationPolicy IfNeeded: the object changed after its first call); ${s.reason}`;
        if (s.outcome === 'admitted' || s.outcome === 'patched' || s.outcome === 'warned') {
          s.outcome = 'reinvoked';
          if (!r.changed) s.path = `webhooks[${wh.index}].reinvocationPolicy`;
        }
      }
      noteConversion(ctx, s, d.matched);
      ctx.auditAnnotations[webhookMutationKey(ctx.round, i)] = goJSON({
        configuration: wh.configName,
        webhook: wh.name,
        mutated: !!r.changed,
      });
      if (r.patch) s.patch = r.patch;
      if (r.changed && r.patch) {
        // callHook applied it to this very object: its result, not a second decode and patch
        ctx.object = r.object;
        ctx.patches.push({ by: wh.name, ops: r.patch, mutator: actorOf(wh.configKind, wh.configName, wh.name) });
        requireReinvoking(st);
        ctx.shouldReinvoke = true;
      }
      if (wh.webhook.reinvocationPolicy === 'IfNeeded') st.previouslyInvoked.add(wh.uid);
      const denial = settle(ctx, wh, s, r, mutatingFailedOpenKey(ctx.round, i));
      if (denial && reject(ctx, denial)) return;
    }
  } finally {
    st.lastOutput = { object: ctx.object };
  }
}

/** Collect: the matchConditions of the validating webhooks whose rules and selectors match, on the inputs shouldCallHook builds. */
export function validatingWebhookExpressions(ctx: SimContext): PolicyExpressionOn[] {
  if (excludedBy(ctx, 'webhooks')) return [];
  const out: PolicyExpressionOn[] = [];
  for (const wh of ctx.ws.webhooks.validating) {
    if (!list(wh.webhook.matchConditions).length) continue;
    const m = matchWebhook(wh.webhook, matchInput(ctx), { static: wh.static === true });
    if (m.error || !m.matches) continue;
    const matched = m.matchedResource && m.matchedKind ? { resource: m.matchedResource, kind: m.matchedKind } : undefined;
    const inputs = celInputs(inputFor(ctx, matched), null);
    for (const e of matchConditionExpressions(wh.webhook, 'webhook-matchCondition', {})) out.push({ ...e, inputs });
  }
  return out;
}

export async function runValidatingWebhooks(ctx: SimContext): Promise<void> {
  if (excludedSteps(ctx, 'validating', ctx.ws.webhooks.validating)) return;
  const relevant: { wh: WorkspaceWebhook; d: Decision }[] = [];
  // ShouldCallHook has no side effects: evaluate every webhook's match at once, read in order
  const decisions = ctx.ws.webhooks.validating.map((wh) => shouldCallHook(ctx, wh));
  for (const d of decisions) d.catch(() => undefined); // surfaces where awaited
  for (const [i, wh] of ctx.ws.webhooks.validating.entries()) {
    const d = await decisions[i]!;
    if (d.error) {
      step(ctx, wh, 'validating', 'error-rejected', d.reason, d.path).message = d.error.message;
      if (reject(ctx, d.error)) return;
      continue;
    }
    if (!d.call) step(ctx, wh, 'validating', d.outcome ?? 'skipped', d.reason, d.path);
    else relevant.push({ wh, d });
  }
  let first: SimDenial | undefined;
  relevant.forEach(({ wh, d }, idx) => {
    const r = callHook(ctx, wh, false);
    const s = step(ctx, wh, 'validating', r.outcome, called(d, r), calledPath(d, r));
    noteConversion(ctx, s, d.matched);
    const denial = settle(ctx, wh, s, r, validatingFailedOpenKey(idx));
    if (denial && !first) first = denial;
    else if (denial) s.reason += " (not the error the client sees: an earlier webhook's error is reported)";
  });
  if (first) reject(ctx, first);
}
