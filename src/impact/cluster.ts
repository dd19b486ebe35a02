/**
 * A cluster snapshot (`kubectl get <kinds> -A -o yaml|json`, Lists unwrapped by the caller) sorted
 * into what the replay reads, and the objects' state as the replay goes through the log.
 */
import { isObject, nameOf, namespaceOf, str } from '../base/json';
import { ADMISSION_KINDS } from '../k8s/resources';

/** The kinds that make up an admission chain (one table: src/k8s/resources.ts). */
export { ADMISSION_KINDS };

export const isAdmissionObject = (o: unknown): boolean =>
  isObject(o) && ADMISSION_KINDS.has(str(o.kind)) && str(o.apiVersion).startsWith('admissionregistration.k8s.io/');

export interface Cluster {
  /** The cluster's admission chain: the baseline. */
  chain: unknown[];
  /** Namespaces (namespaceSelector, `namespaceObject`). */
  namespaces: unknown[];
  /** Every object but the chain: existing objects (Namespaces included), param candidates, CustomResourceDefinitions. */
  objects: unknown[];
}

/** Sorts snapshot objects; what is not an object is left out. */
export function readCluster(objects: readonly unknown[]): Cluster {
  const out: Cluster = { chain: [], namespaces: [], objects: [] };
  for (const o of objects) {
    if (!isObject(o)) continue;
    if (isAdmissionObject(o)) out.chain.push(o);
    else {
      if (o.kind === 'Namespace' && o.apiVersion === 'v1') out.namespaces.push(o);
      out.objects.push(o);
    }
  }
  return out;
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/**
 * The key of an object in the replay's state: group, kind, namespace ('' when cluster-scoped),
 * name. By kind rather than resource, so snapshot objects (which name their kind) and log events
 * (which name their resource, whose kind discovery knows) meet.
 */
export const stateKey = (group: string, kind: string, namespace: string, name: string): string => `${group}/${kind}/${namespace}/${name}`;

export const objectKey = (o: unknown): string =>
  isObject(o) ? stateKey(groupOf(str(o.apiVersion)), str(o.kind), o.kind === 'Namespace' ? '' : namespaceOf(o), nameOf(o)) : '';

/** Where a replayed request's old object came from: an earlier event, the snapshot, the workspace (the candidate's params, installed before the log), nowhere, or no old object is needed. */
export type OldObjectSource = 'log' | 'snapshot' | 'workspace' | 'unknown' | 'none';

/**
 * The last known state of each object: the snapshot's (and the workspace's), replaced by each successful write of the
 * log (an earlier event of the log is preferred: a snapshot is usually taken after the log). One
 * entry per object, nothing else: `null` marks an object the log deleted.
 */
export type ObjectState = Map<string, { object: unknown; source: 'log' | 'snapshot' | 'workspace' } | null>;

/** The state before the first line: the snapshot's objects, then the workspace's (the candidate's params and Namespaces: the workspace's win). */
export function stateOf(objects: readonly unknown[], workspace: readonly unknown[] = []): ObjectState {
  const state: ObjectState = new Map();
  for (const o of objects) if (isObject(o) && nameOf(o)) state.set(objectKey(o), { object: o, source: 'snapshot' });
  for (const o of workspace) if (isObject(o) && nameOf(o)) state.set(objectKey(o), { object: o, source: 'workspace' });
  return state;
}

/**
 * When the snapshot was taken, as one write of the log shows it: `after` (the snapshot holds the
 * version this write stored or a later one, or an object created after this request), `before` (it
 * holds the version this write found or an older one), `unknown` (nothing to compare: no
 * resourceVersion, no creationTimestamp).
 */
export type SnapshotTime = 'before' | 'after' | 'unknown';

const resourceVersionOf = (o: unknown): number | undefined => {
  const v = isObject(o) && isObject(o.metadata) ? str(o.metadata.resourceVersion) : '';
  return /^\d{1,15}$/.test(v) ? Number(v) : undefined;
};

/** The snapshot object's creationTimestamp, ms since the epoch (NaN when it has none). */
export const createdAt = (o: unknown): number => Date.parse(isObject(o) && isObject(o.metadata) ? str(o.metadata.creationTimestamp) : '');

/**
 * The snapshot's version of an object against a write of it in the log. resourceVersions are
 * etcd's revisions: a later write stores a larger one (a delete answers with the object it
 * removed, so only a larger one is later). `later` says why the snapshot's version is not the one
 * the write found.
 */
export function snapshotAgainst(
  snapshot: unknown,
  ev: { operation: string; dryRun: boolean; time: number; status: { code: number }; requestObject?: unknown; responseObject?: unknown },
): { time: SnapshotTime; later?: string } {
  const created = createdAt(snapshot);
  // creationTimestamp is in whole seconds: a request in an earlier second came before the object was created
  if (Number.isFinite(created) && Number.isFinite(ev.time) && ev.time < created)
    return { time: 'after', later: `created at ${new Date(created).toISOString()}, after this request` };
  if (ev.operation === 'CREATE') return { time: 'after', later: 'the snapshot holds the object this request created, or a later one' };
  const mine = resourceVersionOf(snapshot);
  if (mine === undefined) return { time: 'unknown' };
  const stored = ev.status.code < 300 && !ev.dryRun ? resourceVersionOf(ev.responseObject) : undefined;
  if (stored !== undefined)
    return (ev.operation === 'DELETE' ? mine > stored : mine >= stored)
      ? { time: 'after', later: `resourceVersion ${mine}; this request ${ev.operation === 'DELETE' ? 'deleted' : 'stored'} ${stored}` }
      : { time: 'before' };
  // a write the cluster did not store: an update names the version it read
  const read = resourceVersionOf(ev.requestObject);
  if (read === undefined) return { time: 'unknown' };
  return mine > read ? { time: 'after', later: `resourceVersion ${mine}; this request read ${read}` } : { time: 'before' };
}
