/**
 * Lean verdicts for the impact replay: what a chain decides about a request (allowed, warnings,
 * audit annotation keys, webhooks called; or denied by ValidatingAdmissionPolicies) without the
 * Simulate view's explanation, where the object is unchanged and no error is involved; undefined
 * where the full simulation must decide. Chains whose request contexts agree are decided
 * together: one plan per match key, one engine batch per request on inputs cut down to what the
 * items read. Design: ./README.md (Lean verdicts).
 */
import { isObject, obj, str } from '../base/json';
import { reads } from '../cel';
import { projector, unionReads } from '../cel/project';
import type { CelBatchItem, CelInputs, CelReads } from '../cel/types';
import type { PolicyCel } from '../policy';
import { loadTypedData } from '../k8s/typed';
import { celInputs } from '../request/cel-inputs';
import { inputFor, type SimContext } from './context';
import type { LeanChain } from './lean-chain';
import { planOf, verdictOf, type Batch, type LeanVerdict, type Plan } from './lean-verdict';
import { contextOf } from './simulate';
import type { SimOptions, SimRequest } from './types';

/** Chains decided together: grouped by frame (one context, one inputs object, one batch each); plans kept by what matching reads. */
export interface LeanSet {
  chains: readonly LeanChain[];
  groups: { frame: string; members: number[]; reads: LeanChain['reads']; plans: Map<string, GroupPlan> }[];
}

/** A group's plan for every request with the same match key: the batch's items and each chain's plan (undefined: not decidable here). */
interface GroupPlan {
  items: CelBatchItem[];
  plans: (Plan | undefined)[];
  /** The inputs cut down to what the items read (src/cel/project.ts), once known. */
  project?: (inputs: CelInputs) => CelInputs;
}

/** Each item's reads, asked of the engine once. */
const itemReads = new WeakMap<CelBatchItem, Promise<CelReads>>();

/** The projection of a batch's inputs on what its items read. */
async function projectorOf(items: readonly CelBatchItem[]): Promise<(inputs: CelInputs) => CelInputs> {
  const each = items.map((it) => {
    let r = itemReads.get(it);
    if (!r) itemReads.set(it, (r = reads(it.expression, it.context, it.options)));
    return r;
  });
  return projector(unionReads(await Promise.all(each)));
}

/** Plans kept per group (distinct match keys; past it the cache starts again). */
const MAX_PLANS = 4096;

export function leanSet(chains: readonly LeanChain[]): LeanSet {
  const groups: LeanSet['groups'] = [];
  chains.forEach((lc, i) => {
    if (lc.unsupported) return;
    let g = groups.find((x) => x.frame === lc.frame);
    if (!g) groups.push((g = { frame: lc.frame, members: [], reads: { labels: false, name: false }, plans: new Map() }));
    g.members.push(i);
    g.reads = { labels: g.reads.labels || lc.reads.labels, name: g.reads.name || lc.reads.name };
  });
  return { chains, groups };
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
    items: order.map((i) => gp.items[i]!),
    plans: gp.plans.map(
      (p) =>
        p && {
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

const labelsKey = (o: unknown): string => (isObject(o) ? JSON.stringify(obj(o.metadata).labels ?? null) : '-');

/** Everything planOf's matching reads of a request (its context), as a string. */
function matchKey(ctx: SimContext, reads: LeanChain['reads']): string {
  const r = ctx.request;
  const res = r.resource ?? {};
  const k = r.kind ?? {};
  let key = `${r.operation}\u0000${str(res.group)}/${str(res.version)}/${str(res.resource)}\u0000${str(r.subResource)}\u0000${str(k.group)}/${str(k.version)}/${str(k.kind)}\u0000${str(r.namespace)}`;
  if (reads.name) key += `\u0000${str(r.name)}`;
  if (reads.labels) key += `\u0000${labelsKey(ctx.namespaceObject)}\u0000${labelsKey(ctx.object)}\u0000${labelsKey(ctx.oldObject)}`;
  return key;
}

/**
 * Each chain's lean verdict on one request (undefined where the full simulation must decide).
 * `cel` needs `evaluateBatch`, the engine's own (the items are grouped): one call per group of
 * chains (usually one for all).
 */
export async function leanVerdicts(set: LeanSet, request: SimRequest, options: SimOptions, cel: PolicyCel): Promise<(LeanVerdict | undefined)[]> {
  const out: (LeanVerdict | undefined)[] = set.chains.map(() => undefined);
  const batch = cel.evaluateBatch?.bind(cel);
  if (!batch) return out;
  await Promise.all(
    set.groups.map(async (g) => {
      const first = set.chains[g.members[0]!]!;
      await loadTypedData(first.chain.kubernetesVersion);
      const ctx = contextOf(first.chain, request, { ...options, kubernetesVersion: first.chain.kubernetesVersion }, cel, false, false);
      const key = matchKey(ctx, g.reads);
      let gp = g.plans.get(key);
      if (!gp) {
        const b: Batch = { items: [], at: new Map() };
        gp = ordered({ items: b.items, plans: g.members.map((i) => planOf(set.chains[i]!, ctx, b)) });
        if (g.plans.size >= MAX_PLANS) g.plans.clear();
        g.plans.set(key, gp);
      }
      if (gp.plans.every((p) => !p)) return;
      // the engine is sent only what the items read of the objects (usually a few fields)
      const project = (gp.project ??= await projectorOf(gp.items));
      const rs = gp.items.length ? await batch(gp.items, project(celInputs(inputFor(ctx), null))) : [];
      if (rs.length !== gp.items.length) return;
      g.members.forEach((i, j) => {
        const plan = gp.plans[j];
        if (plan) out[i] = verdictOf(plan, ctx, rs);
      });
    }),
  );
  return out;
}
