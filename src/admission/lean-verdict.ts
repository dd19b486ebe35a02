/**
 * One chain's lean verdict on one request (./lean.ts): its plan (the webhooks, policies and
 * bindings that match, with their items' slots in the request's batch), then the verdict from
 * the engine's answers, worded by the policy run's own functions; undefined where the full
 * simulation must decide. Design: ./README.md (Lean verdicts).
 */
import { list, str, strList, trimSpace } from '../base/json';
import { CEL_LIMITS, isEngineFailure, type CelBatchItem, type CelEvalResult } from '../cel/types';
import {
  expressionTrace,
  failedValidationMessage,
  failurePolicyOf,
  matchPolicy,
  matchResources,
  matchWebhook,
  policyDenialMessage,
  resolveParams,
  validationWarning,
  VALIDATION_FAILURE_KEY,
  type MatchInput,
} from '../policy';
import { actorOf, excludedBy, forbiddenMessage, inputFor, matchInput, type SimContext } from './context';
import type { LeanChain, LeanHook, LeanMutatingPolicy, LeanPolicy } from './lean-chain';
import { matcherOn, validatingWebhooks, type SettledCall } from './lean-webhooks';
import { validatingFailedOpenKey, webhookMutationKey } from './webhooks';

/** A ValidatingAdmissionPolicy binding that denies, worded as the full run words it. */
export interface LeanDenial {
  kind: string;
  name: string;
  binding?: string;
  webhook?: string;
  message: string;
}

/** A chain's verdict on a request it allows, or denies by ValidatingAdmissionPolicies' false validations. */
export interface LeanVerdict {
  allowed: boolean;
  /** The denial the client sees (when not allowed): simulatePrepared's `deniedBy`. */
  deniedBy?: LeanDenial;
  /** Every binding that denies, when more than one does: the probe run's denied steps. */
  denials?: LeanDenial[];
  warnings: string[];
  /** Who warned (context.ts actorOf), in the order they did. */
  warnedBy: string[];
  /** Keys of the audit annotations, in the order the chain adds them. */
  audited: string[];
  /** Webhooks called, each once, in order. */
  calls: string[];
  /** A mutating plugin changed the object (the full run's patches): mutatedBy is not empty. */
  mutated: boolean;
  /** Who changed it (context.ts actorOf), in the order applied. */
  mutatedBy: string[];
}

/**
 * Why the lean path left a chain's verdict to the full simulation, counted per reason since the
 * thread started (profiling and the agreement test: which cases still fall off the lean path).
 */
const fallbackCounts = new Map<string, number>();
export const leanFallbacks = (): ReadonlyMap<string, number> => fallbackCounts;
/** Counts `reason` and answers undefined (the full simulation decides). */
export function fallback(reason: string): undefined {
  count(reason);
  return undefined;
}
const count = (key: string): void => void fallbackCounts.set(key, (fallbackCounts.get(key) ?? 0) + 1);
/** Why a plugin of the chain ran as in the full simulation, the rest of the verdict lean (`partly: <reason>` in the same counts). */
export const countPartly = (reason: string): void => count(`partly: ${reason}`);
/** What the lean path decided that it once left to a plugin's full run (`lean: <what>` in the same counts: not a fallback). */
export const countLean = (what: string): void => count(`lean: ${what}`);
/** Why the last planOf answered undefined (plans are kept per match key: lean.ts counts the reason per request). */
export let noPlanReason = '';
const noPlan = (reason: string): undefined => {
  noPlanReason = reason;
  return undefined;
};

/**
 * One request's items across chains: each distinct item once per param it is evaluated on
 * (`params`, per slot: the param object of a policy with paramKind, null for every other item).
 */
export interface Batch {
  items: CelBatchItem[];
  params: unknown[];
  at: Map<unknown, Map<CelBatchItem, number>>;
}

const slot = (b: Batch, it: CelBatchItem, param: unknown = null): number => {
  let on = b.at.get(param);
  if (!on) b.at.set(param, (on = new Map()));
  let i = on.get(it);
  if (i === undefined) {
    i = b.items.length;
    b.items.push(it);
    b.params.push(param);
    on.set(it, i);
  }
  return i;
};
const slots = (b: Batch, its: readonly CelBatchItem[], param: unknown = null): number[] => its.map((it) => slot(b, it, param));

