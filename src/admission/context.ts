/**
 * One simulation's state as the admission chain runs: the request's attributes (the object as
 * mutated so far), the workspace, discovery, the CEL engine, and what the chain has produced
 * (steps, warnings, audit annotations, patches, the denial). The plugins (policies.ts,
 * webhooks.ts) read and extend it; simulate.ts runs them in the apiserver's order.
 */
import type { AuthorizerRule } from '../cel/types';
import { str } from '../base/json';
import { isAdmitted, markAdmitted, sameShape } from '../k8s/typed';
import { releaseOf, type GroupResource, type KubernetesVersion } from '../base/releases';
import type { EquivalentResource, MatchInput, PolicyCel } from '../policy';
import type { AdmissionRequest, TestInput } from '../request/model';
import type { Discovery } from './discovery';
import type { DocumentRef, JsonPatchOp, SimDenial, SimOptions, SimStep } from './types';
import type { AdmissionWorkspace } from './workspace';

/** The reinvocation bookkeeping of one plugin (reinvocationcontext.go): keys of invocations. */
export interface ReinvokeState {
  previouslyInvoked: Set<string>;
  reinvoke: Set<string>;
  /** The object when this plugin last finished (undefined: never ran). */
  lastOutput?: { object: unknown };
}

export const newReinvokeState = (): ReinvokeState => ({ previouslyInvoked: new Set(), reinvoke: new Set() });

/** A MutatingAdmissionPolicy's invocation in its plugin's ReinvokeState: the policy with one binding. */
export const invocationKey = (p: { name: string }, b: { name: string }): string => `${p.name}/${b.name}`;

/** RequireReinvokingPreviouslyInvokedPlugins */
export function requireReinvoking(s: ReinvokeState): void {
  for (const k of s.previouslyInvoked) s.reinvoke.add(k);
  s.previouslyInvoked.clear();
}

export interface SimContext {
  ws: AdmissionWorkspace;
  discovery: Discovery;
  cel: PolicyCel;
  options: SimOptions;
  /** The request's attributes (requestAttributes: uid, requestKind, …); its object is `object`, as mutated so far. */
  request: AdmissionRequest;
  object: unknown;
  oldObject: unknown;
  /** requestFor's last plain answer (the request with `object` as it is now). */
  current?: AdmissionRequest;
  /** The request's Namespace (undefined for cluster-scoped requests). */
  namespaceObject?: unknown;
  /** Where that Namespace came from (a workspace document, options, or assumed). */
  namespaceDocument?: DocumentRef;
  /** Built-in kind: objects are typed (decoded into the Go type: `admitted`). */
  typed: boolean;
  /**
   * An object of the request's kind as the apiserver decodes it again after a mutation (a
   * webhook's patch, a MutatingAdmissionPolicy's): src/k8s/typed apiserverObject for built-in
   * kinds (typed, defaulted), the object itself for custom resources. `from`: the admitted object
   * `object` was patched from, whose unchanged parts are not decoded again.
   */
  admitted: (object: unknown, from?: unknown) => unknown;
  /** `admitted`, with what the apiserver's decoder refuses in it that the request's own object did not have (a number where the Go type has a string): such a mutation fails the request. */
  decoded: (object: unknown, from?: unknown) => { object: unknown; problems: readonly string[] };
  dryRun: boolean;
  authorizer: AuthorizerRule[];
  round: 0 | 1;
  /** The chain asked for a second round (a mutation changed the object). */
  shouldReinvoke: boolean;
  reinvoke: { policies: ReinvokeState; webhooks: ReinvokeState };
  steps: SimStep[];
  /** With SimOptions.trace: each webhook's traced matchConditions (by uid), for its step. */
  webhookExpressions?: Map<string, NonNullable<SimStep['expressions']>>;
  warnings: string[];
  auditAnnotations: Record<string, string>;
  /** `mutator`: who applied it (actorOf). */
  patches: { by: string; ops: JsonPatchOp[]; mutator: string }[];
  notes: string[];
  denied?: SimDenial;
  /** Lockout probing: a rejection is recorded in its step and the chain goes on (as if that one had answered). */
  probe: boolean;
}

/**
 * Why a plugin is not called for this request at the target release, or undefined: the
 * resources its release row excludes (k8s.io/apiserver: the policy plugins' and, with
 * ExcludeAdmissionWebhookVirtualResources, the webhook plugins' Dispatch return at once for
 * exclusion.Excluded(), whatever the version or subresource).
 */
export function excludedBy(ctx: SimContext, plugins: 'webhooks' | 'policies'): string | undefined {
  const row = releaseOf(ctx.options.kubernetesVersion);
  const excluded: readonly GroupResource[] = plugins === 'webhooks' ? row.chain.webhookExcludedResources : row.chain.policyExcludedResources;
  const group = str(ctx.request.resource?.group);
  const resource = str(ctx.request.resource?.resource);
  if (!excluded.some((gr) => gr.group === group && gr.resource === resource)) return undefined;
  const why = plugins === 'webhooks' ? 'admission webhooks (gate ExcludeAdmissionWebhookVirtualResources is on)' : 'admission policies';
  return `${group}/${resource} is a review resource: the Kubernetes ${row.version} apiserver never sends it to ${why}`;
}

/** A plugin rejects the request: true when the chain stops here (not while probing). */
export function reject(ctx: SimContext, denial: SimDenial): boolean {
  if (ctx.probe) return false;
  ctx.denied ??= denial;
  return true;
}

/**
 * The request as the chain has it now: the attributes with the object as mutated so far
 * (`object`), converted to an equivalent resource (matchPolicy Equivalent) when one matched.
 */
