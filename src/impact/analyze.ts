/**
 * analyzeImpact: what a candidate admission chain would have done to a cluster's real traffic
 * (an audit log) and to the objects it runs now (a snapshot), beside what the cluster's own
 * chain (the baseline) does with the same requests. Every request is decided by both chains
 * (decide.ts); the log's lines are replayed here (events.ts) or in shards, split by object
 * (shard.ts), and their outcomes taken into the report in log order.
 */
import { isObject, nameOf, namespaceOf, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { discoveryFor, type Discovery, type WebhookResponse } from '../admission';
import type { AdmissionRequest, UserInfo } from '../request/model';
import type { SkipReason } from './audit';
import { isAdmissionObject, readCluster, stateOf } from './cluster';
import { chainDecider, changeOf, CHANGES, type Change, type ChainSpec, type Decider, type Decision, type Denial } from './decide';
import { logReplay, type EventImpact, type KeptRequest, type LineOutcome, type SkippedLine } from './events';
import { clusterObjects, type Assumed } from './scenario';
import { readLineBatches, type TextSource } from './lines';
import type { LaterReads } from './retain';
import { shardedReplay, shardObjects, type OpenShard } from './shard';

export type { EventImpact } from './events';

export interface ExistingImpact {
  kind: string;
  namespace?: string;
  name: string;
  candidate: Decision;
  baseline: Decision;
  change: Change;
}

export interface ImpactProgress {
  /** Lines read so far (audit), objects judged so far (existing). */
  lines: number;
  events: number;
  existing: number;
  existingTotal: number;
  changed: number;
  phase: 'audit' | 'existing' | 'done';
}

export interface ImpactOptions {
  kubernetesVersion?: KubernetesVersion;
  /** overlay (default): the cluster's chain with the workspace's admission objects added, replacing same-named ones; replace: the workspace's alone. */
  candidate?: 'overlay' | 'replace';
  /** The answer each webhook gives, by webhook name (default allow), as in the Simulate view. */
  webhooks?: Record<string, WebhookResponse>;
  /** Who creates the existing objects when they are judged (default a cluster admin). */
  user?: UserInfo;
  /** Judge the snapshot's existing objects (default true when a cluster is given). */
  existing?: boolean;
  /** Keep every event's result in the report (default true); false keeps only changed ones (with `onEvent` for the rest). */
  keepUnchanged?: boolean;
  /** Keep the changed events' results in the report (default true); false with `keepUnchanged: false` keeps none (`onEvent` streams them all). */
  keepChanged?: boolean;
  /** Keep the whole admission request of up to this many changed events (`report.requests`, by auditID) and as many changed existing objects (by `existingKey`), to open them in Simulate (default 0). */
  keepRequests?: number;
  onEvent?: (e: EventImpact) => void;
  onProgress?: (p: ImpactProgress) => void;
  signal?: AbortSignal;
  /**
   * Who decides: given both chains, a function from a request to both decisions (default
   * `chainDecider`, on this thread). The CLI passes a pool of worker threads, one engine each.
   */
  decider?: (spec: ChainSpec) => Decider;
  /** Decisions in flight at once (default 1); results are still taken in log order. */
  inFlight?: number;
  /**
   * For each object, the last line that reads it (default: keep every object): `laterReads`
   * (src/impact/retain.ts) over the same log read once before; the replay then keeps only the
   * objects still to be read.
   */
  retainState?: LaterReads;
  /**
   * Replay the log in these shards (threads, one engine each: src/impact/shard.ts), split by
   * object; default none: this thread replays it with `decider`. The existing objects are
   * judged on this thread either way.
   */
  shards?: readonly OpenShard[];
}

export interface ImpactInput {
  /** The candidate's documents (admission objects, params, Namespaces, CRDs). */
  workspace: readonly unknown[];
  /** The snapshot's objects (`kubectl get … -o yaml|json`, Lists unwrapped). */
  cluster?: readonly unknown[];
  /** The audit log: JSON lines of audit.k8s.io/v1 Event, as text or chunks (gzip recognised). */
  audit?: TextSource;
  /** What of the snapshot could not be read (`readSnapshot`'s problems): skipped, said in the summary's notes. */
  clusterProblems?: readonly string[];
  /** Indices into `workspace` of the documents loaded from static manifests (the Simulate view's static marks, the CLI's `--static`). */
  staticDocuments?: readonly number[];
  options?: ImpactOptions;
}

export interface ImpactSummary {
  lines: number;
  /** Write events replayed. */
  events: number;
  skipped: Partial<Record<SkipReason, number>>;
  changes: Record<Change, number>;
  /** `judged`: the existing objects were judged (false: not asked for, no snapshot, or cancelled before; the view says "not judged", not 0). */
  existing: { total: number; judged: boolean; changes: Record<Change, number> };
  /** Requests the candidate denies and the baseline admits, by who denies them (`kind name`). */
  newlyDeniedBy: { by: string; count: number }[];
  /** The log's time range (ms since the epoch). */
  from?: number;
  to?: number;
  /** Calls per webhook of the candidate chain: total, busiest second, and the longest it may add (timeoutSeconds). */
  webhookCalls: { webhook: string; calls: number; peakPerSecond: number; timeoutSeconds?: number }[];
  /** Events whose baseline decision differs from what the live cluster answered (webhook answers assumed, built-in plugins not modelled …). */
  baselineDisagrees: number;
  /** What the inputs leave unknown (no Namespaces in the snapshot, old objects not found …). */
  notes: string[];
  cancelled: boolean;
  /** What the report assumed, as the view and the CLI say it and Simulate receives it: the release, each webhook's answer (others allow), who creates the existing objects. */
  assumed: Assumed;
  headline: string;
}

/** Skipped lines kept with their line number (all are counted in `summary.skipped`). */
export const MAX_SKIPPED_KEPT = 1000;

export interface ImpactReport {
  events: EventImpact[];
  /**
   * The requests of the first changed events (`ImpactOptions.keepRequests`), by auditID, and of the
   * first changed existing objects, by `existingKey`: with the Namespace they were judged with and
   * the cluster objects their run read, to open them in Simulate (`simulatorDraftOf`).
   */
  requests: Record<string, KeptRequest>;
  existing: ExistingImpact[];
  /** The first MAX_SKIPPED_KEPT lines not replayed, with why. */
  skipped: SkippedLine[];
  summary: ImpactSummary;
}

/** The key of an existing object's kept request in `ImpactReport.requests`. */
export const existingKey = (o: Pick<ExistingImpact, 'kind' | 'namespace' | 'name'>): string =>
  `existing ${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

const ADMIN: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

const chainKey = (o: unknown): string => `${str(obj(o).kind)}/${nameOf(o)}`;

/** The candidate chain: overlay (the cluster's, same-named objects replaced) or replace. */
export function candidateChain(clusterChain: readonly unknown[], workspace: readonly unknown[], mode: 'overlay' | 'replace' = 'overlay'): unknown[] {
  const mine = workspace.filter(isAdmissionObject);
  if (mode === 'replace') return mine;
  const replaced = new Set(mine.map(chainKey));
  return [...clusterChain.filter((o) => !replaced.has(chainKey(o))), ...mine];
}

/** The params kinds a chain's policies name (`spec.paramKind`), as `apiVersion/kind`. */
function paramKinds(chain: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const o of chain) {
    const pk = obj(obj(obj(o).spec).paramKind);
    if (str(pk.kind)) out.add(`${str(pk.apiVersion)}/${str(pk.kind)}`);
  }
  return out;
}

const zeroChanges = (): Record<Change, number> => Object.fromEntries(CHANGES.map((c) => [c, 0])) as Record<Change, number>;

interface Chain {
  objects: unknown[];
  timeouts: Map<string, number>;
}

function chainOf(admission: readonly unknown[], others: readonly unknown[]): Chain {
  const kinds = paramKinds(admission);
  const params = others.filter((o) => kinds.has(`${str(obj(o).apiVersion)}/${str(obj(o).kind)}`) || obj(o).kind === 'CustomResourceDefinition');
  const timeouts = new Map<string, number>();
  for (const c of admission)
    for (const w of Array.isArray(obj(c).webhooks) ? (obj(c).webhooks as unknown[]) : []) {
      const t = obj(w).timeoutSeconds;
      timeouts.set(str(obj(w).name), typeof t === 'number' ? t : 10);
    }
  return { objects: [...admission, ...params], timeouts };
}

/** A decision (or a batch of outcomes) started, and its taking into the report: taken in the order started. */
type Pending = () => Promise<void>;

/** Takes the oldest decisions until at most `keep` are in flight (0 with one in flight: each is taken before the next line is read, so onEvent can cancel at once). */
async function settle(pending: Pending[], keep: number): Promise<void> {
  while (pending.length > keep) await pending.shift()!();
}

/** Batches of lines in flight per shard: enough that a shard has the next batch while it decides one. */
const SHARD_BATCHES_IN_FLIGHT = 4;

/** What the inputs leave unknown, said once in the summary. */
function inputNotes(cluster: ReturnType<typeof readCluster>, unknown: number, hadSnapshot: boolean, problems: readonly string[] = []): string[] {
  const notes: string[] = [];
  if (problems.length)
    notes.push(
      `${problems.length} part${problems.length === 1 ? '' : 's'} of the snapshot could not be read and ${problems.length === 1 ? 'was' : 'were'} skipped (the first: ${problems[0]})`,
    );
  if (!hadSnapshot) notes.push('no cluster snapshot: the baseline chain is empty, and old objects come from the log alone');
  else if (!cluster.namespaces.length)
    notes.push('the snapshot has no Namespaces: namespaceSelector and namespaceObject saw each namespace with only its kubernetes.io/metadata.name label');
  if (unknown)
    notes.push(`${unknown} update or delete requests had no old object in the log or the snapshot (oldObject: unknown); rules on oldObject saw none`);
  return notes;
}

/** The report's one-line answer. */
export function headlineOf(s: Omit<ImpactSummary, 'headline'>): string {
  const parts: string[] = [];
  if (s.events) {
    const denied = s.changes['newly-denied'];
    const shown = s.newlyDeniedBy.slice(0, 3);
    const rest = denied - shown.reduce((a, b) => a + b.count, 0);
    const others = s.newlyDeniedBy.length - shown.length;
    // the counts add up to the denials: the policies past the third (or a denial no one is named for) as one more part
    const more = rest > 0 ? [others > 0 ? `${rest} by ${others} other${others === 1 ? '' : 's'}` : `${rest} more`] : [];
    const by = [...shown.map((b) => `${b.count} by ${b.by}`), ...more].join(', ');
    parts.push(
      denied
        ? `the candidate would have denied ${denied} of ${s.events} writes${by ? `: ${by}` : ''}`
        : `the candidate would have denied none of ${s.events} writes`,
    );
  }
  if (s.existing.total) {
    const d = s.existing.changes['newly-denied'];
    parts.push(`${d ? d : 'none'} of ${s.existing.total} existing objects would be rejected if created now`);
  }
  if (!parts.length)
    return s.cancelled ? 'Cancelled before any write or existing object was judged' : 'nothing to replay: give an audit log or a cluster snapshot';
  const text = parts.join('; ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}${s.cancelled ? ' (cancelled: partial report)' : ''}`;
}

