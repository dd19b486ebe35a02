/**
 * simulate(objects, request, options?): a request through the workspace's admission chain in the
 * kube-apiserver's plugin order (mutating policies and webhooks, a reinvocation round, then the
 * validating ones on the mutated object); a plugin that rejects ends it. Never throws; never
 * changes its inputs. The order and what is not modelled: README.md ("The chain").
 */
import { evaluate, evaluateBatch } from '../cel';
import { cloneJson, deepEqual, isObject, obj, str, type Obj } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { spliceBetween } from '../base/splice';
import { NAMESPACE_NAME_LABEL } from '../k8s/resources';
import { apiserverObject, isBuiltInKind, loadTypedData } from '../k8s/typed';
import { effectiveStaticOrder, type StaticOrder } from '../k8s/static-manifests';
import { notModelledNotes } from './not-modelled';
import type { PolicyCel } from '../policy';
import { isNamespaceResource, requestAttributes } from '../request/cel-inputs';
import type { AdmissionRequest } from '../request/model';
import { newReinvokeState, type SimContext } from './context';
import { isMemoCel, memoCel } from './engine';
import { discoveryFor, gvString, notServedText, type Discovery } from './discovery';
import { runMutatingPolicies, runValidatingPolicies } from './policies';
import { markConditional, runConditionsEnforcer } from './conditions';
import type { DocumentRef, SimOptions, SimPhase, SimRequest, SimResult } from './types';
import { runMutatingWebhooks, runValidatingWebhooks } from './webhooks';
import { collectWorkspace, policyKindOf, type AdmissionWorkspace } from './workspace';

const NAMESPACE_KIND = { group: '', version: 'v1', kind: 'Namespace' };

/**
 * A Namespace as admission reads it from its informer (the typed object), one per Namespace
 * document and release: the requests of a replay share it, so the engine's memo finds their
 * inputs by identity instead of by their JSON.
 */
const namespaces = new WeakMap<object, Map<KubernetesVersion, unknown>>();
function decodedNamespace(ns: unknown, release: KubernetesVersion): unknown {
  if (!isObject(ns)) return ns;
  let byRelease = namespaces.get(ns);
  if (!byRelease) namespaces.set(ns, (byRelease = new Map()));
  if (!byRelease.has(release)) byRelease.set(release, apiserverObject(ns, release, NAMESPACE_KIND).object);
  return byRelease.get(release);
}

const defaultCel: PolicyCel = {
  evaluate: (expression, context, inputs, options) => evaluate(expression, context, inputs, options),
  evaluateBatch: (items, inputs) => evaluateBatch(items, inputs),
};

const MAX_CHANGED = 3;

/** Where the decoded object does not keep a value the client sent (dropped or rewritten; added defaults aside), as paths. */
function changedPaths(sent: unknown, decoded: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= MAX_CHANGED) return out;
  if (isObject(sent) && isObject(decoded)) {
    for (const k of Object.keys(sent)) changedPaths(sent[k], decoded[k], path ? `${path}.${k}` : k, out);
  } else if (Array.isArray(sent) && Array.isArray(decoded) && sent.length === decoded.length) {
    sent.forEach((x, i) => changedPaths(x, decoded[i], `${path}[${i}]`, out));
  } else if (!deepEqual(sent, decoded) && sent !== undefined) out.push(`\`${path}\``);
  return out;
}

/** A Namespace as the apiserver stores it: always labelled with its own name. */
function withNameLabel(ns: Obj, name: string): Obj {
  const md = obj(ns.metadata);
  const labels = obj(md.labels);
  if (labels[NAMESPACE_NAME_LABEL] === name) return ns;
  return { ...ns, metadata: { ...md, labels: { ...labels, [NAMESPACE_NAME_LABEL]: name } } };
}

/** The request's attributes (src/request requestAttributes) without object / oldObject, as the apiserver's request info fills them. */
function attributesOf(request: SimRequest, notes: string[]): AdmissionRequest {
  const { object: _object, oldObject: _oldObject, ...attrs } = requestAttributes(request);
  const r: AdmissionRequest = { ...attrs, userInfo: request.userInfo ?? { username: '' }, dryRun: !!request.dryRun };
  const name = str(request.name);
  // the apiserver's request info: for /api/v1/namespaces/<name> the namespace is the name
  if (isNamespaceResource(r) && request.operation !== 'CREATE' && name && !r.namespace) {
    r.namespace = name;
    notes.push(`a request on the Namespace '${name}' carries namespace '${name}' (the apiserver sets it from the path)`);
  }
  return r;
}

