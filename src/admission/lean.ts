/**
 * Lean verdicts for the impact replay: what a chain decides about a request (allowed, warnings,
 * audit annotation keys, webhooks called; or denied by ValidatingAdmissionPolicies) without the
 * Simulate view's explanation, where the object is unchanged and no error is involved; undefined
 * where the full simulation must decide. Chains whose request contexts agree are decided
 * together: one plan per match key, one engine batch per request on inputs cut down to what the
 * items read. Design: ./README.md (Lean verdicts).
 */
import { isObject, obj, str } from '../base/json';
import { resolveParams, type PolicyCel } from '../policy';
import { loadTypedData } from '../k8s/typed';
import { warnersOf, type SimContext } from './context';
import { answers, knowingMemo, unchangedObject, type Answered, type Batched, type EvaluateBatch } from './lean-answers';
import { patchedLean, refusedReason } from './lean-patch';
import type { LeanChain } from './lean-chain';
import {
  countLean,
  countPartly,
  fallback,
  MUTATES,
  mutatesReason,
  noPlanReason,
  planOf,
  verdictOf,
  type Answers,
  type Batch,
  type LeanDenial,
  type LeanVerdict,
  type MutatedPrefix,
  type PoliciesInFull,
  type Plan,
  type PlanStage,
} from './lean-verdict';
import { runValidatingPolicies } from './policies';
import { enforcerOn } from './conditions';
import { contextOf, freshContext, mutatedContext } from './simulate';
import { runValidatingWebhooks, webhookCalled } from './webhooks';
import type { SimOptions, SimRequest } from './types';

/** Chains decided together: grouped by frame (one context, one inputs object, one batch each); plans kept by what matching reads. */
export interface LeanSet {
  chains: readonly LeanChain[];
  groups: { frame: string; members: number[]; reads: LeanChain['reads']; plans: Map<string, GroupPlan> }[];
  /** paramsOf by members and namespace (this set's documents: not kept across sets). */
  paramsByNamespace: Map<string, RequestParams>;
}

/** A group's plan for every request with the same match key: the batch's items and each chain's plan (undefined: not decidable here). */
interface GroupPlan extends Batched {
  plans: (Plan | undefined)[];
  /** Per chain without a plan, why (counted per request: `leanFallbacks`). */
  reasons: string[];
  /** The params every binding resolved to when the plan was made (paramsOf): the plan serves any request whose params have their shape. */
  paramList: readonly unknown[];
}

/** Plans kept per group (distinct match keys; past it the cache starts again). */
const MAX_PLANS = 4096;

/** Two chains that plan alike but for their params (LeanChain.config). */
const plansAlike = (a: LeanChain, b: LeanChain): boolean =>
  a.unsupported === b.unsupported && a.frame === b.frame && a.config.length === b.config.length && a.config.every((x, i) => x === b.config[i]);

/**
 * `previous`: the set of the chains before (a log's param written): where every chain plans alike,
 * the new set keeps its plans (their keys name the params each request's bindings resolve to).
 */
export function leanSet(chains: readonly LeanChain[], previous?: LeanSet): LeanSet {
  const groups: LeanSet['groups'] = [];
  chains.forEach((lc, i) => {
    if (lc.unsupported) return;
    let g = groups.find((x) => x.frame === lc.frame);
    if (!g) groups.push((g = { frame: lc.frame, members: [], reads: { labels: false, name: false, labelKeys: [] }, plans: new Map() }));
    g.members.push(i);
    g.reads = {
      labels: g.reads.labels || lc.reads.labels,
      name: g.reads.name || lc.reads.name,
      labelKeys: [...new Set([...g.reads.labelKeys, ...lc.reads.labelKeys])].sort(),
    };
  });
  if (previous && previous.chains.length === chains.length && chains.every((c, i) => plansAlike(c, previous.chains[i]!)))
    groups.forEach((g, i) => (g.plans = previous.groups[i]!.plans));
  return { chains, groups, paramsByNamespace: new Map() };
}

