/**
 * One chain's lean verdict on one request (./lean.ts): its plan (the webhooks, policies and
 * bindings that match, with their items' slots in the request's batch), then the verdict from
 * the engine's answers, worded by the policy run's own functions; undefined where the full
 * simulation must decide. Design: ./README.md (Lean verdicts).
 */
import { strList, trimSpace } from '../base/json';
import { CEL_LIMITS, isEngineFailure, type CelBatchItem, type CelEvalResult } from '../cel/types';
import {
  failedValidationMessage,
  matchPolicy,
  matchResources,
  matchWebhook,
  policyDenialMessage,
  validationWarning,
  VALIDATION_FAILURE_KEY,
  type MatchInput,
} from '../policy';
import { excludedBy, forbiddenMessage, matchInput, type SimContext } from './context';
import type { LeanChain, LeanHook, LeanPolicy } from './lean-chain';

/** A ValidatingAdmissionPolicy binding that denies, worded as the full run words it. */
export interface LeanDenial {
  kind: 'ValidatingAdmissionPolicy';
  name: string;
  binding: string;
  message: string;
}

/** A chain's verdict on a request it allows without a change to the object, or denies by ValidatingAdmissionPolicies' false validations. */
export interface LeanVerdict {
  allowed: boolean;
  /** The denial the client sees (when not allowed): simulatePrepared's `deniedBy`. */
  deniedBy?: LeanDenial;
  /** Every binding that denies, when more than one does: the probe run's denied steps. */
  denials?: LeanDenial[];
  warnings: string[];
  /** Keys of the audit annotations, in the order the chain adds them. */
  audited: string[];
  /** Webhooks called, each once, in order. */
  calls: string[];
  mutated: false;
}

/** One request's items across chains: each distinct item once. */
export interface Batch {
  items: CelBatchItem[];
  at: Map<CelBatchItem, number>;
}

const slot = (b: Batch, it: CelBatchItem): number => {
  let i = b.at.get(it);
  if (i === undefined) {
    i = b.items.length;
    b.items.push(it);
    b.at.set(it, i);
  }
  return i;
};
const slots = (b: Batch, its: readonly CelBatchItem[]): number[] => its.map((it) => slot(b, it));

/** What a chain asks of the engine for one request, by slot, and what it decides with the answers. */
export interface Plan {
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
  }[];
  validating: { hook: LeanHook; conditions: number[] }[];
}

/** Webhooks whose rules and selectors match, with their matchConditions' slots; undefined: not decidable here. */
function hookPlan(match: MatchInput, hooks: readonly LeanHook[], b: Batch): Plan['mutating'] | undefined {
  const out: Plan['mutating'] = [];
  for (const hook of hooks) {
    const m = matchWebhook(hook.wh.webhook, match, { static: hook.wh.static === true });
    if (m.error) return undefined;
    if (!m.matches) continue;
    if (m.matchedResource && hook.conditions.length) return undefined; // an equivalent resource: other inputs
    out.push({ hook, conditions: slots(b, hook.conditions) });
  }
  return out;
}

export function planOf(lc: LeanChain, ctx: SimContext, b: Batch): Plan | undefined {
  if (lc.unsupported || excludedBy(ctx, 'policies') || excludedBy(ctx, 'webhooks')) return undefined;
  const match = matchInput(ctx);
  const mutating = hookPlan(match, lc.mutating, b);
  const validating = mutating && hookPlan(match, lc.validating, b);
  if (!mutating || !validating) return undefined;
  const policies: Plan['policies'] = [];
  for (const lp of lc.policies) {
    if (lp.bindings.length === 0) continue;
    const pm = matchPolicy(lp.spec, { ...match, ...(lp.p.static ? { static: true } : {}) });
    if (pm.configError) return undefined;
    if (pm.skipReason) continue;
    if (pm.match?.matchedResource || lp.params) return undefined;
    const bindings: LeanPolicy['bindings'] = [];
    for (const bd of lp.bindings) {
      if (bd.matchResources !== undefined) {
        const m = matchResources(bd.matchResources, match);
        if (m.error) return undefined;
        if (!m.matches) continue;
      }
      bindings.push(bd);
    }
    if (!bindings.length) continue;
    policies.push({
      lp,
      bindings,
      conditions: slots(b, lp.conditions),
      validations: slots(b, lp.validations),
      messages: lp.messages.map((m) => (m ? slot(b, m) : undefined)),
      audits: lp.audits.map((a) => ({ key: a.key, at: slot(b, a.item) })),
    });
  }
  return { mutating, policies, validating };
}

type Answers = readonly CelEvalResult[];