/** Notes about the request that a real apiserver would not let through as given, or that we had to assume. */
function checkRequest(r: AdmissionRequest, discovery: Discovery, notes: string[]): { typed: boolean } {
  const gvr = { group: str(r.resource?.group), version: str(r.resource?.version), resource: str(r.resource?.resource) };
  if (!gvr.resource || !gvr.version) {
    notes.push('the request names no resource (resource.version and resource.resource are required): nothing can match it');
    return { typed: false };
  }
  const { info, unserved } = discovery.lookup(gvr);
  const label = `${gvString(gvr)} ${gvr.resource}`;
  if (!info) {
    notes.push(
      unserved
        ? notServedText(label, unserved, discovery.minor)
        : `${label} is neither a built-in resource of Kubernetes 1.${discovery.minor} nor defined by a CustomResourceDefinition in the workspace: its scope is taken from the request and matchPolicy Equivalent finds no equivalents`,
    );
    return { typed: false };
  }
  const ns = str(r.namespace);
  if (info.namespaced && !ns) notes.push(`${label} is namespaced, but the request has no namespace`);
  if (!info.namespaced && ns && gvr.resource !== 'namespaces') notes.push(`${label} is cluster-scoped, but the request has namespace '${ns}'`);
  const k = r.kind ?? {};
  if (!r.subResource && (k.kind !== info.kind || str(k.group) !== info.group)) {
    notes.push(`${label} holds kind ${info.kind}, but the request says ${str(k.kind) || '(none)'}`);
  }
  return { typed: !info.custom };
}

/** The request's Namespace: from options, the workspace, the request itself, or assumed. */
function namespaceOfRequest(
  r: AdmissionRequest,
  ws: AdmissionWorkspace,
  extra: readonly unknown[],
  object: unknown,
  oldObject: unknown,
  notes: string[],
): { object?: Obj; document?: DocumentRef } {
  const name = str(r.namespace);
  if (!name) return {};
  // options.namespaces take precedence over the workspace's (the last of equal names wins, as collectWorkspace had it)
  let given: Obj | undefined;
  for (const o of extra) if (isObject(o) && str(obj(o.metadata).name) === name) given = o;
  const found = given ? { object: given, document: { kind: 'Namespace', name, index: -1 } } : ws.namespaces.get(name);
  if (found) return { object: withNameLabel(found.object, name), document: found.document };
  const own = isNamespaceResource(r) ? (isObject(object) ? object : isObject(oldObject) ? oldObject : undefined) : undefined;
  if (own) return { object: withNameLabel(own, name) };
  notes.push(
    `namespace '${name}' is not in the workspace: assumed to exist with only the label ${NAMESPACE_NAME_LABEL}=${name} (add a Namespace document to match namespaceSelectors on its labels)`,
  );
  return { object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [NAMESPACE_NAME_LABEL]: name } } } };
}

function orphanSteps(ctx: SimContext, phase: SimPhase): void {
  for (const b of ctx.ws.orphanBindings) {
    const kind = policyKindOf(b.kind);
    if ((phase === 'mutating') !== (kind === 'MutatingAdmissionPolicy')) continue;
    ctx.steps.push({
      phase,
      kind,
      name: b.policyName,
      binding: b.name,
      outcome: 'skipped',
      reason: `binding '${b.name}' names ${kind} '${b.policyName}', which is not in the workspace: the apiserver ignores the binding`,
      document: b.document,
      path: 'spec.policyName',
      round: 0,
    });
  }
}

/**
 * A chain prepared once for many requests: the workspace collected (sorted, defaulted, bindings
 * joined to their policies) and the release's discovery built. `simulate`/`probe` on the same
 * objects and release prepare it per call; `simulatePrepared`/`probePrepared` reuse it (the
 * impact replay: hundreds of thousands of requests through two chains).
 */
export interface PreparedChain {
  objects: readonly unknown[];
  ws: AdmissionWorkspace;
  discovery: Discovery;
  kubernetesVersion: KubernetesVersion;
}