/** The batch's items with the ones that bind alike next to each other (the engine shares an activation only between neighbours), the plans' slots renumbered. */
function ordered(gp: GroupPlan): GroupPlan {
  const order = gp.items
    .map((_, i) => i)
    .sort((a, b) => {
      const x = gp.items[a]!;
      const y = gp.items[b]!;
      return (
        (x.group ?? '\uffff').localeCompare(y.group ?? '\uffff') ||
        x.context.localeCompare(y.context) ||
        Number(!!x.options?.hasParams) - Number(!!y.options?.hasParams) ||
        a - b
      );
    });
  const at: number[] = [];
  order.forEach((old, i) => (at[old] = i));
  const re = (xs: number[]) => xs.map((i) => at[i]!);
  return {
    reasons: gp.reasons,
    paramList: gp.paramList,
    engine: gp.engine,
    items: order.map((i) => gp.items[i]!),
    params: order.map((i) => gp.params[i]),
    plans: gp.plans.map(
      (p) =>
        p && {
          ...p,
          mutatingPolicies: p.mutatingPolicies.map((m) => (m.conditions ? { ...m, conditions: re(m.conditions) } : m)),
          mutating: p.mutating.map((h) => ({ ...h, conditions: re(h.conditions) })),
          validating: p.validating.map((h) => ({ ...h, conditions: re(h.conditions) })),
          policies: p.policies.map((q) => ({
            ...q,
            conditions: re(q.conditions),
            validations: re(q.validations),
            messages: q.messages.map((i) => (i === undefined ? undefined : at[i]!)),
            audits: q.audits.map((a) => ({ key: a.key, at: at[a.at]! })),
          })),
        },
    ),
  };
}

/** The labels selectors read of an object (`keys`: LeanChain reads.labelKeys), and whether it is there. */
const labelsKey = (o: unknown, keys: readonly string[]): string => {
  if (!isObject(o)) return '-';
  const labels = obj(obj(o.metadata).labels);
  return keys.map((k) => (Object.hasOwn(labels, k) ? JSON.stringify(labels[k]) : '~')).join(',');
};

/** Whether two objects agree in the labels selectors read (`keys`): labelsKey's, without the strings. */
function labelsAlike(a: unknown, b: unknown, keys: readonly string[]): boolean {
  if (!isObject(a) || !isObject(b)) return isObject(a) === isObject(b);
  const x = obj(obj(a.metadata).labels);
  const y = obj(obj(b.metadata).labels);
  return x === y || keys.every((k) => Object.hasOwn(x, k) === Object.hasOwn(y, k) && x[k] === y[k]);
}

/**
 * Everything planOf's matching reads of a request (its context), as a string. Not the namespace's
 * name: matching reads whether there is one, and where a selector reads labels the labels it
 * reads (the Namespace's existence only matters there); the params it resolves are paramsOf's.
 */
function matchKey(ctx: SimContext, reads: LeanChain['reads']): string {
  const r = ctx.request;
  const res = r.resource ?? {};
  const k = r.kind ?? {};
  let key = `${r.operation}\u0000${str(res.group)}/${str(res.version)}/${str(res.resource)}\u0000${str(r.subResource)}\u0000${str(k.group)}/${str(k.version)}/${str(k.kind)}\u0000${str(r.namespace) ? 'ns' : ''}`;
  if (reads.name) key += `\u0000${str(r.name)}`;
  if (reads.labels) {
    const keys = reads.labelKeys;
    key += `\u0000${labelsKey(ctx.namespaceObject, keys)}\u0000${labelsKey(ctx.object, keys)}\u0000${labelsKey(ctx.oldObject, keys)}`;
  }
  return key;
}

/** The params a request's bindings resolve to (paramsOf): their shape as a key, and the objects. */
interface RequestParams {
  key: string;
  params: unknown[];
}