/** What a chain asks of the engine for one request, by slot, and what it decides with the answers. */
export interface Plan {
  /** The MutatingAdmissionPolicy bindings that match, in the plugin's order: their matchConditions' slots (undefined: a match means the mutating plugins run in full). */
  mutatingPolicies: { mp: LeanMutatingPolicy; bd: LeanMutatingPolicy['bindings'][number]; conditions?: number[]; equivalent?: true }[];
  mutating: { hook: LeanHook; conditions: number[] }[];
  policies: {
    lp: LeanPolicy;
    /** The bindings that apply, in order. */
    bindings: LeanPolicy['bindings'];
    conditions: number[];
    validations: number[];
    /** Per validation, its messageExpression's slot. */
    messages: (number | undefined)[];
    audits: { key: string; at: number }[];
    /** The binding's params do not resolve under failurePolicy Fail: it denies with this error (no slots). */
    configError?: string;
  }[];
  validating: { hook: LeanHook; conditions: number[] }[];
  /** A policy of the plugin is not decided here (a param error): the policy plugin runs in full, then the validating webhooks here. */
  policiesInFull?: true;
}

/** Webhooks whose rules and selectors match, with their matchConditions' slots; undefined: not decidable here. */
function hookPlan(match: MatchInput, hooks: readonly LeanHook[], b: Batch): Plan['mutating'] | undefined {
  const out: Plan['mutating'] = [];
  for (const hook of hooks) {
    const m = matchWebhook(hook.wh.webhook, match, { static: hook.wh.static === true });
    if (m.error) return noPlan('webhook selector error');
    if (!m.matches) continue;
    if (m.matchedResource && hook.conditions.length) return noPlan('webhook matched through an equivalent resource'); // other inputs
    out.push({ hook, conditions: slots(b, hook.conditions) });
  }
  return out;
}

/**
 * A MutatingAdmissionPolicy's bindings that match a request (matchPolicy, then each binding's
 * matchResources, as the run matches them), and whether through an equivalent resource; or the
 * configuration or selector error that leaves the request to the full run.
 */
export function mapBindings(mp: LeanMutatingPolicy, match: MatchInput): { bindings: LeanMutatingPolicy['bindings']; equivalent: boolean } | { error: string } {
  const pm = matchPolicy(mp.spec, { ...match, ...(mp.p.static ? { static: true } : {}) });
  if (pm.configError) return { error: 'policy configuration error' };
  if (pm.skipReason) return { bindings: [], equivalent: false };
  const bindings: LeanMutatingPolicy['bindings'] = [];
  for (const bd of mp.bindings) {
    if (bd.matchResources !== undefined) {
      const m = matchResources(bd.matchResources, match);
      if (m.error) return { error: 'binding selector error' };
      if (!m.matches) continue;
    }
    bindings.push(bd);
  }
  return { bindings, equivalent: !!pm.match?.matchedResource };
}

/** The MutatingAdmissionPolicy bindings that match, with their matchConditions' slots; undefined: not decidable here. */
function mutatingPolicyPlan(lc: LeanChain, match: MatchInput, b: Batch): Plan['mutatingPolicies'] | undefined {
  const out: Plan['mutatingPolicies'] = [];
  for (const mp of lc.mutatingPolicies) {
    const m = mapBindings(mp, match);
    if ('error' in m) return noPlan(m.error);
    // through an equivalent resource the conditions read other inputs: the plugins run in full;
    // with params they read each binding's, resolved where the policy runs (lean-patch.ts)
    for (const bd of m.bindings)
      out.push(m.equivalent ? { mp, bd, equivalent: true } : mp.params ? { mp, bd } : { mp, bd, conditions: slots(b, mp.conditions) });
  }
  return out;
}

/**
 * Which plugins a plan decides: 'all'; 'validating' on a context the mutating plugins already ran
 * on (simulate.ts `mutatedContext`); 'webhooks' (the validating webhooks) where the policy plugins
 * ran too.
 */
export type PlanStage = 'all' | 'validating' | 'webhooks';

