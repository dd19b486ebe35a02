/**
 * One line of a kube-apiserver audit log (JSON lines of `audit.k8s.io/v1` `Event`) read into what
 * the replay needs, or into the reason it cannot be replayed. What a real log holds:
 * README.md ("What a log holds, and what the replay makes of it").
 */
import { isObject, obj, str, strList } from '../base/json';
import type { Operation, UserInfo } from '../request/model';
import { CONDITIONAL_ANNOTATION, DECISION_ANNOTATION, REASON_ANNOTATION, type ConditionalAuthorization } from '../admission';

export interface ObjectReference {
  resource: string;
  namespace: string;
  name: string;
  apiGroup: string;
  apiVersion: string;
  subresource: string;
}

/** An audit event that can be replayed as an admission request. */
export interface AuditWrite {
  auditID: string;
  /** Line in the log (1-based). */
  line: number;
  verb: string;
  operation: Operation;
  objectRef: ObjectReference;
  /** Who admission sees: the impersonated user when there is one. */
  user: UserInfo;
  dryRun: boolean;
  /** The request URI's query (fieldManager, dryRun, exec's command …). */
  query: URLSearchParams;
  requestObject?: unknown;
  responseObject?: unknown;
  /** What the live cluster answered. */
  status: { code: number; message?: string; reason?: string };
  /** `requestReceivedTimestamp` in ms since the epoch (NaN when absent). */
  time: number;
  /** Audit level of the event. */
  level: string;
  annotations: Record<string, string>;
}

export type AuditLine = { kind: 'write'; event: AuditWrite } | { kind: 'skip'; line: number; auditID?: string; reason: SkipReason; detail?: string };

/** Why a line is not replayed: counted per reason in the report. */
export type SkipReason =
  | 'not-json'
  | 'truncated'
  | 'too-long'
  | 'unreadable'
  | 'not-an-event'
  | 'other-api-version'
  | 'stage'
  | 'read'
  | 'metadata-level'
  | 'not-a-resource'
  | 'deletecollection'
  | 'before-admission'
  | 'subresource-object';

/** One sentence per reason, for the report. */
export const SKIP_REASONS: Readonly<Record<SkipReason, string>> = {
  'not-json': 'not a JSON object',
  truncated: 'the last line was cut off (the log ends in the middle of an event)',
  'too-long': 'a line longer than the reader keeps',
  unreadable: 'the input could not be read past this point (a corrupt or cut-off gzip stream, a read error); what came before is replayed',
  'not-an-event': 'JSON, but not an audit Event',
  'other-api-version': 'an audit Event of another API version than audit.k8s.io/v1',
  stage: 'a stage other than ResponseComplete or Panic (the outcome is in the ResponseComplete event)',
  read: 'a read (get, list, watch): admission is not called',
  'metadata-level': 'logged at level Metadata: the event has no object to replay',
  'not-a-resource': 'not a request on a resource (a non-resource URL such as /healthz)',
  deletecollection: 'deletecollection: admission sees each deleted object, which the event does not name',
  'before-admission': 'the request stopped before admission',
  'subresource-object':
    'a patch of a subresource whose object is a kind of its own (a Scale …) with no stored object in the event (logged at level Request, or refused): the object admission saw is not in it',
};

/**
 * Subresources whose object admission sees is the main resource's kind (a Deployment's status);
 * the others carry a kind of their own (scale: an autoscaling/v1 Scale; eviction, binding, token).
 */
export const SAME_KIND_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'ephemeralcontainers', 'resize', 'approval']);

/** Subresources whose requests admission sees as CONNECT (pods/exec …, nodes/proxy, services/proxy). */
const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy']);

const WRITE_VERBS: Readonly<Record<string, Operation>> = { create: 'CREATE', update: 'UPDATE', patch: 'UPDATE', delete: 'DELETE' };

const READ_VERBS = new Set(['get', 'list', 'watch']);

/** A denial by admission, as its status message words it (webhooks and policies). */
const ADMISSION_MESSAGE = /admission webhook|ValidatingAdmissionPolicy|MutatingAdmissionPolicy|denied the request|denied request/;

/**
 * The authorizer's conditional decision on a request, from its audit annotations (1.38+, gate
 * ConditionalAuthorization; k8s.io/apiserver pkg/endpoints/filters/authorization.go and
 * admission/plugin/authorizer/conditionsenforcer): undefined when it was not conditional.
 * A conditional request that stopped before the enforcer (no decision recorded) is assumed
 * allowed by its conditions: the log does not say what they would have given.
 */
export function conditionalAuthorizationOf(annotations: Record<string, string>): ConditionalAuthorization | undefined {
  if (annotations[CONDITIONAL_ANNOTATION] !== 'true') return undefined;
  const reason = annotations[REASON_ANNOTATION] ?? '';
  const decision = annotations[DECISION_ANNOTATION];
  if (decision === 'forbid') return { decision: 'deny', reason };
  if (decision === 'allow') return { decision: 'allow', reason };
  if (reason === 'internal error') return { decision: 'error' };
  return { decision: 'allow', reason: '' };
}