/**
 * The params every binding of a policy with paramKind resolves to for this request, as planOf
 * resolves them (the request's namespace, the chain's documents), whether the binding matches or
 * not. A plan depends on their shape, not on the objects (the engine reads them): per binding its
 * error or how many params, and which params are the same object (items are slotted per object);
 * with matchKey, the plan's key. Empty for chains without such policies.
 */
function paramsOf(set: LeanSet, members: readonly number[], ctx: SimContext): RequestParams {
  const namespace = str(ctx.request.namespace);
  const at = `${members.join(',')}\u0000${namespace}`;
  const known = set.paramsByNamespace.get(at);
  if (known) return known;
  let key = '';
  const params: unknown[] = [];
  for (const i of members) {
    const lc = set.chains[i]!;
    for (const lp of lc.policies) {
      if (!lp.params) continue;
      for (const bd of lp.bindings) {
        const r = resolveParams(lp.spec, bd.spec, namespace, { paramDocuments: lc.chain.ws.documents });
        if (r.error !== undefined) {
          key += `\u0000${i}!${r.error}`;
          continue;
        }
        // each param as the position of its object's first occurrence
        const positions = r.params.map((p) => {
          if (p === null) return 'null';
          const first = params.indexOf(p);
          params.push(p);
          return String(first < 0 ? params.length - 1 : first);
        });
        key += `\u0000${i}:${positions.join(',')}`;
      }
    }
  }
  const out = { key, params };
  if (set.paramsByNamespace.size >= MAX_PLANS) set.paramsByNamespace.clear();
  set.paramsByNamespace.set(at, out);
  return out;
}

/** A group's plan for a request (kept per match key and stage). */
function groupPlan(set: LeanSet, g: LeanSet['groups'][number], members: readonly number[], ctx: SimContext, stage: PlanStage): GroupPlan {
  const { key: shape, params } = paramsOf(set, members, ctx);
  const key = `${stage}\u0000${members.join(',')}\u0000${matchKey(ctx, g.reads)}${shape}`;
  let gp = g.plans.get(key);
  if (!gp) {
    const b: Batch = { items: [], params: [], at: new Map() };
    const reasons: string[] = [];
    const plans = members.map((i, j) => {
      const p = planOf(set.chains[i]!, ctx, b, stage);
      if (!p) reasons[j] = noPlanReason;
      return p;
    });
    gp = ordered({ items: b.items, params: b.params, plans, reasons, paramList: params, engine: {} });
    if (g.plans.size >= MAX_PLANS) g.plans.clear();
    g.plans.set(key, gp);
  } else if (gp.paramList.length && gp.paramList.some((p, i) => p !== params[i])) {
    // the same shape, other objects (another namespace's param, a param written): position for position
    const from = gp.paramList;
    gp = { ...gp, bind: (p) => (p === null ? null : params[from.indexOf(p)]) };
  }
  return gp;
}

/** Why the ValidatingAdmissionPolicy plugin runs in full (the `partly: …` count): a params error the lean path does not word (Fail and Ignore it decides). */
export const PARAM_ERROR = 'a ValidatingAdmissionPolicy binding matches whose params do not resolve, under a failurePolicy neither Fail nor Ignore';

/**
 * Each chain's lean verdict on one request (undefined where the full simulation must decide).
 * `cel` needs `evaluateBatch`, the engine's own (the items are grouped): one call per group of
 * chains (usually one for all). A chain where a mutating plugin may change the object (or answer
 * otherwise than admit) runs the mutating plugins as the full simulation runs them
 * (`mutatedContext`), then its validating plugins here on the object they leave.
 */
