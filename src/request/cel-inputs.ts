/**
 * What CEL sees of a request: the one function (`celInputs`) that every evaluation uses — the
 * CEL editor's Test areas, matchConditions, policy runs and the simulator's webhooks and
 * policies. Plain data in, one plain object out (no closures), so a replay of thousands of
 * requests builds one small object per evaluation.
 */
import type { AuthorizerRule, CelInputs } from '../cel/types';
import type { AdmissionRequest, TestInput } from './model';

/** The uid of a request that did not name one (the apiserver always sends one). */
export const REQUEST_UID = '00000000-0000-0000-0000-000000000000';

/**
 * The request as the apiserver's attributes carry it: a uid, and requestKind / requestResource /
 * requestSubResource equal to kind / resource / subResource unless the request says otherwise.
 * The same object when nothing is missing.
 */
export function requestAttributes(r: AdmissionRequest): AdmissionRequest {
  if (r.uid !== undefined && r.requestKind && r.requestResource && (r.requestSubResource !== undefined || r.subResource === undefined)) return r;
  const out: AdmissionRequest = { uid: r.uid ?? REQUEST_UID, ...r, requestKind: r.requestKind ?? r.kind, requestResource: r.requestResource ?? r.resource };
  if (out.requestSubResource === undefined && r.subResource !== undefined) out.requestSubResource = r.subResource;
  return out;
}

/** `request` as CEL sees it: the attributes without object / oldObject (variables of their own), absent fields left out. */
export function celRequest(r: AdmissionRequest): Record<string, unknown> {
  const attrs = requestAttributes(r) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // once per evaluation's inputs: a key loop, not Object.entries' array of pairs (a third of the time)
  for (const k in attrs) {
    if (k === 'object' || k === 'oldObject') continue;
    const v = attrs[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** A request on the `namespaces` resource (core group): its own Namespace is its object. */
export const isNamespaceResource = (r: AdmissionRequest): boolean => (r.resource?.group ?? '') === '' && r.resource?.resource === 'namespaces';

/** A request on a Namespace object (kind v1 Namespace). */
export const isNamespaceKind = (r: AdmissionRequest): boolean => r.kind?.kind === 'Namespace' && r.kind.version === 'v1' && (r.kind.group ?? '') === '';

/** The request namespace's Namespace as CEL sees it: null for cluster-scoped requests and for requests on a Namespace. */
export function celNamespaceObject(input: TestInput): unknown {
  const r = input.request;
  if (!r.namespace || isNamespaceKind(r)) return null;
  return input.namespaceObject ?? null;
}

/** The group whose members the apiserver's authorizer allows everything (user.SystemPrivilegedGroup). */
export const PRIVILEGED_GROUP = 'system:masters';

/**
 * The authorizer CEL's `authorizer` asks for a request: the apiserver's is a union whose first
 * member allows every check by a member of system:masters (pkg/kubeapiserver/authorizer
 * `NewPrivilegedGroups`, before Node, RBAC or webhooks), then the given rules. A check for another
 * principal (`authorizer.serviceAccount(…)`) is not the request's user: the rules answer it.
 */
function authorizerRules(input: TestInput): AuthorizerRule[] {
  const rules = input.authorizer ?? [];
  const user = input.request.userInfo;
  // by the group, as the apiserver's (a rule on the user's name read a trailing `*` as a prefix)
  return user?.groups?.includes(PRIVILEGED_GROUP) ? [{ userGroup: PRIVILEGED_GROUP, decision: 'allow' }, ...rules] : rules;
}

/**
 * The CEL inputs of one evaluation. `params` is the param of the invocation (default: the
 * input's), `object` the object as the mutations so far left it (default: the request's).
 */
export function celInputs(input: TestInput, params: unknown = input.params, object: unknown = input.request.object): CelInputs {
  return {
    object: object ?? null,
    oldObject: input.request.oldObject ?? null,
    params: params ?? null,
    namespaceObject: celNamespaceObject(input),
    request: celRequest(input.request),
    authorizer: { rules: authorizerRules(input) },
  };
}

const cache = new WeakMap<TestInput, CelInputs>();

/** `celInputs` memoised per input object and frozen: the engine (and the views sharing its answers) marshal each input once. */
export function toCelInputs(input: TestInput): CelInputs {
  const hit = cache.get(input);
  if (hit) return hit;
  const inputs = Object.freeze(celInputs(input));
  cache.set(input, inputs);
  return inputs;
}
