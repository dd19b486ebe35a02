/**
 * Binding `spec.paramRef` resolution, as generic.CollectParams does it
 * (k8s.io/apiserver pkg/admission/plugin/policy/generic/policy_dispatcher.go), against
 * documents of the policy's paramKind taken from the workspace, or a param typed in.
 *
 * Approximation: the apiserver knows from discovery whether paramKind is namespaced.
 * We take `paramScope` when given; otherwise a param kind is namespaced when any of its
 * documents has `metadata.namespace`, or it is a ConfigMap/Secret, or there are no
 * documents at all; cluster-scoped when all its documents lack a namespace.
 */
import { matchLabelSelector } from './matching';
import { paramCandidates, type ParamCandidates } from './param-index';
import { isObject, labelsOf, nameOf, namespaceOf, obj, str } from '../base/json';

export interface ParamsInput {
  /** A param object typed in by the user: used for every binding that has a paramRef. */
  params?: unknown;
  /** Workspace documents; those of the policy's paramKind are the candidates. */
  paramDocuments?: readonly unknown[];
  /** Whether paramKind is namespaced (see the module comment when absent). */
  paramScope?: 'Namespaced' | 'Cluster';
}

export interface ParamResolution {
  /** none: the policy has no paramKind or the binding no paramRef (params is null). */
  mode: 'none' | 'typed' | 'name' | 'selector';
  /** The params to evaluate with, one evaluation each (`[null]` when mode is none). Empty: nothing is validated. */
  params: unknown[];
  /** Where params were looked for. */
  namespace?: string;
  scope?: 'Namespaced' | 'Cluster';
  /** A configuration error (handled by failurePolicy: `failed to configure binding: <error>`). */
  error?: string;
  detail: string;
  /** The binding's paramRef as written ('' for none), and its parameterNotFoundAction ('' when unset). */
  paramRef?: { by: string; parameterNotFoundAction: string };
  /**
   * mode typed: what the binding's paramRef would have found without the typed params (the
   * typed params replace it for every binding, which changes results: the run says so).
   */
  overridden?: ParamResolution;
}

/** The binding's paramRef in words: `name "x" in namespace "y"`, `selector {…}`. */
function describeParamRef(paramRef: Record<string, unknown>): string {
  const ns = str(paramRef.namespace);
  const by = str(paramRef.name)
    ? `name ${JSON.stringify(str(paramRef.name))}`
    : paramRef.selector !== undefined && paramRef.selector !== null
      ? `selector ${JSON.stringify(paramRef.selector)}`
      : 'neither name nor selector';
  return `${by}${ns ? ` in namespace ${JSON.stringify(ns)}` : ''}`;
}

const KNOWN_NAMESPACED = new Set(['v1/ConfigMap', 'v1/Secret']);

function inferScope(paramKind: Record<string, unknown>, candidates: ParamCandidates): 'Namespaced' | 'Cluster' {
  if (candidates.namespaced) return 'Namespaced';
  if (KNOWN_NAMESPACED.has(`${str(paramKind.apiVersion)}/${str(paramKind.kind)}`)) return 'Namespaced';
  return candidates.all.length > 0 ? 'Cluster' : 'Namespaced';
}

/** The params kinds a chain's policies name (`spec.paramKind`), as `apiVersion/kind`. */
export function paramKinds(chain: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const o of chain) {
    const pk = obj(obj(obj(o).spec).paramKind);
    if (str(pk.kind)) out.add(`${str(pk.apiVersion)}/${str(pk.kind)}`);
  }
  return out;
}

/**
 * Which objects resolveParams may find for the policies and bindings among `admission` (a chain's
 * admission objects): objects of their paramKinds; of a kind whose scope does not depend on which
 * objects exist (ConfigMap, Secret: inferScope), only the names the paramRefs give, unless one
 * selects. A cluster holds thousands of ConfigMaps and its policies read the few they name (the
 * impact replay's chains carry only those). Every paramRef counts, whichever policy it binds: a
 * name too many is read in vain, one too few would be a wrong answer.
 */
export function paramReader(admission: readonly unknown[]): (o: unknown) => boolean {
  const kinds = paramKinds(admission);
  const names = new Set<string>();
  let selects = false;
  for (const o of admission) {
    const ref = obj(obj(o).spec).paramRef;
    if (!isObject(ref)) continue;
    if (ref.selector !== undefined && ref.selector !== null) selects = true;
    else if (str(ref.name)) names.add(str(ref.name));
  }
  return (o) => {
    const key = `${str(obj(o).apiVersion)}/${str(obj(o).kind)}`;
    return kinds.has(key) && (selects || !KNOWN_NAMESPACED.has(key) || names.has(nameOf(o)));
  };
}