export async function leanVerdicts(set: LeanSet, request: SimRequest, options: SimOptions, cel: PolicyCel): Promise<(LeanVerdict | undefined)[]> {
  const out: (LeanVerdict | undefined)[] = set.chains.map(() => undefined);
  for (const lc of set.chains) if (lc.unsupported) fallback(lc.unsupported);
  // a conditional authorization decision: the enforcer's step is the full simulation's (conditions.ts)
  if (
    options.conditionalAuthorization &&
    options.conditionalAuthorization.decision !== 'none' &&
    set.chains.some((lc) => enforcerOn({ ...options, kubernetesVersion: lc.chain.kubernetesVersion }))
  )
    return out.map(() => fallback('a conditional authorization decision (AuthorizationConditionsEnforcer)'));
  const batch = cel.evaluateBatch?.bind(cel);
  if (!batch) return out;
  await Promise.all(
    set.groups.map(async (g) => {
      const first = set.chains[g.members[0]!]!;
      await loadTypedData(first.chain.kubernetesVersion);
      const ctx = contextOf(first.chain, request, { ...options, kubernetesVersion: first.chain.kubernetesVersion }, cel, false, false);
      const gp = groupPlan(set, g, g.members, ctx, 'all');
      for (const r of gp.reasons) if (r) fallback(r);
      if (gp.plans.every((p) => !p)) return;
      const rs = await answers(gp, ctx, batch);
      if (!rs) return;
      await Promise.all(
        g.members.map(async (i, j) => {
          const plan = gp.plans[j];
          if (!plan) return;
          const v = verdictOf(plan, ctx, rs);
          if (v && v !== MUTATES && 'policiesInFull' in v) countPartly(PARAM_ERROR);
          out[i] =
            v === MUTATES || (v && 'policiesInFull' in v)
              ? await inFull(set, g, i, request, options, cel, batch, { gp, ctx, rs }, v === MUTATES ? { plan } : v)
              : v;
        }),
      );
    }),
  );
  return out;
}

/**
 * A chain whose mutating plugins reject the request: the client sees their first rejection (and
 * what the chain did until then); the probe goes on past it, its mutating plugins run in full
 * again, its validating ones here, for every denial.
 */
async function deniedInMutation(
  set: LeanSet,
  g: LeanSet['groups'][number],
  i: number,
  ctx: SimContext,
  earlier: Answered,
  request: SimRequest,
  options: SimOptions,
  cel: PolicyCel,
  batch: EvaluateBatch,
): Promise<LeanVerdict | undefined> {
  const chain = set.chains[i]!.chain;
  const probe = await mutatedContext(chain, request, options, knowingMemo(cel, chain.kubernetesVersion, earlier), true, earlier.ctx);
  const gp = groupPlan(set, g, [i], probe, 'validating');
  const plan = gp.plans[0];
  if (!plan) return fallback(gp.reasons[0] ?? '');
  const rs = await answers(gp, probe, batch, earlier);
  if (!rs) return undefined;
  const v = verdictOf(plan, probe, rs, prefixOf(probe));
  if (v === MUTATES || !v) return undefined;
  let all: LeanDenial[];
  if ('policiesInFull' in v) {
    // the probe's validating plugins as it runs them (a rejection does not stop it): every denying step
    await runValidatingPolicies(probe);
    probe.denied = undefined;
    await runValidatingWebhooks(probe);
    all = prefixOf(probe).denials ?? [];
  } else all = [...(prefixOf(probe).denials ?? []), ...(v.allowed ? [] : (v.denials ?? [v.deniedBy!]))];
  return rejectedBy(prefixOf(ctx), all);
}

/** The verdict of a chain its mutating plugins rejected: the client's (`client`, up to its first rejection), with the probe's every denial. */
const rejectedBy = (client: MutatedPrefix, all: readonly LeanDenial[]): LeanVerdict => ({
  allowed: false,
  deniedBy: client.denied!.deniedBy,
  ...(all.length > 1 ? { denials: [...all] } : {}),
  warnings: [...client.warnings],
  warnedBy: [...client.warnedBy],
  audited: [...client.audited],
  calls: [...client.calls],
  mutated: client.mutatedBy.length > 0,
  mutatedBy: [...client.mutatedBy],
});

