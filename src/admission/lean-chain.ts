/**
 * Chains compiled once for lean verdicts (./lean.ts): per policy and webhook its CEL items
 * (expression, context, compile options with the release), one object per distinct item shared
 * between chains through a LeanRegistry, and what matching reads of a request. Design:
 * ./README.md (Lean verdicts).
 */
import { isObject, list, obj, str, strList, type Obj } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import type { CelBatchItem, CelCompileOptions, CelContext } from '../cel/types';
import { withDefaults } from '../k8s/defaults';
import { matchLabelSelector, policyOptions } from '../policy';
import type { PreparedChain } from './simulate';
import type { WorkspacePolicy, WorkspaceWebhook } from './workspace';

/** The items of every chain compiled with it, one object per distinct expression, context and options. */
export type LeanRegistry = Map<string, CelBatchItem>;

export interface LeanHook {
  wh: WorkspaceWebhook;
  conditions: CelBatchItem[];
  /** Position among the plugin's webhooks (the mutating plugin's audit annotation key). */
  index: number;
}

export interface LeanPolicy {
  p: WorkspacePolicy;
  spec: Obj;
  params: boolean;
  /** `spec`: the binding's spec defaulted, as the run dispatches it (its paramRef). */
  bindings: { name: string; actions: string[]; matchResources?: unknown; spec: Obj }[];
  conditions: CelBatchItem[];
  /** The validations as written (message, expression: what a false one's message is made of). */
  specs: Obj[];
  validations: CelBatchItem[];
  /** Per validation, its messageExpression (evaluated whatever the validation answers: its cost counts). */
  messages: (CelBatchItem | undefined)[];
  audits: { key: string; item: CelBatchItem }[];
}

/**
 * A MutatingAdmissionPolicy with a binding: its matchConditions and mutations as items (with its
 * variables in their compile options), which lean-patch.ts evaluates and applies; without
 * paramKind its matchConditions are in the request's first batch too (lean-verdict.ts).
 */
export interface LeanMutatingPolicy {
  p: WorkspacePolicy;
  spec: Obj;
  /** It has a paramKind: each binding's params are resolved per request (its conditions are then not in the first batch). */
  params: boolean;
  bindings: { name: string; matchResources?: unknown; spec: Obj }[];
  conditions: CelBatchItem[];
  /** Its mutations in order: the patch type and the expression's item. */
  mutations: { patchType: string; item: CelBatchItem }[];
}

export interface LeanChain {
  chain: PreparedChain;
  /** Why no request of this chain can be decided here (undefined: the chain is in the lean subset). */
  unsupported?: string;
  mutating: LeanHook[];
  validating: LeanHook[];
  policies: LeanPolicy[];
  mutatingPolicies: LeanMutatingPolicy[];
  /** What the request context reads of the chain: equal frames, equal contexts. */
  frame: string;
  /**
   * What matching reads beyond the request's resource, kind, operation and namespace: labels (a
   * selector that is not `{}`; `labelKeys`: the only ones any selector reads), the name (resourceNames).
   */
  reads: { labels: boolean; name: boolean; labelKeys: readonly string[] };
  /**
   * What the compile read of the chain besides `frame`: each policy, binding and webhook
   * configuration as written, with its static mark and a webhook's position. Two chains equal
   * here and in `frame` plan alike but for their params (lean.ts keeps plans across them).
   */
  config: readonly unknown[];
}

/** See LeanChain.config. */
function configOf(chain: PreparedChain): unknown[] {
  const { ws, objects } = chain;
  return [
    ...[...ws.policies.validating, ...ws.policies.mutating].flatMap((p) => [p.policy, !!p.static, ...p.bindings.flatMap((b) => [b.binding, !!b.static])]),
    ...[...ws.webhooks.mutating, ...ws.webhooks.validating].flatMap((h) => [objects[h.document.index], h.index, !!h.static]),
  ];
}

const LEAN_GROUP = 'lean';

/**
 * The last chains compiled: a chain that compiles alike (the same registry, admission objects,
 * static marks and frame: only its params differ, as when a log writes a param) takes their
 * compiled parts with its own `chain`.
 */
const recent: { registry: LeanRegistry; lc: LeanChain }[] = [];
const RECENT = 4;

/**
 * Chains prepared alike (prepareChain: only params differ) share their discovery and Namespaces,
 * so their frame is the first one's: no pass over thousands of params per chain the log makes.
 */
const frames = new WeakMap<object, { discovery: unknown; version: string; frame: string }>();

/** See LeanChain.frame. */
function frameOf(chain: PreparedChain): string {
  // (by Namespaces: a baseline and a candidate without CustomResourceDefinitions share one discovery)
  const known = frames.get(chain.ws.namespaces);
  if (known?.discovery === chain.discovery && known.version === chain.kubernetesVersion) return known.frame;
  const crds = chain.objects.filter((o) => obj(o).kind === 'CustomResourceDefinition');
  const frame = JSON.stringify([chain.kubernetesVersion, [...chain.ws.namespaces.entries()], crds]);
  frames.set(chain.ws.namespaces, { discovery: chain.discovery, version: chain.kubernetesVersion, frame });
  return frame;
}

