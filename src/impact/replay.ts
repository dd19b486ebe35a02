/**
 * An audit event as the admission request the apiserver built for it (the one request model,
 * `src/request/model.ts`), with the old object from the replay's state, and the state after it.
 */
import { isObject, obj, str } from '../base/json';
import type { Discovery } from '../admission';
import type { AdmissionRequest, GroupVersionKind } from '../request/model';
import { SAME_KIND_SUBRESOURCES, type AuditWrite } from './audit';
import { objectKey, snapshotAgainst, stateKey, type ObjectState, type OldObjectSource, type SnapshotTime } from './cluster';
import { applyPatchBody } from './patch';

export interface ReplayedRequest {
  request: AdmissionRequest;
  oldObject: OldObjectSource;
  /** Where the request's object came from. */
  object: 'request' | 'response' | 'patched' | 'options' | 'none';
  /** What had to be assumed (a patch's type, a kind from the body …). */
  notes: string[];
  /** When the snapshot was taken, as this event shows it (its object's version against this write: `snapshotAgainst`). */
  snapshotTime?: SnapshotTime;
}

/** Options objects admission sees as the object of a CONNECT (from the request's query). */
function connectOptions(ev: AuditWrite): unknown {
  const q = ev.query;
  const bool = (k: string) => (q.has(k) ? q.get(k) === 'true' || q.get(k) === '1' : undefined);
  const sub = ev.objectRef.subresource;
  const kind =
    { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions' }[sub] ??
    (ev.objectRef.resource === 'nodes' ? 'NodeProxyOptions' : ev.objectRef.resource === 'services' ? 'ServiceProxyOptions' : 'PodProxyOptions');
  const o: Record<string, unknown> = { kind, apiVersion: 'v1' };
  if (sub === 'exec' || sub === 'attach') {
    for (const k of ['stdin', 'stdout', 'stderr', 'tty']) if (bool(k) !== undefined) o[k] = bool(k);
    if (q.get('container')) o.container = q.get('container');
    if (sub === 'exec') o.command = q.getAll('command');
  } else if (sub === 'portforward') o.ports = q.getAll('ports').map(Number);
  else if (q.get('path')) o.path = q.get('path');
  return o;
}

/** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions from the query, as admission's `options` shows them (a patch's are PatchOptions whether it updates or creates: handlers/patch.go). */
function requestOptions(ev: AuditWrite, operation: AdmissionRequest['operation']): unknown {
  if (operation === 'CONNECT') return undefined;
  const kind = ev.verb === 'patch' ? 'PatchOptions' : operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (ev.dryRun) o.dryRun = ['All'];
  if (operation !== 'DELETE') {
    if (ev.query.get('fieldManager')) o.fieldManager = ev.query.get('fieldManager');
    if (ev.query.get('fieldValidation')) o.fieldValidation = ev.query.get('fieldValidation');
  } else {
    const body = obj(ev.requestObject);
    if (body.kind === 'DeleteOptions') for (const k of ['propagationPolicy', 'gracePeriodSeconds', 'preconditions']) if (body[k] !== undefined) o[k] = body[k];
    if (ev.query.get('propagationPolicy')) o.propagationPolicy = ev.query.get('propagationPolicy');
  }
  return o;
}

const gvkOf = (o: unknown): GroupVersionKind | undefined => {
  const apiVersion = str(obj(o).apiVersion);
  const kind = str(obj(o).kind);
  if (!apiVersion || !kind) return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
};

/**
 * The request admission saw for a write event. `state` gives the old object and is updated with
 * the event's outcome when the live cluster stored it (not for dry runs or failures); when
 * `retain` says no later event reads the object (src/impact/retain.ts), it is forgotten instead
 * (Namespaces are always kept: every request in them reads theirs).
 */
/** The object an event writes: its state key ('' when its kind is unknown), as discovery and the event name it. */
export function eventTarget(ev: AuditWrite, discovery: Discovery) {
  const ref = ev.objectRef;
  const resource = { group: ref.apiGroup, version: ref.apiVersion, resource: ref.resource };
  const info = discovery.lookup(resource).info;
  const mainKind: GroupVersionKind | undefined = info
    ? { group: info.group, version: info.version, kind: info.kind }
    : (gvkOf(ev.responseObject) ?? gvkOf(ev.requestObject));
  // a Namespace's objectRef.namespace is its own name on patch and delete, empty on create: it is cluster-scoped
  const isNamespace = ref.apiGroup === '' && ref.resource === 'namespaces';
  const namespaced = info ? info.namespaced : !!ref.namespace && !isNamespace;
  const name = ref.name || str(obj(obj(ev.requestObject).metadata).name);
  const key = mainKind ? stateKey(mainKind.group, mainKind.kind, namespaced ? ref.namespace : '', name) : '';
  // a create by generateName: the object is stored under the name the apiserver gave it
  const stored = name || !isObject(ev.responseObject) ? key : objectKey(ev.responseObject);
  return { resource, info, mainKind, isNamespace, namespaced, name, key, stored };
}

export function replayRequest(ev: AuditWrite, state: ObjectState, discovery: Discovery, retain?: (ev: AuditWrite) => boolean): ReplayedRequest {
  const ref = ev.objectRef;
  const notes: string[] = [];
  const { resource, info, mainKind, isNamespace, namespaced, name, key, stored } = eventTarget(ev, discovery);
  if (!info)
    notes.push(
      `${ref.apiGroup ? `${ref.resource}.${ref.apiGroup}` : ref.resource}/${ref.apiVersion} is not a resource discovery knows: scope and kind taken from the event`,
    );
  const prior = key ? state.get(key) : undefined;
  const operation = ev.operation;

  let object: unknown;
  let objectFrom: ReplayedRequest['object'] = 'none';
  let oldObject: unknown;
  let oldFrom: OldObjectSource = 'none';
  let snapshotTime: SnapshotTime | undefined;
  if ((operation === 'UPDATE' || operation === 'DELETE') && ref.subresource && !SAME_KIND_SUBRESOURCES.has(ref.subresource)) {
    // its old object is of the subresource's kind (the old Scale), not the main object the replay holds
    oldFrom = 'unknown';
    notes.push(`the old object of a ${ref.subresource} write is of its own kind, which the replay does not hold`);
  } else if (operation === 'UPDATE' || operation === 'DELETE') {
    oldObject = prior?.object;
    oldFrom = prior ? prior.source : 'unknown';
    if (prior?.source === 'snapshot') {
      // the log may show that the snapshot's version is not the one this write found
      const when = snapshotAgainst(prior.object, ev);
      snapshotTime = when.time;
      if (when.later) {
        [oldObject, oldFrom] = [undefined, 'unknown'];
        notes.push(`the snapshot holds a later version of the object (${when.later}): its old object is unknown`);
      }
    }
  } else if (operation === 'CREATE' && prior?.source === 'snapshot' && ev.status.code === 201 && !ev.dryRun)
    snapshotTime = snapshotAgainst(prior.object, ev).time;
  if (operation === 'CONNECT') {
    object = connectOptions(ev);
    objectFrom = 'options';
  } else if (operation === 'CREATE') {
    if (isObject(ev.requestObject) && ev.requestObject.kind !== 'DeleteOptions' && ev.verb === 'create') [object, objectFrom] = [ev.requestObject, 'request'];
    else if (isObject(ev.responseObject)) [object, objectFrom] = [ev.responseObject, 'response'];
    else if (isObject(ev.requestObject)) [object, objectFrom] = [ev.requestObject, 'request'];
  } else if (operation === 'UPDATE') {
    if (isObject(ev.responseObject) && ev.status.code < 300) [object, objectFrom] = [ev.responseObject, 'response'];
    else if (ev.verb === 'update' && isObject(ev.requestObject)) [object, objectFrom] = [ev.requestObject, 'request'];
    else if (ev.verb === 'patch' && ev.requestObject !== undefined && oldObject !== undefined) {
      const patched = applyPatchBody(oldObject, ev.requestObject, !info?.custom);
      if (patched.ok) {
        [object, objectFrom] = [patched.object, 'patched'];
        // no stored object to read it from: refused by the live chain, or logged at Request level
        const why = ev.status.code < 300 ? 'the event holds no responseObject (Request level)' : 'the live chain refused the patch';
        notes.push(`${why}, so the object is the old object with the patch applied (read as a ${patched.kind.replace(/-/g, ' ')})`);
      } else notes.push(`the patch could not be applied to the old object: ${patched.error}`);
    }
  }

  const kind = ref.subresource ? (gvkOf(object) ?? mainKind) : (mainKind ?? gvkOf(object));
  const request: AdmissionRequest = {
    operation,
    resource,
    kind: kind ?? { group: ref.apiGroup, version: ref.apiVersion, kind: '' },
    name,
    // the apiserver's request info: a Namespace's own name is the request's namespace, except on create
    namespace: isNamespace ? (operation === 'CREATE' ? '' : name) : namespaced ? ref.namespace : '',
    userInfo: ev.user,
    dryRun: ev.dryRun,
  };
  if (ref.subresource) request.subResource = ref.subresource;
  if (object !== undefined) request.object = object;
  if (oldObject !== undefined) request.oldObject = oldObject;
  const options = requestOptions(ev, operation);
  if (options !== undefined) request.options = options;

  // the state after the event, when the live cluster stored it
  if (!ev.dryRun && ev.status.code >= 200 && ev.status.code < 300 && key && operation !== 'CONNECT') {
    if (retain && !isNamespace && !retain(ev)) state.delete(stored);
    else if (operation === 'DELETE') {
      const after = ev.responseObject;
      // a graceful or finalizer-held delete answers with the object, now carrying deletionTimestamp
      if (isObject(after) && isObject(after.metadata) && after.metadata.deletionTimestamp && gvkOf(after))
        state.set(objectKey(after), { object: after, source: 'log' });
      else state.set(key, null);
    } else if (isObject(ev.responseObject) && gvkOf(ev.responseObject)?.kind === mainKind?.kind)
      state.set(stored, { object: ev.responseObject, source: 'log' });
    else if (object !== undefined && !ref.subresource) state.set(key, { object, source: 'log' });
  }
  return { request, oldObject: oldFrom, object: objectFrom, notes, ...(snapshotTime ? { snapshotTime } : {}) };
}