/** A context's verdict so far (the plugins that ran in full on it), as verdictOf goes on from it. */
function prefixOf(ctx: SimContext): MutatedPrefix {
  const denial = (d: { kind: string; name: string; binding?: string; webhook?: string; message?: string }): LeanDenial => ({
    kind: d.kind,
    name: d.name,
    ...(d.binding ? { binding: d.binding } : {}),
    ...(d.webhook ? { webhook: d.webhook } : {}),
    message: d.message ?? '',
  });
  const denials = ctx.steps.filter((s) => s.outcome === 'denied' || s.outcome === 'error-rejected').map(denial);
  return {
    warnings: ctx.warnings,
    warnedBy: warnersOf(ctx.steps),
    audited: Object.keys(ctx.auditAnnotations),
    calls: [...new Set(ctx.steps.filter(webhookCalled).map((s) => s.webhook!))],
    mutatedBy: ctx.patches.map((p) => p.mutator),
    ...(ctx.denied ? { denied: { deniedBy: denial(ctx.denied), ...(denials.length > 1 ? { denials } : {}) } } : {}),
    ...(denials.length ? { denials } : {}),
  };
}

/**
 * A chain whose mutating plugins reject the request, decided lean (`client`: patchedLean's
 * verdict, its first rejection the one the client sees); the probe goes on past each rejection
 * (patchedLean on a probing context), then its validating plugins here, for every denial. As
 * deniedInMutation, without the full runs: undefined where the probe's mutating plugins need
 * theirs, null where its validating plugins are not decided here (nor after a full run).
 */
async function deniedLean(
  set: LeanSet,
  g: LeanSet['groups'][number],
  i: number,
  first: Answered,
  plan: Plan,
  client: MutatedPrefix,
  cel: PolicyCel,
  batch: EvaluateBatch,
): Promise<LeanVerdict | null | undefined> {
  const probe = freshContext(first.ctx, set.chains[i]!.chain, cel, true);
  const probed = await patchedLean(set.chains[i]!, plan, first.rs, probe, batch);
  if (!probed) return undefined;
  const asked = unchanged(g, first, probe, plan) ?? (await validatingPlan(set, g, i, probe, batch, first));
  if (!asked) return null;
  const v = verdictOf(asked.plan, probe, asked.rs, probed);
  if (!v) return null;
  // (a validating plan decides no mutating plugin; a param error's full run of the policy plugin: deniedInMutation's)
  if (v === MUTATES || 'policiesInFull' in v) return undefined;
  countLean('the mutating plugins: a webhook or policy rejects the request');
  return rejectedBy(client, [...(probed.denials ?? []), ...(v.allowed ? [] : (v.denials ?? [v.deniedBy!]))]);
}

/**
 * The first batch's plan and answers for the validating plugins after the mutating ones, where the
 * object changed nowhere matching or the batch's items read it: a plan made on it would match the
 * same (its match key is the same) and its items would answer the same.
 */
function unchanged(g: LeanSet['groups'][number], first: Answered, ctx: SimContext, plan: Plan): { plan: Plan; rs: Answers } | undefined {
  // the contexts differ only in the object: of what matchKey reads, the labels a selector reads of it
  if ((g.reads.labels && !labelsAlike(ctx.object, first.ctx.object, g.reads.labelKeys)) || !unchangedObject(first, ctx.object)) return undefined;
  countLean('the validating plugins on the first answers (the mutation changed nothing they read)');
  return { plan: { ...plan, mutatingPolicies: [], mutating: [] }, rs: first.rs };
}