export function planOf(lc: LeanChain, ctx: SimContext, b: Batch, stage: PlanStage = 'all'): Plan | undefined {
  if (lc.unsupported) return noPlan(lc.unsupported);
  // a review resource: the plugins its release excludes return before any policy or webhook (nothing matches there)
  const noPolicies = !!excludedBy(ctx, 'policies');
  const noWebhooks = !!excludedBy(ctx, 'webhooks');
  const match = matchInput(ctx);
  const mutatingPolicies = stage !== 'all' || noPolicies ? [] : mutatingPolicyPlan(lc, match, b);
  const mutating = mutatingPolicies && (stage !== 'all' || noWebhooks ? [] : hookPlan(match, lc.mutating, b));
  const validating = mutating && (noWebhooks ? [] : hookPlan(match, lc.validating, b));
  if (!mutatingPolicies || !mutating || !validating) return undefined;
  const policies: Plan['policies'] = [];
  if (stage === 'webhooks' || noPolicies) return { mutatingPolicies, mutating, policies, validating };
  for (const lp of lc.policies) {
    if (lp.bindings.length === 0) continue;
    const pm = matchPolicy(lp.spec, { ...match, ...(lp.p.static ? { static: true } : {}) });
    if (pm.configError) return noPlan('policy configuration error');
    if (pm.skipReason) continue;
    if (pm.match?.matchedResource) return noPlan('policy matched through an equivalent resource');
    const bindings: LeanPolicy['bindings'] = [];
    for (const bd of lp.bindings) {
      if (bd.matchResources !== undefined) {
        const m = matchResources(bd.matchResources, match);
        if (m.error) return noPlan('binding selector error');
        if (!m.matches) continue;
      }
      bindings.push(bd);
    }
    if (!bindings.length) continue;
    const invocation = (bs: LeanPolicy['bindings'], param: unknown = null): Plan['policies'][number] => ({
      lp,
      bindings: bs,
      conditions: slots(b, lp.conditions, param),
      validations: slots(b, lp.validations, param),
      messages: lp.messages.map((m) => (m ? slot(b, m, param) : undefined)),
      audits: lp.audits.map((a) => ({ key: a.key, at: slot(b, a.item, param) })),
    });
    if (!lp.params) {
      policies.push(invocation(bindings));
      continue;
    }
    // paramKind: one invocation per binding and param, the params resolved as the run resolves
    // them (dispatch.ts admitBinding: resolveParams); none found under Allow: nothing to validate.
    // A param error (none found under Deny, a bad paramRef) is the binding's configuration error,
    // decided by failurePolicy as run.ts decides it (Fail: a denial; Ignore: nothing); another failurePolicy: the full run.
    // the chain's own documents (ctx is the first chain's of the group: their contexts agree, their workspaces need not)
    const input = { ...inputFor(ctx), paramDocuments: lc.chain.ws.documents };
    const failurePolicy = failurePolicyOf(lp.spec);
    const invocations: Plan['policies'] = [];
    for (const bd of bindings) {
      const resolved = resolveParams(lp.spec, bd.spec, str(ctx.request.namespace), input);
      if (resolved.error && failurePolicy === 'Fail')
        invocations.push({ lp, bindings: [bd], conditions: [], validations: [], messages: [], audits: [], configError: resolved.error });
      else if (resolved.error && failurePolicy !== 'Ignore') return { mutatingPolicies, mutating, policies: [], validating, policiesInFull: true };
      for (const param of resolved.error ? [] : resolved.params) invocations.push(invocation([bd], param));
    }
    policies.push(...invocations);
  }
  return { mutatingPolicies, mutating, policies, validating };
}

export type Answers = readonly CelEvalResult[];

/** matcher.go on the answers: 'match', 'skip' (a false), or undefined (an error or the budget: not decided here). */
export function conditionsOf(rs: Answers, at: readonly number[]): 'match' | 'skip' | undefined {
  let cost = 0;
  let error = false;
  for (const i of at) {
    const r = rs[i]!;
    cost += r.ok ? r.cost : ((r as { cost?: number }).cost ?? 0);
    if (cost > CEL_LIMITS.runtimeCelCostBudgetMatchConditions) return undefined;
    if (!r.ok) error = true;
  }
  for (const i of at) {
    const r = rs[i]!;
    if (r.ok && r.value === false) return 'skip';
  }
  return error ? undefined : 'match';
}