/** The documents of one paramKind in `documents` (indexed once per list: param-index.ts). */
function candidatesFor(paramKind: Record<string, unknown>, documents: readonly unknown[]): ParamCandidates {
  const { apiVersion, kind } = paramKind;
  // only strings are indexed: any other apiVersion or kind is matched as written, by ===
  if (typeof apiVersion === 'string' && typeof kind === 'string') return paramCandidates(apiVersion, kind, documents);
  const all = documents.filter((d) => isObject(d) && d.apiVersion === apiVersion && d.kind === kind);
  const inNamespace = (ns: string) => all.filter((d) => namespaceOf(d) === ns);
  return {
    all,
    inNamespace,
    namespaced: all.some((d) => namespaceOf(d) !== ''),
    first: (name, ns) => (ns === undefined ? all : inNamespace(ns)).find((d) => nameOf(d) === name),
  };
}

/** CollectParams for one binding. `requestNamespace` is the request's namespace ('' when cluster-scoped). */
export function resolveParams(policySpec: unknown, bindingSpec: unknown, requestNamespace: string, input: ParamsInput): ParamResolution {
  const paramKind = obj(policySpec).paramKind;
  const paramRef = obj(bindingSpec).paramRef;
  if (!isObject(paramKind)) return { mode: 'none', params: [null], detail: 'the policy has no paramKind: params is not declared' };
  if (!isObject(paramRef)) return { mode: 'none', params: [null], detail: 'the binding has no paramRef: params is null' };
  const denyIfNone = paramRef.parameterNotFoundAction === 'Deny';
  const ref = { by: describeParamRef(paramRef), parameterNotFoundAction: str(paramRef.parameterNotFoundAction) };
  if (input.params !== undefined && input.params !== null) {
    const overridden = resolveParams(policySpec, bindingSpec, requestNamespace, { ...input, params: undefined });
    return {
      mode: 'typed',
      params: [input.params],
      paramRef: ref,
      overridden,
      detail: `the test input's params override the binding's paramRef (${ref.by}); without them: ${overridden.error ?? overridden.detail}`,
    };
  }
  return { ...resolveByRef(paramKind, paramRef, requestNamespace, input, denyIfNone), paramRef: ref };
}

function resolveByRef(
  paramKind: Record<string, unknown>,
  paramRef: Record<string, unknown>,
  requestNamespace: string,
  input: ParamsInput,
  denyIfNone: boolean,
): ParamResolution {
  const notFound = (res: ParamResolution): ParamResolution =>
    res.params.length === 0 && denyIfNone ? { ...res, error: 'no params found for policy binding with `Deny` parameterNotFoundAction' } : res;
  const candidates = candidatesFor(paramKind, input.paramDocuments ?? []);
  const scope = input.paramScope ?? inferScope(paramKind, candidates);
  const refNs = str(paramRef.namespace);
  let namespace: string | undefined;
  if (scope === 'Namespaced') {
    namespace = refNs || requestNamespace;
    if (!namespace) {
      return {
        mode: 'none',
        params: [],
        scope,
        error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
        detail: 'no namespace to look in',
      };
    }
  } else if (refNs) {
    return {
      mode: 'none',
      params: [],
      scope,
      error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`',
      detail: 'cluster-scoped paramKind',
    };
  }
  const inScope = scope === 'Namespaced' ? (candidates.inNamespace(namespace ?? '') ?? []) : candidates.all;
  const where = `${str(paramKind.kind)} ${scope === 'Namespaced' ? `in namespace ${JSON.stringify(namespace)}` : '(cluster-scoped)'}`;
  const name = str(paramRef.name);
  if (name) {
    if (paramRef.selector !== undefined && paramRef.selector !== null) {
      return { mode: 'name', params: [], scope, namespace, error: 'paramRef.name and paramRef.selector are mutually exclusive', detail: '' };
    }
    // the first of that name (kept by the index: a namespace may hold thousands of the kind)
    const first = candidates.first(name, scope === 'Namespaced' ? (namespace ?? '') : undefined);
    const found = first === undefined ? [] : [first];
    return notFound({
      mode: 'name',
      params: found,
      scope,
      namespace,
      detail: found.length
        ? `found ${where} named ${JSON.stringify(name)}`
        : `no ${where} named ${JSON.stringify(name)} (parameterNotFoundAction ${str(paramRef.parameterNotFoundAction) || 'unset'})`,
    });
  }
  if (paramRef.selector !== undefined && paramRef.selector !== null) {
    const selected: unknown[] = [];
    for (const d of inScope) {
      const m = matchLabelSelector(paramRef.selector, labelsOf(d));
      if (!m.ok) return { mode: 'selector', params: [], scope, namespace, error: m.error, detail: '' };
      if (m.matches) selected.push(d);
    }
    selected.sort((a, b) => `${namespaceOf(a)}/${nameOf(a)}`.localeCompare(`${namespaceOf(b)}/${nameOf(b)}`));
    return notFound({
      mode: 'selector',
      params: selected,
      scope,
      namespace,
      detail: selected.length
        ? `selector matches ${selected.length} ${where}: ${selected.map(nameOf).join(', ')}`
        : `selector matches no ${where} (parameterNotFoundAction ${str(paramRef.parameterNotFoundAction) || 'unset'})`,
    });
  }
  return { mode: 'none', params: [], scope, error: 'one of name or selector must be provided', detail: '' };
}