/** The validating plugins' plan on the object the mutating plugins left, and the engine's answers (the first batch's where its inputs did not change). */
async function validatingPlan(
  set: LeanSet,
  g: LeanSet['groups'][number],
  i: number,
  ctx: SimContext,
  batch: EvaluateBatch,
  first: Answered,
): Promise<{ plan: Plan; rs: Answers } | undefined> {
  const gp = groupPlan(set, g, [i], ctx, 'validating');
  const plan = gp.plans[0];
  if (!plan) return fallback(gp.reasons[0] ?? '');
  const rs = await answers(gp, ctx, batch, first);
  return rs && { plan, rs };
}

/**
 * A chain's verdict where a plugin runs as the full simulation runs it: the mutating plugins (a
 * mutation may change the object; their own CEL memo follows it) unless lean-patch.ts decides
 * them (a rejection there: deniedLean), and the ValidatingAdmissionPolicy plugin where a binding's params do
 * not resolve under a failurePolicy neither Fail nor Ignore; the rest (the validating plugins, the
 * validating webhooks) here. `from`: the request's first plan, where the mutating plugins may
 * change the object; or what the mutating plugins did, decided here (nothing changed): only the policy plugin runs in full.
 */
async function inFull(
  set: LeanSet,
  g: LeanSet['groups'][number],
  i: number,
  request: SimRequest,
  options: SimOptions,
  cel: PolicyCel,
  batch: EvaluateBatch,
  first: Answered,
  from: { plan: Plan } | PoliciesInFull,
): Promise<LeanVerdict | undefined> {
  const chain = set.chains[i]!.chain;
  const base = first.ctx;
  let ctx: SimContext;
  let before: MutatedPrefix | undefined;
  if ('policiesInFull' in from) {
    ctx = freshContext(base, chain, knowingMemo(cel, chain.kubernetesVersion, first), false);
    before = from.policiesInFull;
  } else {
    const run = freshContext(base, chain, knowingMemo(cel, chain.kubernetesVersion, first), false);
    const patched = await patchedLean(set.chains[i]!, from.plan, first.rs, run, batch);
    const denied = patched?.denied ? await deniedLean(set, g, i, first, from.plan, patched, run.cel, batch) : undefined;
    // null: the full simulation decides (the probe's validating plugins are not decided here, as they would not be after a full run)
    if (denied !== undefined) return denied ?? undefined;
    if (patched && !patched.denied) {
      ctx = run;
      countLean('the mutating plugins');
    } else {
      countPartly(
        `the mutating plugins run in full: ${mutatesReason} (${patched ? 'a webhook or policy rejects the request, and the probe past it is not decided here' : refusedReason})`,
      );
      ctx = await mutatedContext(chain, request, options, run.cel, false, base);
      if (ctx.denied) return deniedInMutation(set, g, i, ctx, first, request, options, cel, batch);
    }
    const asked = unchanged(g, first, ctx, from.plan) ?? (await validatingPlan(set, g, i, ctx, batch, first));
    if (!asked) return undefined;
    const v = verdictOf(asked.plan, ctx, asked.rs, patched ?? prefixOf(ctx));
    if (v === MUTATES) return undefined;
    if (!v || !('policiesInFull' in v)) return v;
    before = patched;
  }
  await runValidatingPolicies(ctx);
  const gp = groupPlan(set, g, [i], ctx, 'webhooks');
  const plan = gp.plans[0];
  if (!plan) return fallback(gp.reasons[0] ?? '');
  const rs = await answers(gp, ctx, batch, first);
  if (!rs) return undefined;
  const after = prefixOf(ctx);
  const v = verdictOf(
    plan,
    ctx,
    rs,
    before
      ? {
          ...after,
          warnings: [...before.warnings, ...after.warnings],
          warnedBy: [...before.warnedBy, ...after.warnedBy],
          audited: [...new Set([...before.audited, ...after.audited])],
          calls: [...new Set([...before.calls, ...after.calls])],
          mutatedBy: before.mutatedBy,
        }
      : after,
  );
  return v === MUTATES || (v && 'policiesInFull' in v) ? undefined : v;
}
