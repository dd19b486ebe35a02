/**
 * Drafts ↔ test inputs. `toTestInput` turns what the user typed into a TestInput (memoised per
 * draft object: drafts are immutable, so the same draft always gives the same input object);
 * `toDraft` is the way back (a template, a saved policy case loaded into the form).
 */
import type { AuthorizerRule } from '../cel/types';
import { serializeDocuments } from '../yaml';
import type { AdmissionRequest, DraftError, RequestDraft, TestInput, TestInputDraft, UserInfo } from './model';
import { REQUEST_OPERATIONS, type Operation } from './model';
import { parseInputText } from './parse';

/** The request form a new draft starts with: a Pod CREATE in `default` by an ordinary user. */
export function emptyRequestDraft(): RequestDraft {
  return {
    operation: 'CREATE',
    group: '',
    version: 'v1',
    resource: 'pods',
    subResource: '',
    kind: 'Pod',
    name: 'example',
    namespace: 'default',
    username: 'alice@example.com',
    uid: '',
    groups: ['system:authenticated'],
    dryRun: false,
  };
}

/** Which YAML texts a request of an operation reads (the apiserver sends no object on DELETE, no oldObject on CREATE / CONNECT). */
export function usesObject(op: Operation): boolean {
  return op !== 'DELETE';
}
export function usesOldObject(op: Operation): boolean {
  return op === 'UPDATE' || op === 'DELETE';
}

export const isOperation = (v: unknown): v is Operation => typeof v === 'string' && (REQUEST_OPERATIONS as readonly string[]).includes(v);

/** The AdmissionRequest of a request form (without object / oldObject). */
export function requestOf(r: RequestDraft): AdmissionRequest {
  const userInfo: UserInfo = { username: r.username };
  if (r.uid) userInfo.uid = r.uid;
  if (r.groups.length) userInfo.groups = [...r.groups];
  if (r.extra && Object.keys(r.extra).length) userInfo.extra = r.extra;
  const req: AdmissionRequest = {
    operation: r.operation,
    resource: { group: r.group, version: r.version, resource: r.resource },
    kind: { group: r.group, version: r.version, kind: r.kind },
    userInfo,
    dryRun: r.dryRun,
  };
  if (r.subResource) req.subResource = r.subResource;
  if (r.name) req.name = r.name;
  if (r.namespace) req.namespace = r.namespace;
  return req;
}

/** Authorizer rules without empty cells (an empty cell means "any"). */
export function cleanAuthorizer(rules: readonly AuthorizerRule[]): AuthorizerRule[] {
  return rules.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) if (v !== '' && v !== undefined) out[k] = v;
    return out as unknown as AuthorizerRule;
  });
}

export interface Converted {
  input: TestInput;
  errors: DraftError[];
}

const converted = new WeakMap<TestInputDraft, Converted>();

/**
 * The TestInput of a draft and what did not parse. Only the texts the operation reads are
 * parsed (an object typed for a CREATE does not block a DELETE). The request's namespace
 * decides whether the namespace object is sent (cluster-scoped requests have none).
 */
export function toTestInput(draft: TestInputDraft): Converted {
  const hit = converted.get(draft);
  if (hit) return hit;
  const errors: DraftError[] = [];
  const take = (field: DraftError['field']): unknown => {
    const r = parseInputText(draft[field] ?? '');
    if (r.error) errors.push({ field, ...r.error });
    return r.value;
  };
  const request = requestOf(draft.request);
  const op = draft.request.operation;
  if (usesObject(op)) {
    const o = take('object');
    if (o !== undefined) request.object = o;
  }
  if (usesOldObject(op)) {
    const o = take('oldObject');
    if (o !== undefined) request.oldObject = o;
  }
  if (draft.options) {
    const o = take('options');
    if (o !== undefined) request.options = o;
  }
  const input: TestInput = { request, authorizer: cleanAuthorizer(draft.authorizer) };
  const params = take('params');
  if (params !== undefined) input.params = params;
  if (draft.request.namespace) {
    const ns = take('namespaceObject');
    if (ns !== undefined) input.namespaceObject = ns;
  }
  const r = { input, errors };
  converted.set(draft, r);
  return r;
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : serializeDocuments([v]));

/** The draft of a TestInput (values as YAML texts). */
export function toDraft(input: TestInput): TestInputDraft {
  const q = input.request;
  return {
    request: {
      operation: q.operation,
      group: q.resource.group,
      version: q.resource.version,
      resource: q.resource.resource,
      subResource: q.subResource ?? '',
      kind: q.kind.kind,
      name: q.name ?? '',
      namespace: q.namespace ?? '',
      username: q.userInfo?.username ?? '',
      uid: q.userInfo?.uid ?? '',
      groups: [...(q.userInfo?.groups ?? [])],
      ...(q.userInfo?.extra && Object.keys(q.userInfo.extra).length ? { extra: q.userInfo.extra } : {}),
      dryRun: q.dryRun === true,
    },
    object: text(q.object),
    oldObject: text(q.oldObject),
    params: text(input.params),
    namespaceObject: text(input.namespaceObject),
    authorizer: [...(input.authorizer ?? [])],
    ...(q.options !== undefined && q.options !== null ? { options: text(q.options) } : {}),
  };
}