export function requestFor(ctx: SimContext, matched?: EquivalentResource, object: unknown = ctx.object): AdmissionRequest {
  // the common case (every webhook and policy matched against the object as it is) builds one request per mutation
  const plain = !matched && object === ctx.object;
  if (plain && ctx.current && ctx.current.object === object) return ctx.current;
  const r: AdmissionRequest = { ...ctx.request, object: objectFor(object, matched), oldObject: objectFor(ctx.oldObject, matched) };
  if (matched) {
    r.resource = matched.resource;
    if (matched.kind.kind) r.kind = matched.kind;
  }
  if (plain) ctx.current = r;
  return r;
}

/** The test input of the request as the chain has it now (see requestFor): what matching and CEL read. */
export function inputFor(ctx: SimContext, matched?: EquivalentResource, object?: unknown): TestInput {
  return { request: requestFor(ctx, matched, object), namespaceObject: ctx.namespaceObject, authorizer: ctx.authorizer };
}

/**
 * Whether converting the request's object to an equivalent resource's version changes only its
 * apiVersion at the apiserver, as objectFor does: the same version, two built-in kinds of the same
 * fields (sameShape), or a custom resource whose CustomResourceDefinition converts with strategy
 * None. Not for versions whose fields differ (autoscaling/v1 and v2 HorizontalPodAutoscalers,
 * core and events.k8s.io Events) nor for a conversion webhook's.
 */
export function convertsExactly(ctx: Pick<SimContext, 'request' | 'discovery' | 'options'>, matched: EquivalentResource): boolean {
  const from = ctx.request.kind;
  const to = matched.kind;
  if (!to.kind || !from) return !to.kind && from?.group === matched.resource.group && from?.version === matched.resource.version;
  if (from.group === to.group && from.version === to.version) return true;
  const info = ctx.discovery.lookup(matched.resource).info;
  if (info?.custom) return !info.conversionWebhook;
  return sameShape(from, to, releaseOf(ctx.options.kubernetesVersion).version as KubernetesVersion);
}

/**
 * Marks a step of a webhook or policy matched through an equivalent resource of another version:
 * the apiserver hands it the object converted to that version (matchPolicy Equivalent). Where the
 * simulator's conversion is not the apiserver's (convertsExactly), the step read the request's own
 * fields and says so; the impact replay counts such a decision undetermined.
 */
export function noteConversion(ctx: SimContext, s: SimStep, matched: EquivalentResource | undefined): void {
  if (!matched) return;
  const to = matched.resource.group ? `${matched.resource.group}/${matched.resource.version}` : matched.resource.version;
  const exact = convertsExactly(ctx, matched);
  s.conversion = { to, exact };
  const from = ctx.request.kind;
  s.notes = [
    ...(s.notes ?? []),
    exact
      ? `matched through the equivalent ${to} ${matched.resource.resource}: the object converted to ${to} (only its apiVersion changes between the two)`
      : `matched through the equivalent ${to} ${matched.resource.resource}: the apiserver converts the object to ${to}, whose fields differ from ${from?.group ? `${from.group}/` : ''}${from?.version ?? 'the request'}'s; here only its apiVersion is changed, so this step read the request's own fields`,
  ];
}

/** The object converted to an equivalent resource's version: only its apiVersion changes here (convertsExactly says when that is the apiserver's conversion). */
export function objectFor(object: unknown, matched?: EquivalentResource): unknown {
  if (!matched?.kind.kind || typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const { group, version } = matched.kind;
  // only the apiVersion changes: still the object as decoded (not decoded again as the other version)
  const out = { ...(object as Record<string, unknown>), apiVersion: group ? `${group}/${version}` : version };
  return isAdmitted(object) ? markAdmitted(out) : out;
}

export function matchInput(ctx: SimContext): MatchInput {
  return { request: requestFor(ctx), namespaceObject: ctx.namespaceObject, equivalents: ctx.discovery.equivalents };
}

/** The qualified resource of apierrors messages: `pods`, `deployments.apps`. */
const groupResource = (ctx: SimContext): string => {
  const r = ctx.request.resource ?? {};
  return r.group ? `${r.resource}.${r.group}` : str(r.resource);
};

/** apierrors.NewForbidden(resource, name, err).Error() */
export function forbiddenMessage(ctx: SimContext, err: string): string {
  const name = str(ctx.request.name);
  return name ? `${groupResource(ctx)} "${name}" is forbidden: ${err}` : `${groupResource(ctx)} is forbidden: ${err}`;
}

/** Who changed the object or warned, as the report names a webhook or a policy binding: `MutatingWebhookConfiguration inject/inject.example.com`, `MutatingAdmissionPolicy add-team/add-team`. */
export const actorOf = (kind: string, name: string, webhookOrBinding: string): string => `${kind} ${name}/${webhookOrBinding}`;

/**
 * What the apiserver's decoder refuses in a mutated object of a built-in kind (`decoded`): a
 * mutation whose result does not decode fails. A custom resource is decoded as unstructured JSON
 * there (what its metadata breaks, validation refuses after admission, which is not modelled).
 */
export const decodeProblems =
  (ctx: Pick<SimContext, 'decoded' | 'typed'>) =>
  (object: unknown): readonly string[] =>
    ctx.typed ? ctx.decoded(object).problems : [];

/** Who warned in a run: each step with warnings (a webhook, a policy's binding), named as actorOf names it. */
export const warnersOf = (steps: readonly Pick<SimStep, 'kind' | 'name' | 'webhook' | 'binding' | 'warnings'>[]): string[] =>
  steps.filter((s) => s.warnings?.length).map((s) => actorOf(s.kind, s.name, s.webhook ?? s.binding ?? ''));