export function prepareChain(
  objects: readonly unknown[],
  options: { kubernetesVersion?: KubernetesVersion; staticDocuments?: readonly number[]; staticOrder?: StaticOrder } = {},
): PreparedChain {
  const list = Array.isArray(objects) ? objects : [];
  const kubernetesVersion = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const staticOrder = effectiveStaticOrder(kubernetesVersion, options.staticOrder);
  const staticKey = `${(options.staticDocuments ?? []).join(',')}|${staticOrder}`;
  const alike = recentChains.find(
    (r) => r.staticKey === staticKey && r.chain.kubernetesVersion === kubernetesVersion && onlyParamsDiffer(r.chain.objects, list),
  );
  if (alike) {
    const chain = { ...alike.chain, objects: list, ws: { ...alike.chain.ws, documents: list } };
    // first from now on: the log's next chain is noted as a change to this one (base/splice.ts)
    recentChains.splice(recentChains.indexOf(alike), 1);
    recentChains.unshift({ chain, staticKey });
    return chain;
  }
  const statics = new Set(options.staticDocuments ?? []);
  const chain = {
    objects: list,
    ws: collectWorkspace(list, [], (i) => statics.has(i), staticOrder),
    discovery: discoveryFor(list, kubernetesVersion),
    kubernetesVersion,
  };
  recentChains.unshift({ chain, staticKey });
  recentChains.length = Math.min(recentChains.length, 4);
  return chain;
}

/**
 * The chains prepared last. The impact replay prepares its chains again each time the log writes
 * a param: thousands of objects, the admission objects the same.
 */
const recentChains: { chain: PreparedChain; staticKey: string }[] = [];
/** What collectWorkspace and discoveryFor read of an object: its kind, when it is one of these. */
const COLLECTED = new Set([
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'MutatingAdmissionPolicy',
  'ValidatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'ValidatingAdmissionPolicyBinding',
  'Namespace',
  'CustomResourceDefinition',
]);
/**
 * Two lists that differ only where neither holds an object collected above (a param written in
 * place), `b` perhaps longer by objects none of which is collected (a param created: the impact
 * replay adds it at the end): the same workspace and discovery, as the collected objects keep
 * their indices.
 */
function onlyParamsDiffer(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (b.length < a.length) return false;
  // the change noted where `b` was made (base/splice.ts): elements outside it are a's, at the same index
  const known = spliceBetween(a, b);
  const same = known && (known.tail === 0 || a.length === b.length) ? known : { keep: 0, tail: 0 };
  for (let i = same.keep; i < a.length - same.tail; i++) {
    const x = a[i];
    const y = b[i];
    if (x !== y && (!isObject(x) || !isObject(y) || COLLECTED.has(str(x.kind)) || COLLECTED.has(str(y.kind)))) return false;
  }
  for (let i = a.length; i < b.length - same.tail; i++) {
    const y = b[i];
    if (!isObject(y) || COLLECTED.has(str(y.kind))) return false;
  }
  return true;
}

/**
 * A request as the chain's plugins see it, before any plugin ran: its attributes, the object and
 * old object as the apiserver decodes them, its Namespace. Reads only the chain's Namespaces and
 * discovery (lean.ts shares one between chains whose Namespaces and CustomResourceDefinitions agree).
 * `explain: false` (lean.ts) leaves out the note comparing the object with its decoded form.
 */