/** matcher.go on the answers: 'match', 'skip' (a false), or undefined (an error or the budget: not decided here). */
function conditionsOf(rs: Answers, at: readonly number[]): 'match' | 'skip' | undefined {
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

export function verdictOf(plan: Plan, ctx: SimContext, rs: Answers): LeanVerdict | undefined {
  if (rs.some((r) => !r.ok && isEngineFailure(r))) return undefined;
  const warnings: string[] = [];
  const audited = new Set<string>();
  const calls = new Set<string>();
  /** A plugin's webhooks called in order; false where one is not decided here. `record` false: only whether each admits (the probe's validating webhooks after a denial). */
  const callAll = (hooks: Plan['mutating'], mutatingPlugin: boolean, record = true): boolean => {
    for (const { hook, conditions } of hooks) {
      const mc = conditionsOf(rs, conditions);
      if (mc === undefined) return false;
      if (mc === 'skip') continue;
      const w = admits(ctx, hook);
      if (!w) return false;
      if (!record) continue;
      calls.add(hook.wh.name);
      if (mutatingPlugin) audited.add(`mutation.webhook.admission.k8s.io/round_0_index_${hook.index}`);
      warnings.push(...w);
    }
    return true;
  };
  if (!callAll(plan.mutating, true)) return undefined;
  /** The bindings that deny, in the order of the full run's steps: each with its first false validation's message. */
  const denied: { name: string; binding: string; message: string }[] = [];
  let auditFailures = false;
  for (const p of plan.policies) {
    const mc = conditionsOf(rs, p.conditions);
    if (mc === undefined) return undefined;
    if (mc === 'skip') continue;
    // validations, then messageExpressions, on one budget; an error is decided by the full run
    let cost = 0;
    const failed: number[] = [];
    p.validations.forEach((i, j) => {
      const r = rs[i]!;
      if (r.ok) {
        cost += r.cost;
        if (r.value !== true) failed.push(j);
      }
    });
    if (p.validations.some((i) => !rs[i]!.ok)) return undefined;
    for (const i of p.messages) {
      if (i === undefined) continue;
      const r = rs[i]!;
      // past a budget (the batch's group shares one; the run gives each policy its own) the run may
      // have had a value where this has none: the full run decides
      if (!r.ok && r.kind === 'cost-exceeded') return undefined;
      cost += r.ok ? r.cost : ((r as { cost?: number }).cost ?? 0);
    }
    if (cost > CEL_LIMITS.runtimeCelCostBudget) return undefined;
    let auditCost = 0;
    const keys: string[] = [];
    for (const a of p.audits) {
      const r = rs[a.at]!;
      if (!r.ok) return undefined;
      auditCost += r.cost;
      if (auditCost > CEL_LIMITS.runtimeCelCostBudget) return undefined;
      if (r.value === null || r.value === undefined) continue;
      if (typeof r.value !== 'string') return undefined;
      if (trimSpace(r.value)) keys.push(`${p.lp.p.name}/${a.key}`);
    }
    // every applying binding evaluates the same expressions on the same inputs: the same failures, the same keys
    const messages = failed.map((j) => {
      const at = p.messages[j];
      return failedValidationMessage(p.lp.specs[j]!, at === undefined ? undefined : rs[at]).message;
    });
    if (messages.length) {
      for (const b of p.bindings) {
        // the run's order: per binding, per false validation, per action
        for (const message of messages)
          for (const action of b.actions) {
            if (action === 'Warn') warnings.push(validationWarning(p.lp.p.name, b.name, message));
            else if (action === 'Audit') auditFailures = true;
          }
        if (b.actions.includes('Deny')) denied.push({ name: p.lp.p.name, binding: b.name, message: messages[0]! });
      }
    }
    for (const k of keys) audited.add(k);
  }
  if (auditFailures) audited.add(VALIDATION_FAILURE_KEY);
  if (denied.length) {
    // the plugin's rejection ends the chain: no validating webhook is called, but the probe calls
    // them all, so each must be decided here as admitting (none adds a denial)
    if (!callAll(plan.validating, false, false)) return undefined;
    // the client sees the first, as apierrors.NewForbidden words it; the probe's later steps keep the policy's own words
    const [first, ...rest] = denied.map(
      (d): LeanDenial => ({ kind: 'ValidatingAdmissionPolicy', name: d.name, binding: d.binding, message: policyDenialMessage(d.name, d.binding, d.message) }),
    );
    const deniedBy: LeanDenial = { ...first!, message: forbiddenMessage(ctx, first!.message) };
    return {
      allowed: false,
      deniedBy,
      ...(rest.length ? { denials: [deniedBy, ...rest] } : {}),
      warnings,
      audited: [...audited],
      calls: [...calls],
      mutated: false,
    };
  }
  if (!callAll(plan.validating, false)) return undefined;
  return { allowed: true, warnings, audited: [...audited], calls: [...calls], mutated: false };
}
