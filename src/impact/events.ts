/**
 * One line of the audit log, replayed: read (`readAuditLine`), rebuilt as the admission request
 * the apiserver built (`replayRequest`, against the objects' state), decided by both chains,
 * and said as an EventImpact, or as why it was skipped. The same code runs on analyzeImpact's
 * thread and in each replay shard (shard.ts), so a sharded run reports what one thread does.
 */
import { discoveryFor, type Discovery } from '../admission';
import type { AdmissionRequest } from '../request/model';
import { conditionalAuthorizationOf, readAuditLine, type AuditLine, type SkipReason } from './audit';
import { stateKey, type ObjectState, type OldObjectSource, type SnapshotTime } from './cluster';
import { changeOf, type Change, type ChainSpec, type Decider, type Decision } from './decide';
import type { Line } from './lines';
import { replayRequest } from './replay';
import { retains, verbAndRef, type LaterReads } from './retain';
import { kindOf, str } from '../base/json';

export interface EventImpact {
  auditID: string;
  line: number;
  /** requestReceivedTimestamp, ms since the epoch (NaN when the event had none). */
  time: number;
  request: { operation: string; resource: string; subResource?: string; namespace?: string; name?: string; username: string; dryRun?: boolean };
  oldObject: OldObjectSource;
  /** What the live cluster answered (HTTP code; the message of a failure). */
  live: { code: number; message?: string };
  candidate: Decision;
  baseline: Decision;
  change: Change;
  notes?: string[];
  /** When the snapshot was taken, as this write shows it (its old object from the snapshot, or a create of an object the snapshot holds). */
  snapshotTime?: SnapshotTime;
}

/** A line not replayed, and why. */
export interface SkippedLine {
  line: number;
  auditID?: string;
  reason: SkipReason;
  detail?: string;
}

/** A changed event's whole request, kept to open it in the simulator (`ImpactOptions.keepRequests`). */
export interface KeptRequest {
  request: AdmissionRequest;
  namespaceObject?: unknown;
  /** Where it comes from (`line 12 of the audit log`): set when the report keeps it. */
  source?: string;
  /** The cluster's objects its candidate run read beside the workspace's (src/impact/scenario.ts `clusterObjects`): set when the report keeps it. */
  objects?: unknown[];
}

/** What a line of the log comes to (structured-cloneable: a shard sends it back). */
export type LineOutcome = { skip: SkippedLine } | { event: EventImpact; kept?: KeptRequest };

/**
 * A line as the reader hands it over (`readLineBatches`); `silent`: replayed for the state it
 * leaves, neither decided nor reported (a Namespace's line in the shards that do not decide it);
 * `chain`: the chains from this line on (the log changed a param, a policy … before it: chains.ts).
 */
export type LogLine = Line & { tooLong?: number; silent?: true; chain?: ChainSpec };

export interface LogReplayOptions {
  /** The objects' state (the snapshot's, then each stored write's): updated as lines are replayed. */
  state: ObjectState;
  /** The chains at the first line (until a line brings others). */
  spec: ChainSpec;
  /** Who decides with a spec (called again when a line brings other chains). */
  decider: (spec: ChainSpec) => Decider;
  /** `laterReads`' table: an object no later line reads is forgotten (default: every object kept). */
  retain?: LaterReads;
  /** Keep the whole request of this many changed events (default 0). */
  keepRequests?: number;
  /** Keep, besides, the request of each changed event this says yes to (called in log order: the Impact view's first of each policy's or webhook's changes). */
  keepRequest?: (e: EventImpact) => boolean;
}

/**
 * A create's line with its responseObject left unread (null) when nothing would read it: the
 * request's object is its requestObject, and `reads` says no later line reads the object the
 * create stored (a Namespace is always kept). Reading such a line whole was about half of a replayed create's `JSON.parse`
 * (the stored object carries managedFields, the admission plugins' changes, status). The
 * responseObject is cut at the last `,"requestReceivedTimestamp":`, which the apiserver writes
 * after it; a cut anywhere else (a line not as the apiserver writes it) leaves more closing
 * brackets than opening ones, which `JSON.parse` refuses, and the line is read whole.
 */
export function withoutStoredObject(text: string, line: number, reads: LaterReads): string | undefined {
  const request = text.indexOf('"requestObject":{');
  const response = text.indexOf('"responseObject":{');
  if (request < 0 || response < request) return undefined;
  const head = verbAndRef(text.slice(0, request));
  const ref = head?.ref;
  // a Namespace is always kept (every request in it reads it), as it was stored
  if (head?.verb !== 'create' || !ref || !str(ref.name) || (ref.resource === 'namespaces' && !str(ref.apiGroup))) return undefined;
  if (retains(reads, { objectRef: { apiGroup: str(ref.apiGroup), resource: str(ref.resource), namespace: str(ref.namespace), name: str(ref.name) }, line }))
    return undefined;
  const end = text.lastIndexOf(',"requestReceivedTimestamp":');
  return end > response ? `${text.slice(0, response + 17)}null${text.slice(end)}` : undefined;
}

