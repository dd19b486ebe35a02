/**
 * The lean verdict (the impact replay, issue #29): what a chain decides about a request — allowed,
 * the warnings, the audit annotation keys, the webhooks called, mutated — without the Simulate
 * view's explanation (no steps, traces or reasons), for the requests where the object is unchanged
 * and no error is involved: allowed, or denied by ValidatingAdmissionPolicies whose validations
 * are false. A false validation is handled as the policy run handles it, under each applying
 * binding's validationActions (Deny, Warn, Audit, any combination): its message (failedValidationMessage:
 * the messageExpression's value, else the message, else the expression), the warnings
 * (validationWarning), the Audit failures' annotation key; the denial the client sees is the first
 * denying binding of the first denying policy, worded as the full run words it (policyDenialMessage,
 * forbiddenMessage), and `denials` lists every denying binding as the probe run's steps do (the
 * first as the client sees it, the others with the policy's own words). After a denial no validating
 * webhook is called, but the probe calls them all: each must be decided here as admitting.
 * Anything else answers `undefined`, and the caller runs the full simulation (simulatePrepared /
 * probePrepared) for that request and chain:
 *
 *   - a chain with a MutatingAdmissionPolicy that has a binding (its mutations change the object);
 *   - a request whose resource a plugin excludes (review resources), a match through an equivalent
 *     resource (matchPolicy Equivalent: other inputs), a selector or configuration error;
 *   - a policy with paramKind that matches the request (its inputs depend on the param);
 *   - any CEL answer that is not a plain success: an error (a messageExpression's error only makes
 *     the message fall back, unless it is a budget's), an audit annotation that is neither a string
 *     nor null, a cost past a budget, an engine failure;
 *   - a webhook called whose assumed answer is not an admission (deny, unavailable, a non-empty
 *     patch), or a dry-run request to a webhook whose sideEffects do not allow it.
 *
 * So every verdict given here is the one `simulatePrepared` (and for `denials` `probePrepared`)
 * gives (`lean.test.ts` compares them on the repository's scenarios and generated denials): the same matching functions (matchResources, matchWebhook),
 * the same request context (`contextOf`), the same CEL items with the same compile options as
 * the runs ask for (variables are evaluated inside the expressions that use them, as in the
 * runs; their own evaluations only feed the trace), and the same cost sums per budget.
 *
 * Chains compiled once (`leanChain`): per policy and webhook its items (expression, context,
 * options with the release), shared between chains by identity (`LeanRegistry`), so a request
 * through two chains sends each distinct expression once, in one `evaluateBatch` on one inputs
 * object when the chains' request contexts agree (same Namespaces and CustomResourceDefinitions).
 * Items without variables carry one `group`, so the engine evaluates neighbours that bind alike on
 * one activation; their costs stay their own. The group shares one budget (per kind: matchConditions,
 * the rest): past it the engine answers errors, and an error is never a lean verdict, so the full
 * run decides those requests (a different path, never a different verdict).
 * The batch's inputs are cut down to what its items read of the objects (`reads`, asked of the
 * engine once per item; src/cel/project.ts): the engine decodes a few fields, not whole objects.
 * `evaluateBatch` is called with grouped items: `cel.evaluateBatch` must be the engine's own.
 */
import { isObject, list, obj, str, strList, trimSpace, type Obj } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import { reads } from '../cel';
import { projector, unionReads } from '../cel/project';
import {
  CEL_LIMITS,
  isEngineFailure,
  type CelBatchItem,
  type CelCompileOptions,
  type CelContext,
  type CelEvalResult,
  type CelInputs,
  type CelReads,
} from '../cel/types';
import { declaredVariables, declaresParams } from '../k8s/cel-scope';
import { withDefaults } from '../k8s/defaults';
import {
  failedValidationMessage,
  matchLabelSelector,
  matchPolicy,
  matchResources,
  matchWebhook,
  policyDenialMessage,
  validationWarning,
  VALIDATION_FAILURE_KEY,
  type MatchInput,
  type PolicyCel,
} from '../policy';
import { loadTypedData } from '../k8s/typed';
import { celInputs } from '../request/cel-inputs';
import { excludedBy, forbiddenMessage, inputFor, matchInput, type SimContext } from './context';
import { contextOf, type PreparedChain } from './simulate';
import type { SimOptions, SimRequest } from './types';
import type { WorkspacePolicy, WorkspaceWebhook } from './workspace';

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

/** The items of every chain compiled with it, one object per distinct expression, context and options. */
export type LeanRegistry = Map<string, CelBatchItem>;

interface LeanHook {
  wh: WorkspaceWebhook;
  conditions: CelBatchItem[];
  /** Position among the plugin's webhooks (the mutating plugin's audit annotation key). */
  index: number;
}

interface LeanPolicy {
  p: WorkspacePolicy;
  spec: Obj;
  params: boolean;
  bindings: { name: string; actions: string[]; matchResources?: unknown }[];
  conditions: CelBatchItem[];
  /** The validations as written (message, expression: what a false one's message is made of). */
  specs: Obj[];
  validations: CelBatchItem[];
  /** Per validation, its messageExpression (evaluated whatever the validation answers: its cost counts). */
  messages: (CelBatchItem | undefined)[];
  audits: { key: string; item: CelBatchItem }[];
}