/** A called webhook's assumed answer: its warnings when it admits without a change, else undefined. */
function admits(ctx: SimContext, hook: LeanHook): string[] | undefined {
  const w = hook.wh.webhook;
  if (ctx.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') return undefined;
  const response = ctx.options.webhooks?.[hook.wh.name] ?? 'allow';
  if (response === 'allow') return [];
  if (typeof response !== 'object' || response === null) return undefined;
  if ('warnings' in response) return strList(response.warnings);
  return Array.isArray(response.patch) && response.patch.length > 0 ? undefined : [];
}

/** What a webhook's assumed answer is, for the fallback counts. */
function answerKind(ctx: SimContext, hook: LeanHook): string {
  const w = hook.wh.webhook;
  if (ctx.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') return 'a dry run it refuses';
  const response = ctx.options.webhooks?.[hook.wh.name] ?? 'allow';
  return typeof response === 'string' ? response : 'patch' in response ? 'patch' : 'other';
}

/** verdictOf's answer where a mutating plugin may change the object (or decide otherwise than admit): lean.ts runs the mutating plugins in full, then the validating ones lean. */
export const MUTATES = 'mutates';
/** Why the last verdictOf answered MUTATES (lean.ts counts it). */
export let mutatesReason = '';
const mutates = (reason: string): typeof MUTATES => {
  mutatesReason = reason;
  return MUTATES;
};
/** verdictOf's answer where the ValidatingAdmissionPolicy plugin runs in full (policiesInFull): what the mutating plugins did (decided here, or given), to go on from. */
export interface PoliciesInFull {
  policiesInFull: MutatedPrefix;
}

/** What the mutating plugins did, when they ran in full (simulate.ts `mutatedContext`): the verdict goes on from there. */
export interface MutatedPrefix {
  warnings: readonly string[];
  warnedBy: readonly string[];
  audited: readonly string[];
  calls: readonly string[];
  /** Who changed the object so far, in the order applied (a mutation: the full run's patches). */
  mutatedBy: readonly string[];
  /** The policy plugin ran in full and rejected: the denial the client sees, and every denying step (the probe's, when more than one). */
  denied?: { deniedBy: LeanDenial; denials?: LeanDenial[] };
  /** Every step so far that rejects (a probe's). */
  denials?: LeanDenial[];
}

const SHARED_BUDGET = "a webhook matchCondition past the batch's shared budget";

/** A validating webhook's call that denies, as a denial of the probe's (its step's words). */
const callDenial = ({ hook, call }: SettledCall): LeanDenial[] =>
  call.denial ? [{ kind: call.denial.kind, name: call.denial.name, webhook: hook.wh.name, message: call.denial.message ?? '' }] : [];

export function verdictOf(plan: Plan, ctx: SimContext, rs: Answers, after?: MutatedPrefix): LeanVerdict | typeof MUTATES | PoliciesInFull | undefined {
  const failed = rs.find((r) => !r.ok && isEngineFailure(r));
  if (failed) return fallback(`the engine failed: ${failed.ok ? '' : `${failed.kind}: ${String((failed as { message?: string }).message).slice(0, 120)}`}`);
  // a MutatingAdmissionPolicy binding invoked (its conditions true, or erring: failurePolicy decides) may change the object
  for (const mp of plan.mutatingPolicies) {
    const mc = mp.conditions && conditionsOf(rs, mp.conditions);
    if (mc !== 'skip')
      return mutates(mc === undefined ? 'a MutatingAdmissionPolicy matchCondition errs, or it has params' : 'a MutatingAdmissionPolicy applies');
  }
  const warnings: string[] = [...(after?.warnings ?? [])];
  const warnedBy: string[] = [...(after?.warnedBy ?? [])];
  /** Adds a webhook's or binding's warnings and, where there are any, who gave them. */
  const warn = (w: readonly string[], who: string) => {
    if (!w.length) return;
    warnings.push(...w);
    warnedBy.push(who);
  };
  const audited = new Set<string>(after?.audited);
  const calls = new Set<string>(after?.calls);
  const mutatedBy = [...(after?.mutatedBy ?? [])];
  /**
   * A plugin's webhooks in order, each admitting without a change as its assumed answer says
   * (recorded where `record`); where one does not, the mutating plugin's go to lean-patch.ts
   * (MUTATES) and the validating plugin's are settled one by one (false: validatingWebhooks).
   */
  const callAll = (hooks: Plan['mutating'], mutatingPlugin: boolean, record: boolean): boolean | typeof MUTATES => {
    for (const { hook, conditions } of hooks) {
      const mc = conditionsOf(rs, conditions);
      if (mc === undefined) return mutatingPlugin ? mutates('a mutating webhook matchCondition errs') : false;
      if (mc === 'skip') continue;
      const w = admits(ctx, hook);
      if (!w) return mutatingPlugin ? mutates(`a mutating webhook answers ${answerKind(ctx, hook)}`) : false;
      if (!record) continue;
      calls.add(hook.wh.name);
      if (mutatingPlugin) audited.add(webhookMutationKey(0, hook.index));
      warn(w, actorOf(hook.wh.configKind, hook.wh.configName, hook.wh.name));
    }
    return true;
  };
  if (callAll(plan.mutating, true, true) === MUTATES) return MUTATES;
  if (plan.policiesInFull) return { policiesInFull: { warnings, warnedBy, audited: [...audited], calls: [...calls], mutatedBy } };
  /** The verdict: allowed unless `deniedBy`; `all`, every step that denies, when more than one does (the probe's). */
  const verdict = (deniedBy: LeanDenial | undefined, all: readonly LeanDenial[] = []): LeanVerdict => ({
    allowed: !deniedBy,
    ...(deniedBy ? { deniedBy } : {}),
    ...(all.length > 1 ? { denials: [...all] } : {}),
    warnings,
    warnedBy,
    audited: [...audited],
    calls: [...calls],
    mutated: mutatedBy.length > 0,
    mutatedBy,
  });
  /**
   * The probe's validating webhooks after the chain was rejected, none of them called for the
   * client: each settled as the plugin settles it, their rejections and denials in its steps' order.
   */
  const probeDenials = (): LeanDenial[] | undefined => {
    const settled = validatingWebhooks(plan.validating, ctx, rs);
    return settled && [...settled.rejects, ...settled.called.flatMap(callDenial)];
  };
  if (after?.denied) {
    // the policy plugin rejected: no validating webhook is called, but the probe calls each
    const { deniedBy, denials = [deniedBy] } = after.denied;
    const probed = probeDenials();
    if (!probed) return fallback(SHARED_BUDGET);
    return verdict(deniedBy, [...denials, ...probed]);
  }
  /** The bindings that deny, in the order of the full run's steps: each with its first false validation's message (its first param's that has one). */
  const denied: { name: string; binding: string; message: string }[] = [];
  const denying = (name: string, binding: string) => denied.some((d) => d.name === name && d.binding === binding);
  let auditFailures = false;
  /** An invocation's deny decisions (run.ts): per binding, per decision, per action. */
  const decide = (p: Plan['policies'][number], messages: readonly string[], auditError?: string) => {
    if (!messages.length && auditError === undefined) return;
    for (const b of p.bindings) {
      for (const message of messages)
        for (const action of b.actions) {
          if (action === 'Warn') warn([validationWarning(p.lp.p.name, b.name, message)], actorOf('ValidatingAdmissionPolicy', p.lp.p.name, b.name));
          else if (action === 'Audit') auditFailures = true;
        }
      // the binding's first denial: its first deny decision under Deny, else an audit annotation's
      // error, which denies whatever validationActions say (validating/dispatcher.go)
      const message = b.actions.includes('Deny') && messages.length ? messages[0] : auditError;
      if (message !== undefined && !denying(p.lp.p.name, b.name)) denied.push({ name: p.lp.p.name, binding: b.name, message });
    }
  };
  for (const p of plan.policies) {
    if (p.configError) {
      const b = p.bindings[0]!;
      if (!denying(p.lp.p.name, b.name)) denied.push({ name: p.lp.p.name, binding: b.name, message: `failed to configure binding: ${p.configError}` });
      continue;
    }
    // the matcher as the plugin's (validate.ts evaluateValidations): an error under Fail is the invocation's one decision
    const failurePolicy = failurePolicyOf(p.lp.spec);
    const mc = matcherOn(list(p.lp.spec.matchConditions), failurePolicy, rs, p.conditions);
    if (mc === undefined) return fallback(SHARED_BUDGET);
    if (mc.action === 'skip') continue;
    if (mc.action === 'reject') {
      decide(p, [mc.error]);
      continue;
    }
    // validations, then messageExpressions, on one budget; past a budget (the batch's group shares
    // one; the run gives each policy its own) the run may have had a value where this has none: the full run decides
    const results = p.validations.map((i) => rs[i]!);
    if (results.some((r) => !r.ok && r.kind === 'cost-exceeded')) return fallback('past a cost budget');
    let cost = 0;
    for (const r of results) cost += r.ok ? r.cost : ((r as { cost?: number }).cost ?? 0);
    for (const i of p.messages) {
      if (i === undefined) continue;
      const r = rs[i]!;
      if (!r.ok && r.kind === 'cost-exceeded') return fallback('past a cost budget');
      cost += r.ok ? r.cost : ((r as { cost?: number }).cost ?? 0);
    }
    if (cost > CEL_LIMITS.runtimeCelCostBudget) return fallback('past a cost budget');
    // the audit annotations on their own budget (validate.ts): an error under Fail denies, under Ignore it is left out
    let auditCost = 0;
    const keys: string[] = [];
    let auditError: string | undefined;
    for (const [k, a] of p.audits.entries()) {
      const r = rs[a.at]!;
      if (!r.ok && r.kind === 'cost-exceeded') return fallback('past a cost budget');
      auditCost += r.ok ? r.cost : ((r as { cost?: number }).cost ?? 0);
      if (auditCost > CEL_LIMITS.runtimeCelCostBudget) return fallback('past a cost budget');
      if (!r.ok) {
        if (failurePolicy !== 'Ignore') auditError ??= expressionTrace(p.lp.audits[k]!.item.expression, r).error ?? '';
        continue;
      }
      if (r.value === null || r.value === undefined) continue;
      if (typeof r.value !== 'string') return fallback('an audit annotation is not a string');
      if (trimSpace(r.value)) keys.push(`${p.lp.p.name}/${a.key}`);
    }
    // every applying binding evaluates the same expressions on the same inputs: the same decisions, the same keys.
    // The deny decisions in validation order: a false validation's message, an error's (under Fail; Ignore admits)
    const messages = results.flatMap((r, j): string[] => {
      if (!r.ok) return failurePolicy === 'Ignore' ? [] : [expressionTrace(str(p.lp.specs[j]!.expression), r).error ?? ''];
      if (r.value === true) return [];
      const at = p.messages[j];
      return [failedValidationMessage(p.lp.specs[j]!, at === undefined ? undefined : rs[at]).message];
    });
    decide(p, messages, auditError);
    for (const k of keys) audited.add(k);
  }
  if (auditFailures) audited.add(VALIDATION_FAILURE_KEY);
  if (denied.length) {
    // the plugin's rejection ends the chain: no validating webhook is called, but the probe calls them all
    // the client sees the first, as apierrors.NewForbidden words it; the probe's later steps keep the policy's own words
    const [first, ...rest] = denied.map(
      (d): LeanDenial => ({ kind: 'ValidatingAdmissionPolicy', name: d.name, binding: d.binding, message: policyDenialMessage(d.name, d.binding, d.message) }),
    );
    const deniedBy: LeanDenial = { ...first!, message: forbiddenMessage(ctx, first!.message) };
    const probed = probeDenials();
    if (!probed) return fallback(SHARED_BUDGET);
    return verdict(deniedBy, [deniedBy, ...rest, ...probed]);
  }
  // every validating webhook admits: checked first, then recorded (a webhook that does not leaves nothing half-recorded)
  if (callAll(plan.validating, false, false)) {
    callAll(plan.validating, false, true);
    return verdict(undefined);
  }
  // a validating webhook that does not simply admit: its matchConditions and call settled as the plugin settles them (lean-webhooks.ts)
  const settled = validatingWebhooks(plan.validating, ctx, rs);
  if (!settled) return fallback(SHARED_BUDGET);
  const callDenials = settled.called.flatMap(callDenial);
  if (settled.rejects.length) {
    // rejected before any call: the probe's steps are the rejections, then the calls it makes anyway
    const all = [...settled.rejects, ...callDenials];
    return verdict(all[0], all);
  }
  settled.called.forEach(({ hook, call }, i) => {
    if (!call.refused) calls.add(hook.wh.name);
    warn(call.warnings, actorOf(hook.wh.configKind, hook.wh.configName, hook.wh.name));
    if (call.failedOpen) audited.add(validatingFailedOpenKey(i));
  });
  return verdict(callDenials[0], callDenials);
}