/**
 * The replay of a log's lines, in order: for each line, its outcome at once (a skipped line),
 * its outcome once both chains have decided (an event), or undefined (a blank line). Lines must
 * be handed in log order (the state is sequential); the decisions may be awaited in any order.
 */
/** The resources the replay knows: the release's and the chains' CustomResourceDefinitions. */
export const specDiscovery = (spec: ChainSpec): Discovery =>
  discoveryFor(
    spec.baseline.filter((x) => kindOf(x) === 'CustomResourceDefinition'),
    spec.kubernetesVersion,
  );

export function logReplay(o: LogReplayOptions): (l: LogLine) => LineOutcome | Promise<LineOutcome> | undefined {
  const { state } = o;
  let spec = o.spec;
  let discovery = specDiscovery(spec);
  // made when first asked: chains that a line replaces before any decision are never prepared
  let decider: Decider | undefined;
  const decide: Decider = (request, ns, authorization) => (decider ??= o.decider(spec))(request, ns, authorization);
  const retain = o.retain && ((ev: Parameters<typeof retains>[1]) => retains(o.retain!, ev));
  const namespaceObject = (ns: string | undefined): unknown => (ns ? state.get(stateKey('', 'Namespace', '', ns))?.object : undefined);
  /** A line read, its stored object left unread when nothing reads it (`withoutStoredObject`). */
  const readLine = (l: LogLine): AuditLine | undefined => {
    const cut = o.retain && withoutStoredObject(l.text, l.line, o.retain);
    const read = cut ? readAuditLine(cut, l.line, l.terminated) : undefined;
    return read && !(read.kind === 'skip' && read.reason === 'not-json') ? read : readAuditLine(l.text, l.line, l.terminated);
  };
  const keepRequests = o.keepRequests ?? 0;
  let kept = 0;
  /** With requests kept, the last outcome: each event's keeping waits for the one before (the first changed events in log order, whatever order the decisions come in). */
  let previous: Promise<unknown> = Promise.resolve();
  return (l) => {
    if (l.chain) {
      spec = l.chain;
      discovery = specDiscovery(spec);
      decider = undefined;
    }
    const read: AuditLine | undefined =
      l.error !== undefined
        ? { kind: 'skip', line: l.line, reason: 'unreadable', detail: l.error }
        : l.tooLong
          ? { kind: 'skip', line: l.line, reason: 'too-long', detail: `${l.tooLong} characters` }
          : readLine(l);
    if (!read) return undefined;
    if (l.silent) {
      if (read.kind === 'write') replayRequest(read.event, state, discovery, retain);
      return undefined;
    }
    if (read.kind === 'skip')
      return {
        skip: { line: read.line, ...(read.auditID ? { auditID: read.auditID } : {}), reason: read.reason, ...(read.detail ? { detail: read.detail } : {}) },
      };
    const ev = read.event;
    const replayed = replayRequest(ev, state, discovery, retain);
    const ns = namespaceObject(replayed.request.namespace);
    const decided = decide(replayed.request, ns, conditionalAuthorizationOf(ev.annotations)).then(
      ({ baseline, candidate, sameUnknown }): { event: EventImpact } => {
        const change = changeOf(baseline, candidate, sameUnknown);
        const r = replayed.request;
        const event: EventImpact = {
          auditID: ev.auditID,
          line: ev.line,
          time: ev.time,
          request: {
            operation: r.operation,
            resource: r.resource.group ? `${r.resource.resource}.${r.resource.group}` : r.resource.resource,
            ...(r.subResource ? { subResource: r.subResource } : {}),
            ...(r.namespace ? { namespace: r.namespace } : {}),
            ...(r.name ? { name: r.name } : {}),
            username: r.userInfo?.username ?? '',
            ...(r.dryRun ? { dryRun: true } : {}),
          },
          oldObject: replayed.oldObject,
          live: { code: ev.status.code, ...(ev.status.message ? { message: ev.status.message } : {}) },
          candidate,
          baseline,
          change,
          ...(replayed.notes.length ? { notes: replayed.notes } : {}),
          ...(replayed.snapshotTime ? { snapshotTime: replayed.snapshotTime } : {}),
        };
        return { event };
      },
    );
    if (!keepRequests && !o.keepRequest) return decided;
    const inOrder = previous
      .then(() => decided)
      .then((out): LineOutcome => {
        if (out.event.change === 'unchanged' || (kept >= keepRequests && !o.keepRequest?.(out.event))) return out;
        kept++;
        return { ...out, kept: { request: replayed.request, ...(ns ? { namespaceObject: ns } : {}) } };
      });
    previous = inOrder;
    return inOrder;
  };
}