/** See the module comment. Never throws on bad input: what cannot be read is counted in `skipped`. */
export async function analyzeImpact(input: ImpactInput): Promise<ImpactReport> {
  const options = input.options ?? {};
  const version = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const cluster = readCluster(input.cluster ?? []);
  const workspaceOthers = input.workspace.filter((o) => !isAdmissionObject(o));
  const others = [...cluster.objects, ...workspaceOthers];
  const discovery: Discovery = discoveryFor(others, version);
  const baseline = chainOf(cluster.chain, others);
  const candidate = chainOf(candidateChain(cluster.chain, input.workspace, options.candidate), others);
  const statics = new Set<unknown>((input.staticDocuments ?? []).map((i) => input.workspace[i]).filter(isObject));
  const staticIndices = candidate.objects.flatMap((o, i) => (statics.has(o) ? [i] : []));
  const staticNames = new Set([...statics].map(chainKey));
  /** A denial by a static policy or webhook configuration of the candidate says so. */
  const markStatic = (d: Decision): Decision => {
    const mark = (x: Denial): Denial => (staticNames.has(`${x.kind}/${x.name}`) ? { ...x, static: true } : x);
    return staticNames.size && d.deniedBy ? { ...d, deniedBy: mark(d.deniedBy), ...(d.denials ? { denials: d.denials.map(mark) } : {}) } : d;
  };
  const stateObjects = [...cluster.objects, ...workspaceOthers.filter((o) => obj(o).kind === 'Namespace')];

  const report: ImpactReport = { events: [], requests: {}, existing: [], skipped: [], summary: undefined as unknown as ImpactSummary };
  let keptRequests = 0;
  const changes = zeroChanges();
  const existingChanges = zeroChanges();
  const skipped: Partial<Record<SkipReason, number>> = {};
  const deniedBy = new Map<string, number>();
  /** Per webhook called by the candidate: calls, calls per second of the log's time, the busiest second so far. */
  const calls = new Map<string, { calls: number; perSecond: Map<number, number>; peak: number }>();
  let lines = 0;
  let events = 0;
  let baselineDisagrees = 0;
  let unknownOld = 0;
  let from: number | undefined;
  let to: number | undefined;
  let cancelled = false;
  /** Why the replay stopped before the end of the log (a shard failed). */
  let stopped: string | undefined;
  const existingTotal = options.existing === false ? 0 : cluster.objects.length;
  const spec: ChainSpec = {
    baseline: baseline.objects,
    candidate: candidate.objects,
    kubernetesVersion: version,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(staticIndices.length ? { staticDocuments: staticIndices } : {}),
  };
  const decider = (options.decider ?? chainDecider)(spec);
  const inFlight = Math.max(1, options.inFlight ?? 1);
  const pending: Pending[] = [];
  // with several in flight, half are taken before the next are started: those start in one turn,
  // so their engine requests leave together (one at a time was a pipe write per request)
  const refill = inFlight > 1 ? inFlight >> 1 : 0;
  const progress = (phase: ImpactProgress['phase']) =>
    options.onProgress?.({ lines, events, existing: report.existing.length, existingTotal, changed: events - changes.unchanged, phase });

  const workspaceObjects = new Set(input.workspace);
  /** What else of the cluster a kept request's candidate run read (src/impact/scenario.ts), prepared on the first kept request. */
  let readOf: ((request: AdmissionRequest) => unknown[]) | undefined;
  const keep = (k: KeptRequest, source: string): KeptRequest => {
    readOf ??= clusterObjects(candidate.objects, (o) => workspaceObjects.has(o));
    return { ...k, source, objects: readOf(k.request) };
  };
  let keptExisting = 0;

  /** A line's outcome taken into the report, in log order. */
  function take(o: LineOutcome): void {
    if ('skip' in o) {
      skipped[o.skip.reason] = (skipped[o.skip.reason] ?? 0) + 1;
      if (report.skipped.length < MAX_SKIPPED_KEPT) report.skipped.push(o.skip);
    } else takeEvent(staticNames.size ? { ...o.event, candidate: markStatic(o.event.candidate) } : o.event, o.kept);
  }

  if (input.audit !== undefined && options.shards?.length) {
    // the log split by object over the shards (src/impact/shard.ts); this thread reads and routes
    const n = options.shards.length;
    const objects = shardObjects(stateObjects, n);
    const definitions = others.filter((o) => obj(o).kind === 'CustomResourceDefinition');
    const shards = shardedReplay(
      options.shards,
      objects.map((objects) => ({
        spec,
        definitions,
        objects,
        keepRequests: options.keepRequests ?? 0,
        ...(options.retainState ? { retain: options.retainState } : {}),
      })),
    );
    const depth = n * SHARD_BATCHES_IN_FLIGHT;
    try {
      for await (const batch of readLineBatches(input.audit)) {
        if (options.signal?.aborted) {
          cancelled = true;
          break;
        }
        const outcomes = shards.replay(batch);
        outcomes.catch(() => undefined); // a failure is taken (and said) in order, below; the batches after it are dropped
        const read = batch.filter((l) => l.error === undefined);
        const last = read[read.length - 1]?.line;
        pending.push(async () => {
          for (const o of await outcomes) take(o);
          if (last !== undefined) lines = last;
        });
        if (pending.length >= depth) await settle(pending, depth >> 1);
      }
    } catch (e) {
      stopped = e instanceof Error ? e.message : String(e);
    }
    // what was started is taken; after a failure, up to the first batch a failed shard held
    try {
      await settle(pending, 0);
    } catch (e) {
      stopped ??= e instanceof Error ? e.message : String(e);
      pending.length = 0;
    }
    shards.close();
    if (stopped) cancelled = true;
  } else if (input.audit !== undefined) {
    const replay = logReplay({
      state: stateOf(stateObjects),
      discovery,
      decide: decider,
      keepRequests: options.keepRequests ?? 0,
      ...(options.retainState ? { retain: options.retainState } : {}),
    });
    reading: for await (const batch of readLineBatches(input.audit)) {
      for (const l of batch) {
        if (options.signal?.aborted) {
          cancelled = true;
          break reading;
        }
        if (l.error === undefined) lines = l.line;
        const outcome = replay(l);
        if (!outcome) continue;
        if (!(outcome instanceof Promise)) {
          take(outcome);
          continue;
        }
        pending.push(() => outcome.then(take));
        if (pending.length >= inFlight) await settle(pending, refill);
      }
    }
    await settle(pending, 0);
  }

  /** An event's decisions taken into the report, in log order. */
  function takeEvent(result: EventImpact, kept: KeptRequest | undefined): void {
    const { baseline: b, candidate: c, change } = result;
    events++;
    changes[change]++;
    if (result.oldObject === 'unknown') unknownOld++;
    if (change === 'newly-denied' && c.deniedBy)
      deniedBy.set(`${c.deniedBy.kind} ${c.deniedBy.name}`, (deniedBy.get(`${c.deniedBy.kind} ${c.deniedBy.name}`) ?? 0) + 1);
    const liveAllowed = result.live.code < 400;
    if (b.allowed !== liveAllowed) baselineDisagrees++;
    const time = result.time;
    if (Number.isFinite(time)) {
      from = from === undefined ? time : Math.min(from, time);
      to = to === undefined ? time : Math.max(to, time);
    }
    const sec = Number.isFinite(time) ? Math.floor(time / 1000) : undefined;
    for (const w of c.calls) {
      let k = calls.get(w);
      if (!k) calls.set(w, (k = { calls: 0, perSecond: new Map(), peak: 0 }));
      k.calls++;
      if (sec !== undefined) {
        const n = (k.perSecond.get(sec) ?? 0) + 1;
        k.perSecond.set(sec, n);
        // the peak as it grows: a week's log has ~600,000 seconds, too many to spread into Math.max
        if (n > k.peak) k.peak = n;
      }
    }
    if (kept && keptRequests < (options.keepRequests ?? 0)) {
      keptRequests++;
      report.requests[result.auditID] = keep(kept, `line ${result.line} of the audit log`);
    }
    options.onEvent?.(result);
    if (change === 'unchanged' ? options.keepUnchanged !== false : options.keepChanged !== false) report.events.push(result);
    if (events % 200 === 0) progress('audit');
  }

  const user = options.user ?? ADMIN;
  const existingJudged = !cancelled && existingTotal > 0;
  if (existingJudged) {
    // the Namespaces as the snapshot has them: the cluster now, whatever the log's replay did before it
    const namespaces = new Map(cluster.namespaces.map((o) => [nameOf(o), o]));
    for (const o of workspaceOthers) if (obj(o).kind === 'Namespace') namespaces.set(nameOf(o), o);
    for (const o of cluster.objects) {
      if (options.signal?.aborted) {
        cancelled = true;
        break;
      }
      const apiVersion = str(obj(o).apiVersion);
      const slash = apiVersion.indexOf('/');
      const gvk = { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind: str(obj(o).kind) };
      const info = discovery.resourceFor(gvk);
      if (!info || !isObject(o)) continue;
      const namespace = info.namespaced ? namespaceOf(o) : '';
      const request: AdmissionRequest = {
        operation: 'CREATE',
        resource: { group: info.group, version: info.version, resource: info.resource },
        kind: gvk,
        name: nameOf(o),
        namespace,
        object: o,
        userInfo: user,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      };
      const namespaceObject = namespace ? namespaces.get(namespace) : undefined;
      const decision = decider(request, namespaceObject);
      pending.push(() =>
        decision.then(({ baseline: b, candidate }) => {
          const c = markStatic(candidate);
          const change = changeOf(b, c);
          existingChanges[change]++;
          const judged: ExistingImpact = { kind: gvk.kind, ...(namespace ? { namespace } : {}), name: nameOf(o), candidate: c, baseline: b, change };
          report.existing.push(judged);
          if (change !== 'unchanged' && keptExisting < (options.keepRequests ?? 0)) {
            keptExisting++;
            const what = existingKey(judged);
            report.requests[what] = keep(
              { request, ...(namespaceObject ? { namespaceObject } : {}) },
              `${what.replace(/^existing /, 'the existing ')} of the snapshot, created now`,
            );
          }
          if (report.existing.length % 200 === 0) progress('existing');
        }),
      );
      if (pending.length >= inFlight) await settle(pending, refill);
    }
    await settle(pending, 0);
  }

  const webhookCalls = [...calls].map(([webhook, k]) => ({
    webhook,
    calls: k.calls,
    peakPerSecond: k.peak,
    ...(candidate.timeouts.has(webhook) ? { timeoutSeconds: candidate.timeouts.get(webhook) } : {}),
  }));
  const partial: Omit<ImpactSummary, 'headline'> = {
    lines,
    events,
    skipped,
    changes,
    existing: { total: report.existing.length, judged: existingJudged, changes: existingChanges },
    newlyDeniedBy: [...deniedBy].map(([by, count]) => ({ by, count })).sort((a, b) => b.count - a.count || a.by.localeCompare(b.by)),
    ...(from !== undefined ? { from, to } : {}),
    webhookCalls: webhookCalls.sort((a, b) => b.calls - a.calls),
    baselineDisagrees,
    notes: [
      ...inputNotes(cluster, unknownOld, input.cluster !== undefined, input.clusterProblems),
      ...(stopped ? [`the replay stopped at line ${lines}: ${stopped}`] : []),
    ],
    cancelled,
    assumed: { kubernetesVersion: version, webhooks: options.webhooks ?? {}, user },
  };
  report.summary = { ...partial, headline: headlineOf(partial) };
  progress('done');
  return report;
}