export function contextOf(chain: PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel, probing: boolean, explain = true): SimContext {
  const notes: string[] = [];
  const { ws, discovery } = chain;
  const attrs = attributesOf(request, notes);
  const { typed } = checkRequest(attrs, discovery, notes);
  // built-in kinds are decoded into their Go types (defaulted) before admission; custom resources are the JSON as sent
  const kind = attrs.kind?.kind && attrs.kind.version ? { group: str(attrs.kind.group), version: attrs.kind.version, kind: attrs.kind.kind } : undefined;
  // a custom resource's metadata is coerced through ObjectMeta too (apiserverObject); a kind the release does not serve is left as sent
  const decodeKind = kind && (typed || !isBuiltInKind(kind, chain.kubernetesVersion)) ? kind : undefined;
  const decode = (o: unknown) => (decodeKind ? apiserverObject(o, chain.kubernetesVersion, decodeKind) : { object: cloneJson(o), problems: [] as string[] });
  const decoded = decode(request.object);
  let object = decoded.object;
  const decodedOld = decode(request.oldObject);
  const oldObject = decodedOld.object;
  if (explain) {
    for (const [what, d] of [
      ['object', decoded],
      ['oldObject', decodedOld],
    ] as const)
      if (d.problems.length) notes.push(`the apiserver would refuse to decode the ${what} (400 Bad Request before admission): ${d.problems.join('; ')}`);
    const changed = typed ? changedPaths(request.object, object) : [];
    if (changed.length)
      notes.push(
        `the apiserver decodes the object into its Go type before admission, defaults it and encodes that, so admission sees ${changed.join(', ')}${changed.length === MAX_CHANGED ? ', …' : ''} otherwise than sent (empty maps and lists such as \`labels: {}\` and unknown fields are dropped, quantities are canonical; fields Go always writes stay, \`rules: null\` too; defaults are added)`,
      );
  }
  if (isNamespaceResource(attrs) && !attrs.subResource && isObject(object) && str(attrs.name || obj(object.metadata).name))
    object = withNameLabel(object, str(attrs.name || obj(object.metadata).name));
  const ns = namespaceOfRequest(attrs, ws, options.namespaces ?? [], object, oldObject, notes);
  if ((request.operation === 'CREATE' || request.operation === 'UPDATE') && !isObject(object) && !attrs.subResource) {
    notes.push(`a ${request.operation} request without an object: CEL sees object as null and webhook patches fail`);
  }
  const ctx: SimContext = {
    ws,
    discovery,
    cel,
    options,
    request: attrs,
    object,
    oldObject,
    namespaceObject: decodedNamespace(ns.object, chain.kubernetesVersion),
    namespaceDocument: ns.document,
    typed,
    admitted: (o, from) => (decodeKind ? apiserverObject(o, chain.kubernetesVersion, decodeKind, from).object : o),
    decoded: (o, from) => {
      if (!decodeKind) return { object: o, problems: [] };
      const d = apiserverObject(o, chain.kubernetesVersion, decodeKind, from);
      // what the request's own object had is the apiserver's 400 before admission (noted), not the mutation's
      return { object: d.object, problems: d.problems.filter((p) => !decoded.problems.includes(p)) };
    },
    dryRun: !!request.dryRun,
    authorizer: options.authorizer ?? [],
    round: 0,
    shouldReinvoke: false,
    reinvoke: { policies: newReinvokeState(), webhooks: newReinvokeState() },
    steps: [],
    warnings: [],
    auditAnnotations: {},
    patches: [],
    notes,
    probe: probing,
  };
  return ctx;
}

/** The mutating plugins in order, with the reinvocation round: what `run` does before the validating ones (and the lean path, ./lean.ts, where a mutation may change the object). */
async function mutatingPhase(ctx: SimContext): Promise<void> {
  /** After a policy plugin: while probing, its rejections stay in its steps and the chain goes on. */
  const settlePlugin = () => {
    if (ctx.probe) ctx.denied = undefined;
  };
  orphanSteps(ctx, 'mutating');
  await runMutatingPolicies(ctx);
  settlePlugin();
  if (!ctx.denied) await runMutatingWebhooks(ctx);
  if (!ctx.denied && ctx.shouldReinvoke) {
    ctx.round = 1;
    await runMutatingPolicies(ctx);
    settlePlugin();
    if (!ctx.denied) await runMutatingWebhooks(ctx);
  }
  ctx.round = 0;
}

/**
 * A request's context after the mutating plugins (the full run's own, with its steps, warnings,
 * audit annotations and patches): the lean path (./lean.ts) decides the validating plugins on its
 * object. `probing`: as the probe runs them (a rejection does not end the chain). Without the
 * notes that explain the request.
 */
export async function mutatedContext(
  chain: PreparedChain,
  request: SimRequest,
  options: SimOptions,
  cel: PolicyCel,
  probing = false,
  base?: SimContext,
): Promise<SimContext> {
  await loadTypedData(chain.kubernetesVersion);
  const opts = { ...options, kubernetesVersion: chain.kubernetesVersion };
  const memo = isMemoCel(cel) ? cel : memoCel(cel, chain.kubernetesVersion);
  const ctx = base ? freshContext(base, chain, memo, probing) : contextOf(chain, request, opts, memo, probing, false);
  await mutatingPhase(ctx);
  return ctx;
}

/**
 * A context for `chain` with nothing run yet, from `base`: the same request, decoded object and
 * Namespace (contextOf's, made for a chain whose Namespaces and CustomResourceDefinitions agree:
 * lean.ts's frames), without decoding them again.
 */
export function freshContext(base: SimContext, chain: PreparedChain, cel: PolicyCel, probing: boolean): SimContext {
  const { current: _current, denied: _denied, webhookExpressions: _traced, ...same } = base;
  return {
    ...same,
    ws: chain.ws,
    discovery: chain.discovery,
    cel,
    round: 0,
    shouldReinvoke: false,
    reinvoke: { policies: newReinvokeState(), webhooks: newReinvokeState() },
    steps: [],
    warnings: [],
    auditAnnotations: {},
    patches: [],
    notes: [],
    probe: probing,
  };
}