export interface LeanChain {
  chain: PreparedChain;
  /** Why no request of this chain can be decided here (undefined: the chain is in the lean subset). */
  unsupported?: string;
  mutating: LeanHook[];
  validating: LeanHook[];
  policies: LeanPolicy[];
  /** What the request context reads of the chain: equal frames, equal contexts. */
  frame: string;
  /** What matching reads beyond the request's resource, kind, operation and namespace: labels (a selector that is not `{}`), the name (resourceNames). */
  reads: { labels: boolean; name: boolean };
}

const LEAN_GROUP = 'lean';

/** A chain compiled for lean verdicts; `registry` shared by the chains whose requests go out together. */
export function leanChain(chain: PreparedChain, registry: LeanRegistry = new Map()): LeanChain {
  const version = chain.kubernetesVersion;
  const item = (expression: string, context: CelContext, options: CelCompileOptions): CelBatchItem => {
    const withRelease: CelCompileOptions = { ...options, kubernetesVersion: version as KubernetesVersion };
    const key = `${context}\u0000${expression}\u0000${JSON.stringify(withRelease)}`;
    let it = registry.get(key);
    // an item without variables joins the one group of the request's batch: the engine evaluates
    // consecutive ones that bind alike on one activation (the object converted once, not per
    // item); each keeps its own cost; past the group's one budget the answers are errors, which
    // the full run decides (see the module comment)
    if (!it) registry.set(key, (it = { expression, context, options: withRelease, ...(options.variables?.length ? {} : { group: LEAN_GROUP }) }));
    return it;
  };
  const hooks = (whs: readonly WorkspaceWebhook[]): LeanHook[] =>
    whs.map((wh, index) => ({
      wh,
      index,
      conditions: list(wh.webhook.matchConditions).map((c) => item(str(obj(c).expression), 'webhook-matchCondition', {})),
    }));
  const policies = chain.ws.policies.validating.map((p): LeanPolicy => {
    const spec = obj(obj(withDefaults(p.policy)).spec);
    const options: CelCompileOptions = { hasParams: declaresParams(spec), variables: declaredVariables(spec.variables) };
    const validations = list(spec.validations).map(obj);
    return {
      p,
      spec,
      params: declaresParams(spec),
      bindings: p.bindings.map((b) => {
        const bspec = obj(obj(withDefaults(b.binding)).spec);
        return { name: b.name, actions: strList(bspec.validationActions), ...(isObject(bspec.matchResources) ? { matchResources: bspec.matchResources } : {}) };
      }),
      conditions: list(spec.matchConditions).map((c) => item(str(obj(c).expression), 'vap-matchCondition', options)),
      specs: validations,
      validations: validations.map((v) => item(str(v.expression), 'vap-validation', options)),
      messages: validations.map((v) => (str(v.messageExpression) ? item(str(v.messageExpression), 'vap-messageExpression', options) : undefined)),
      audits: list(spec.auditAnnotations).map((a) => ({ key: str(obj(a).key), item: item(str(obj(a).valueExpression), 'vap-auditAnnotation', options) })),
    };
  });
  const crds = chain.objects.filter((o) => obj(o).kind === 'CustomResourceDefinition');
  const matchers: Obj[] = [
    ...chain.ws.webhooks.mutating.map((h) => h.webhook),
    ...chain.ws.webhooks.validating.map((h) => h.webhook),
    ...policies.flatMap((lp) => [
      obj(lp.spec.matchConstraints),
      ...lp.bindings.flatMap((b) => (b.matchResources === undefined ? [] : [obj(b.matchResources)])),
    ]),
  ];
  // a selector reads labels unless matching finds it empty (absent or {}: it matches everything, as the apiserver's defaults make it)
  const selective = (sel: unknown) => {
    const m = matchLabelSelector(sel, {});
    return !(m.ok && m.empty);
  };
  const named = (rules: unknown) => list(rules).some((r) => list(obj(r).resourceNames).length > 0);
  const mutatingPolicy = chain.ws.policies.mutating.find((p) => p.bindings.length > 0);
  return {
    chain,
    ...(mutatingPolicy ? { unsupported: `MutatingAdmissionPolicy '${mutatingPolicy.name}' has a binding` } : {}),
    mutating: hooks(chain.ws.webhooks.mutating),
    validating: hooks(chain.ws.webhooks.validating),
    policies,
    frame: JSON.stringify([version, [...chain.ws.namespaces.entries()], crds]),
    reads: {
      labels: matchers.some((m) => selective(m.namespaceSelector) || selective(m.objectSelector)),
      name: matchers.some((m) => named(m.resourceRules) || named(m.excludeResourceRules) || named(m.rules)),
    },
  };
}

/** One request's items across chains: each distinct item once. */
interface Batch {
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
interface Plan {
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

function planOf(lc: LeanChain, ctx: SimContext, b: Batch): Plan | undefined {
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

function verdictOf(plan: Plan, ctx: SimContext, rs: Answers): LeanVerdict | undefined {
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
 * `cel` needs `evaluateBatch`: one call per group of chains (usually one for all).
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