/** The stage of a request that stopped before admission, from the status the client got; undefined when it reached admission. */
function beforeAdmission(code: number, message: string, annotations: Record<string, string>): string | undefined {
  // a conditional decision's forbid comes from the AuthorizationConditionsEnforcer, in admission
  if (annotations[DECISION_ANNOTATION] === 'forbid' && annotations[CONDITIONAL_ANNOTATION] !== 'true')
    return `403: forbidden by authorization (${annotations['authorization.k8s.io/reason'] || 'no reason given'})`;
  if (code < 400 || ADMISSION_MESSAGE.test(message)) return undefined;
  if (code === 401) return '401: not authenticated';
  if (code === 404) return '404: the object or its namespace does not exist';
  if (code === 400 || code === 405 || code === 406 || code === 413 || code === 415) return `${code}: the request was refused while it was decoded`;
  return undefined;
}

function userOf(u: unknown): UserInfo {
  const o = obj(u);
  const out: UserInfo = { username: str(o.username) };
  if (str(o.uid)) out.uid = str(o.uid);
  const groups = strList(o.groups);
  if (groups.length) out.groups = groups;
  if (isObject(o.extra)) {
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(o.extra)) extra[k] = strList(v);
    out.extra = extra;
  }
  return out;
}

function queryOf(uri: string): URLSearchParams {
  const q = uri.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : uri.slice(q + 1));
}

const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v))) if (typeof x === 'string') out[k] = x;
  return out;
};

/** Reads one line of an audit log. Never throws. */
export function readAuditLine(text: string, line: number, terminated = true): AuditLine | undefined {
  if (!text.trim()) return undefined;
  let e: unknown;
  try {
    e = JSON.parse(text);
  } catch {
    return { kind: 'skip', line, reason: terminated ? 'not-json' : 'truncated' };
  }
  if (!isObject(e)) return { kind: 'skip', line, reason: 'not-json' };
  if (e.kind !== 'Event') return { kind: 'skip', line, reason: 'not-an-event' };
  const auditID = str(e.auditID) || undefined;
  if (e.apiVersion !== 'audit.k8s.io/v1') return { kind: 'skip', line, auditID, reason: 'other-api-version', detail: str(e.apiVersion) };
  const stage = str(e.stage);
  if (stage !== 'ResponseComplete' && stage !== 'Panic') return { kind: 'skip', line, auditID, reason: 'stage', detail: stage };
  const verb = str(e.verb);
  const ref = obj(e.objectRef);
  if (!str(ref.resource)) return { kind: 'skip', line, auditID, reason: READ_VERBS.has(verb) ? 'read' : 'not-a-resource', detail: str(e.requestURI) };
  const objectRef: ObjectReference = {
    resource: str(ref.resource),
    namespace: str(ref.namespace),
    name: str(ref.name),
    apiGroup: str(ref.apiGroup),
    apiVersion: str(ref.apiVersion),
    subresource: str(ref.subresource),
  };
  const connect = CONNECT_SUBRESOURCES.has(objectRef.subresource) && (verb === 'create' || verb === 'get');
  if (READ_VERBS.has(verb) && !connect) return { kind: 'skip', line, auditID, reason: 'read', detail: verb };
  if (verb === 'deletecollection') return { kind: 'skip', line, auditID, reason: 'deletecollection' };
  let operation: Operation | undefined = connect ? 'CONNECT' : WRITE_VERBS[verb];
  if (!operation) return { kind: 'skip', line, auditID, reason: 'not-a-resource', detail: `verb ${verb}` };
  const status = obj(e.responseStatus);
  const code = typeof status.code === 'number' ? status.code : 0;
  const message = str(status.message);
  const annotations = stringMap(e.annotations);
  const stopped = beforeAdmission(code, message, annotations);
  if (stopped) return { kind: 'skip', line, auditID, reason: 'before-admission', detail: stopped };
  const level = str(e.level);
  // An update or patch that created the object (201 Created: apply, or PUT with create-on-update) was a CREATE.
  if (operation === 'UPDATE' && code === 201) operation = 'CREATE';
  if (level === 'Metadata' && operation !== 'DELETE' && operation !== 'CONNECT') return { kind: 'skip', line, auditID, reason: 'metadata-level' };
  // the replay makes a patch's object from the old one and the patch: not a Scale from a Deployment
  const sub = objectRef.subresource;
  if (verb === 'patch' && sub && !SAME_KIND_SUBRESOURCES.has(sub) && !(isObject(e.responseObject) && code < 300))
    return { kind: 'skip', line, auditID, reason: 'subresource-object', detail: sub };
  const query = queryOf(str(e.requestURI));
  const event: AuditWrite = {
    auditID: auditID ?? `line-${line}`,
    line,
    verb,
    operation,
    objectRef,
    user: userOf(isObject(e.impersonatedUser) ? e.impersonatedUser : e.user),
    // a delete's dry run may be in its DeleteOptions body instead of the query
    dryRun: query.getAll('dryRun').includes('All') || (obj(e.requestObject).kind === 'DeleteOptions' && strList(obj(e.requestObject).dryRun).includes('All')),
    query,
    status: { code, ...(message ? { message } : {}), ...(str(status.reason) ? { reason: str(status.reason) } : {}) },
    time: Date.parse(str(e.requestReceivedTimestamp)),
    level,
    annotations,
  };
  if (e.requestObject !== undefined) event.requestObject = e.requestObject;
  if (e.responseObject !== undefined) event.responseObject = e.responseObject;
  return { kind: 'write', event };
}