async function run(chain: PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel, probing: boolean): Promise<SimResult> {
  await loadTypedData(chain.kubernetesVersion);
  const ctx = contextOf(chain, request, options, cel, probing);
  const admitted = ctx.object;
  const { notes } = ctx;
  /** After a policy plugin: while probing, its rejections stay in its steps and the chain goes on. */
  const settlePlugin = () => {
    if (probing) ctx.denied = undefined;
  };

  markConditional(ctx);
  await mutatingPhase(ctx);
  if (!ctx.denied) {
    orphanSteps(ctx, 'validating');
    await runValidatingPolicies(ctx);
    settlePlugin();
    if (ctx.denied) notes.push('a ValidatingAdmissionPolicy rejected the request: validating webhooks are not called');
    else {
      runConditionsEnforcer(ctx);
      settlePlugin();
      if (!ctx.denied) await runValidatingWebhooks(ctx);
    }
  }
  notes.push(...notModelledNotes(request, ctx.steps));
  const result: SimResult = {
    allowed: !ctx.denied,
    warnings: ctx.warnings,
    auditAnnotations: ctx.auditAnnotations,
    object: ctx.object,
    admitted,
    patches: ctx.patches,
    steps: ctx.steps,
    notes,
  };
  if (ctx.denied) result.deniedBy = ctx.denied;
  return result;
}

/**
 * Sends `request` through the admission chain of `objects` (webhook configurations, policies,
 * bindings, params, Namespaces, CustomResourceDefinitions; other documents are param
 * candidates only). `cel` defaults to the shared engine (src/cel).
 */
export function simulate(objects: readonly unknown[], request: SimRequest, options: SimOptions = {}, cel: PolicyCel = defaultCel): Promise<SimResult> {
  return safeRun(() => prepareChain(objects, options ?? {}), request, options, cel, false);
}

/**
 * The engine as one request's runs share it: pass it as `cel` to several simulatePrepared /
 * probePrepared calls of the same request (both chains, their probes) and an expression evaluated
 * on equal inputs goes to the engine once. One per request: it remembers every answer.
 */
export const requestCel = (kubernetesVersion?: KubernetesVersion, cel: PolicyCel = defaultCel): PolicyCel => memoCel(cel, kubernetesVersion);

/** simulate on a chain prepared once; `options.kubernetesVersion` is the chain's. */
export function simulatePrepared(chain: PreparedChain, request: SimRequest, options: SimOptions = {}, cel: PolicyCel = defaultCel): Promise<SimResult> {
  return safeRun(() => chain, request, { ...options, kubernetesVersion: chain.kubernetesVersion }, cel, false);
}

/**
 * For the lockout report: like simulate, but a rejection does not end the chain: every step
 * that would reject the request (were the ones before it to answer) says so, in one run.
 * `allowed` is false when any step rejected.
 */
export function probe(objects: readonly unknown[], request: SimRequest, options: SimOptions = {}, cel: PolicyCel = defaultCel): Promise<SimResult> {
  return probeRun(() => prepareChain(objects, options ?? {}), request, options, cel);
}

/** probe on a chain prepared once; `options.kubernetesVersion` is the chain's. */
export function probePrepared(chain: PreparedChain, request: SimRequest, options: SimOptions = {}, cel: PolicyCel = defaultCel): Promise<SimResult> {
  return probeRun(() => chain, request, { ...options, kubernetesVersion: chain.kubernetesVersion }, cel);
}

async function probeRun(chain: () => PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel): Promise<SimResult> {
  const r = await safeRun(chain, request, options, cel, true);
  if (r.steps.some((s) => s.outcome === 'denied' || s.outcome === 'error-rejected')) r.allowed = false;
  return r;
}

async function safeRun(chain: () => PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel, probing: boolean): Promise<SimResult> {
  try {
    return await run(chain(), request, options ?? {}, isMemoCel(cel) ? cel : memoCel(cel, options?.kubernetesVersion), probing);
  } catch (e) {
    return {
      allowed: false,
      warnings: [],
      auditAnnotations: {},
      object: request?.object,
      patches: [],
      steps: [],
      notes: [`the simulation failed: ${e instanceof Error ? e.message : String(e)}`],
    };
  }
}