/** A chain compiled for lean verdicts; `registry` shared by the chains whose requests go out together. */
export function leanChain(chain: PreparedChain, registry: LeanRegistry = new Map()): LeanChain {
  const frame = frameOf(chain);
  const config = configOf(chain);
  const alike = recent.find(
    (r) => r.registry === registry && r.lc.frame === frame && r.lc.config.length === config.length && r.lc.config.every((x, i) => x === config[i]),
  );
  if (alike) return { ...alike.lc, chain };
  const lc = compile(chain, registry, frame, config);
  recent.unshift({ registry, lc });
  recent.length = Math.min(recent.length, RECENT);
  return lc;
}

function compile(chain: PreparedChain, registry: LeanRegistry, frame: string, config: unknown[]): LeanChain {
  const version = chain.kubernetesVersion;
  const item = (expression: string, context: CelContext, options: CelCompileOptions): CelBatchItem => {
    const withRelease: CelCompileOptions = { ...options, kubernetesVersion: version as KubernetesVersion };
    const key = `${context}\u0000${expression}\u0000${JSON.stringify(withRelease)}`;
    let it = registry.get(key);
    // an item without variables joins the one group of the request's batch: the engine evaluates
    // consecutive ones that bind alike on one activation (the object converted once, not per
    // item); each keeps its own cost; past the group's one budget the answers are errors, which
    // the full run decides (README.md, Lean verdicts)
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
    const { options, hasParams } = policyOptions(spec);
    const validations = list(spec.validations).map(obj);
    return {
      p,
      spec,
      params: hasParams,
      bindings: p.bindings.map((b) => {
        const bspec = obj(obj(withDefaults(b.binding)).spec);
        return {
          name: b.name,
          actions: strList(bspec.validationActions),
          ...(isObject(bspec.matchResources) ? { matchResources: bspec.matchResources } : {}),
          spec: bspec,
        };
      }),
      conditions: list(spec.matchConditions).map((c) => item(str(obj(c).expression), 'vap-matchCondition', options)),
      specs: validations,
      validations: validations.map((v) => item(str(v.expression), 'vap-validation', options)),
      messages: validations.map((v) => (str(v.messageExpression) ? item(str(v.messageExpression), 'vap-messageExpression', options) : undefined)),
      audits: list(spec.auditAnnotations).map((a) => ({ key: str(obj(a).key), item: item(str(obj(a).valueExpression), 'vap-auditAnnotation', options) })),
    };
  });
  const mutatingPolicies = chain.ws.policies.mutating
    .filter((p) => p.bindings.length > 0)
    .map((p): LeanMutatingPolicy => {
      const spec = obj(obj(withDefaults(p.policy)).spec);
      const { options, hasParams } = policyOptions(spec);
      return {
        p,
        spec,
        params: hasParams,
        bindings: p.bindings.map((b) => {
          const bspec = obj(obj(withDefaults(b.binding)).spec);
          return { name: b.name, ...(isObject(bspec.matchResources) ? { matchResources: bspec.matchResources } : {}), spec: bspec };
        }),
        conditions: list(spec.matchConditions).map((c) => item(str(obj(c).expression), 'map-matchCondition', options)),
        mutations: list(spec.mutations).map((m) => {
          const patchType = str(obj(m).patchType);
          const json = patchType === 'JSONPatch';
          const expression = str(obj(json ? obj(m).jsonPatch : obj(m).applyConfiguration).expression);
          return { patchType, item: item(expression, json ? 'map-jsonPatch' : 'map-applyConfiguration', options) };
        }),
      };
    });
  const matchers: Obj[] = [
    ...chain.ws.webhooks.mutating.map((h) => h.webhook),
    ...chain.ws.webhooks.validating.map((h) => h.webhook),
    ...[...policies, ...mutatingPolicies].flatMap((lp) => [
      obj(lp.spec.matchConstraints),
      ...lp.bindings.flatMap((b) => (b.matchResources === undefined ? [] : [obj(b.matchResources)])),
    ]),
  ];
  // a selector reads labels unless matching finds it empty (absent or {}: it matches everything, as the apiserver's defaults make it)
  const selective = (sel: unknown) => {
    const m = matchLabelSelector(sel, {});
    return !(m.ok && m.empty);
  };
  // the labels a selector reads: its matchLabels' keys and its expressions' (matchLabelSelector)
  const keysOf = (sel: unknown): string[] =>
    isObject(sel) ? [...Object.keys(obj(sel.matchLabels)), ...list(sel.matchExpressions).map((e) => str(obj(e).key))] : [];
  const labelKeys = [...new Set(matchers.flatMap((m) => [...keysOf(m.namespaceSelector), ...keysOf(m.objectSelector)]))].sort();
  const named = (rules: unknown) => list(rules).some((r) => list(obj(r).resourceNames).length > 0);
  return {
    chain,
    mutating: hooks(chain.ws.webhooks.mutating),
    validating: hooks(chain.ws.webhooks.validating),
    policies,
    mutatingPolicies,
    frame,
    config,
    reads: {
      labels: matchers.some((m) => selective(m.namespaceSelector) || selective(m.objectSelector)),
      name: matchers.some((m) => named(m.resourceRules) || named(m.excludeResourceRules) || named(m.rules)),
      labelKeys,
    },
  };
}
