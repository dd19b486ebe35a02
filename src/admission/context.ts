/**
 * One simulation's state as the admission chain runs: the request's attributes (the object as
 * mutated so far), the workspace, discovery, the CEL engine, and what the chain has produced
 * (steps, warnings, audit annotations, patches, the denial). The plugins (policies.ts,
 * webhooks.ts) read and extend it; simulate.ts runs them in the apiserver's order.
 */
import type { AuthorizerRule } from '../cel/types';
import type { AdmissionRequestInput, EquivalentResource, MatchInput, PolicyCel } from '../policy';
import type { Discovery } from './discovery';
import type { DocumentRef, JsonPatchOp, SimDenial, SimOptions, SimStep } from './types';
import type { Workspace } from './workspace';

/** The reinvocation bookkeeping of one plugin (reinvocationcontext.go): keys of invocations. */
export interface ReinvokeState {
  previouslyInvoked: Set<string>;
  reinvoke: Set<string>;
  /** The object when this plugin last finished (undefined: never ran). */
  lastOutput?: { object: unknown };
}

export const newReinvokeState = (): ReinvokeState => ({ previouslyInvoked: new Set(), reinvoke: new Set() });

/** RequireReinvokingPreviouslyInvokedPlugins */
export function requireReinvoking(s: ReinvokeState): void {
  for (const k of s.previouslyInvoked) s.reinvoke.add(k);
  s.previouslyInvoked.clear();
}

export interface SimContext {
  ws: Workspace;
  discovery: Discovery;
  cel: PolicyCel;
  options: SimOptions;
  /** The request as the apiserver's attributes carry it (kind/resource = requestKind/requestResource). */
  request: AdmissionRequestInput;
  object: unknown;
  oldObject: unknown;
  /** The request's Namespace (undefined for cluster-scoped requests). */
  namespaceObject?: unknown;
  /** Where that Namespace came from (a workspace document, options, or assumed). */
  namespaceDocument?: DocumentRef;
  /** Built-in kind: objects are typed (serializeTyped applies). */
  typed: boolean;
  dryRun: boolean;
  authorizer: { rules: AuthorizerRule[] };
  round: 0 | 1;
  /** The chain asked for a second round (a mutation changed the object). */
  shouldReinvoke: boolean;
  reinvoke: { policies: ReinvokeState; webhooks: ReinvokeState };
  steps: SimStep[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
  patches: { by: string; ops: JsonPatchOp[] }[];
  notes: string[];
  denied?: SimDenial;
  /** Lockout probing: a rejection is recorded in its step and the chain goes on (as if that one had answered). */
  probe: boolean;
}

/** A plugin rejects the request: true when the chain stops here (not while probing). */
export function reject(ctx: SimContext, denial: SimDenial): boolean {
  if (ctx.probe) return false;
  ctx.denied ??= denial;
  return true;
}

/** The request converted to an equivalent resource (matchPolicy Equivalent), or as it is. */
export function requestFor(ctx: SimContext, matched?: EquivalentResource): AdmissionRequestInput {
  if (!matched) return ctx.request;
  const kind = matched.kind.kind ? matched.kind : ctx.request.kind ?? {};
  return { ...ctx.request, resource: matched.resource, kind };
}

/** The object converted to an equivalent resource's version: only its apiVersion changes here. */
export function objectFor(object: unknown, matched?: EquivalentResource): unknown {
  if (!matched || !matched.kind.kind || typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const { group, version } = matched.kind;
  return { ...(object as Record<string, unknown>), apiVersion: group ? `${group}/${version}` : version };
}

export function matchInput(ctx: SimContext): MatchInput {
  return {
    request: ctx.request,
    object: ctx.object,
    oldObject: ctx.oldObject,
    namespaceObject: ctx.namespaceObject,
    equivalents: ctx.discovery.equivalents,
  };
}

/** `request` as CEL sees it (no object / oldObject; absent fields left out). */
export function celRequest(r: AdmissionRequestInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (v !== undefined) out[k] = v;
  return out;
}
