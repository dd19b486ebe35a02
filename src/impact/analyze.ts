/**
 * analyzeImpact: what a candidate admission chain would have done to a cluster's real traffic
 * (an audit log) and to the objects it runs now (a snapshot), beside what the cluster's own
 * chain (the baseline) does with the same requests. Every request is decided by both chains
 * (decide.ts); the log's lines are replayed here (events.ts) or in shards, split by object
 * (shard.ts), and their outcomes taken into the report in log order.
 */
import { isObject, nameOf, namespaceOf, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import type { StaticOrder } from '../k8s/static-manifests';
import type { WebhookResponse } from '../admission';
import type { AdmissionRequest, UserInfo } from '../request/model';
import type { SkipReason } from './audit';
import { paramKinds } from '../policy';
import { chainKey, chainSettingsOf, chainTracker, type SnapshotEvidence } from './chains';
import { isAdmissionObject, readCluster, stateOf } from './cluster';
import { chainDecider, changeOf, CHANGES, type Change, type ChainSpec, type Decider, type Decision, type Denial } from './decide';
import { logReplay, specDiscovery, type EventImpact, type KeptRequest, type LineOutcome, type LogLine, type SkippedLine } from './events';
import { inputNotes, isUnreadable, logProblems, refusedAt, snapshotProblems, unknownAnswers, type LogReading } from './inputs';
import { clusterObjects } from './scenario';
import { readLineBatches, type TextSource } from './lines';
import { laterReads, type LaterReads } from './retain';
import { engineInFlight } from './pool';
import { shardedReplay, shardObjects, type OpenShard } from './shard';
import { byCount, headlineOf, snapshotTimeNote, tally, type ImpactSummary } from './summary';

export type { EventImpact } from './events';
export type { ImpactSummary } from './summary';

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
  /** Where the candidate's static mutating webhooks run (the workspace's setting; SimOptions.staticOrder). */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults (ConditionalAuthorization: each event's conditional decision is read from its audit annotations). */
  featureGates?: readonly string[];
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
  /** Keep, besides, the requests of the changed events it says yes to, in log order (this thread's replay: not a shard's). */
  keepRequest?: (e: EventImpact) => boolean;
  onEvent?: (e: EventImpact) => void;
  onProgress?: (p: ImpactProgress) => void;
  signal?: AbortSignal;
  /**
   * Who decides: given both chains, a function from a request to both decisions (default
   * `chainDecider`, on this thread). The CLI passes a pool of worker threads, one engine each.
   */
  decider?: (spec: ChainSpec) => Decider;
  /**
   * Decisions in flight at once; results are still taken in log order. Default 1 (each event is
   * taken before the next line is read, so `onEvent` can cancel at once), but with the native
   * engine (Node's default when built), this thread deciding and no `onEvent`:
   * IN_FLIGHT_PER_ENGINE per engine process, one process per core (pool.ts).
   */
  inFlight?: number;
  /** For each object, the last line that reads it (`laterReads` over the same log, read once before): the replay keeps only the objects still to be read (default: every object). */
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
  /**
   * The audit log: JSON lines of audit.k8s.io/v1 Event, as text or chunks (gzip recognised); or a
   * function that gives it anew at each call (a file's stream): it is then read twice, first for the
   * last line that reads each object (`laterReads`), so the replay's memory holds the objects still
   * to be read instead of every object of the log (a large log needs it: `options.retainState`).
   */
  audit?: TextSource | (() => TextSource);
  /** What of the snapshot could not be read (`readSnapshot`'s problems): skipped, said in the summary's notes. */
  clusterProblems?: readonly string[];
  /** Indices into `workspace` of the documents loaded from static manifests (the Simulate view's static marks, the CLI's `--static`). */
  staticDocuments?: readonly number[];
  options?: ImpactOptions;
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

const zeroChanges = (): Record<Change, number> => Object.fromEntries(CHANGES.map((c) => [c, 0])) as Record<Change, number>;

/** A decision (or a batch of outcomes) started, and its taking into the report: taken in the order started. */
type Pending = () => Promise<void>;

/** Takes the oldest decisions until at most `keep` are in flight (0 with one in flight: each is taken before the next line is read, so onEvent can cancel at once). */
async function settle(pending: Pending[], keep: number): Promise<void> {
  while (pending.length > keep) await pending.shift()!();
}

const NOT_BLANK = /\S/;

/** Batches of lines in flight per shard: enough that a shard has the next batch while it decides one. */
const SHARD_BATCHES_IN_FLIGHT = 4;

/** See the module comment. Never throws on bad input: what cannot be read is counted in `skipped`, and said in the summary (`inputErrors`, `warnings`). */
export async function analyzeImpact(input: ImpactInput): Promise<ImpactReport> {
  // cancelled before it began: the caller read the inputs under the same signal (the Impact view's
  // worker), so they may be cut short, and are not judged: a cut snapshot is not an empty one
  const cancelledFirst = input.options?.signal?.aborted === true;
  let options = input.options ?? {};
  if (typeof input.audit === 'function' && !options.retainState) {
    const retainState = await laterReads(input.audit(), options.signal).catch(() => undefined); // unreadable: the replay says where
    if (retainState) options = { ...options, retainState };
  }
  const audit = typeof input.audit === 'function' ? input.audit() : input.audit;
  const version = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const cluster = readCluster(input.cluster ?? []);
  // the candidate at the target release: what the release does not serve is not there
  const { refused, leftOut } = refusedAt(input.workspace, version);
  const workspace = input.workspace.filter((o) => !leftOut.has(o));
  const statics = new Set<unknown>((input.staticDocuments ?? []).map((i) => input.workspace[i]).filter(isObject));
  const staticNames = new Set([...statics].map(chainKey));
  /** A denial by a static policy or webhook configuration of the candidate says so. */
  const markStatic = (d: Decision): Decision => {
    const mark = (x: Denial): Denial => (staticNames.has(`${x.kind}/${x.name}`) ? { ...x, static: true } : x);
    return staticNames.size && d.deniedBy ? { ...d, deniedBy: mark(d.deniedBy), ...(d.denials ? { denials: d.denials.map(mark) } : {}) } : d;
  };
  const chains = chainTracker({ ...chainSettingsOf(options), workspace, kubernetesVersion: version, statics }, cluster.chain, cluster.objects);
  /** What the candidate brings that requests read (its params, Namespaces, CustomResourceDefinitions): installed before the first line. */
  const kinds = paramKinds(workspace.filter(isAdmissionObject));
  const workspaceObjects = workspace.filter(
    (o) => isObject(o) && (o.kind === 'Namespace' || o.kind === 'CustomResourceDefinition' || kinds.has(`${str(o.apiVersion)}/${str(o.kind)}`)),
  );

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
  const baselineDeniedBy = new Map<string, number>();
  let unknownOld = 0;
  let undeterminedOld = 0;
  /** Writes whose old object came from the snapshot without anything in the log to say when it was taken. */
  let unproven = 0;
  /** When the snapshot was taken, as the events show it (the chains' writes say it too: the first line of either counts). */
  const evidence: SnapshotEvidence = {};
  /** What the log's lines turned out to be (its input error or warning). */
  const reading: LogReading = { lines: 0, events: 0, unreadable: 0 };
  let from: number | undefined;
  let to: number | undefined;
  let cancelled = cancelledFirst;
  /** Why the replay stopped before the end of the log (a shard failed). */
  let stopped: string | undefined;
  const existingTotal = options.existing === false ? 0 : cluster.objects.length;
  /** Who decides with chains: the last one made is used again for the same chains (the existing objects' when the log changed none). */
  let made: { spec: ChainSpec; decide: Decider } | undefined;
  const decider = (spec: ChainSpec): Decider => (made?.spec === spec ? made.decide : (made = { spec, decide: (options.decider ?? chainDecider)(spec) }).decide);
  const inFlight = Math.max(1, options.inFlight ?? (options.decider || options.onEvent ? 1 : await engineInFlight()));
  const pending: Pending[] = [];
  // with several in flight, half are taken before the next are started: those start in one turn,
  // so their engine requests leave together (one at a time was a pipe write per request)
  const refill = inFlight > 1 ? inFlight >> 1 : 0;
  const progress = (phase: ImpactProgress['phase']) =>
    options.onProgress?.({ lines, events, existing: report.existing.length, existingTotal, changed: events - changes.unchanged - changes.undetermined, phase });

  /** A line as read, before it is replayed: counted, and with the chains it brings (a param, a policy … changed before it). */
  const prepare = (l: LogLine): LogLine => {
    const blank = !NOT_BLANK.test(l.text);
    if (l.error !== undefined || l.tooLong || !blank) {
      reading.lines++;
      if (reading.head === undefined && !blank) reading.head = l.text.slice(0, 200);
    }
    const chain = chains.line(l);
    if (chain) specs.push({ line: l.line, spec: chain });
    return chain ? { ...l, chain } : l;
  };

  /** The chains the log brought, from the line on (prepared ahead of the outcomes taken; both in log order). */
  const specs: { line: number; spec: ChainSpec }[] = [];
  let specNow = chains.now;
  /** The chains a line was decided with: those of the last line at or before it that brought some. */
  const specAt = (line: number): ChainSpec => {
    while (specs.length && specs[0]!.line <= line) specNow = specs.shift()!.spec;
    return specNow;
  };
  const fromWorkspace = new Set(input.workspace);
  /** What else of the cluster a kept request's candidate run read (src/impact/scenario.ts), per chains (the params as of that line). */
  const readers = new WeakMap<ChainSpec, (request: AdmissionRequest) => unknown[]>();
  const keep = (k: KeptRequest, source: string, spec: ChainSpec): KeptRequest => {
    let readOf = readers.get(spec);
    if (!readOf) readers.set(spec, (readOf = clusterObjects(spec.candidate, (o) => fromWorkspace.has(o))));
    return { ...k, source, objects: readOf(k.request) };
  };
  let keptExisting = 0;

  /** A line's outcome taken into the report, in log order. */
  function take(o: LineOutcome): void {
    // the chains before it are done with: not kept to the end (a log that changes a param per namespace brings one every few lines)
    specAt('skip' in o ? o.skip.line : o.event.line);
    if ('skip' in o) {
      skipped[o.skip.reason] = (skipped[o.skip.reason] ?? 0) + 1;
      if (report.skipped.length < MAX_SKIPPED_KEPT) report.skipped.push(o.skip);
      if (isUnreadable(o.skip.reason)) {
        reading.unreadable++;
        reading.first ??= { line: o.skip.line, reason: o.skip.reason };
      } else reading.events++;
    } else {
      reading.events++;
      takeEvent(staticNames.size ? { ...o.event, candidate: markStatic(o.event.candidate) } : o.event, o.kept);
    }
  }

  if (audit !== undefined && options.shards?.length) {
    // the log split by object over the shards (src/impact/shard.ts); this thread reads and routes
    const n = options.shards.length;
    const objects = shardObjects(cluster.objects, n);
    const mine = shardObjects(workspaceObjects, n);
    const shards = shardedReplay(
      options.shards,
      objects.map((objects, i) => ({
        spec: chains.now,
        objects,
        workspace: mine[i]!,
        keepRequests: options.keepRequests ?? 0,
        ...(options.retainState ? { retain: options.retainState } : {}),
      })),
    );
    const depth = n * SHARD_BATCHES_IN_FLIGHT;
    try {
      for await (const batch of readLineBatches(audit)) {
        if (options.signal?.aborted) {
          cancelled = true;
          break;
        }
        const outcomes = shards.replay(batch.map(prepare));
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
  } else if (audit !== undefined) {
    const replay = logReplay({
      state: stateOf(cluster.objects, workspaceObjects),
      spec: chains.now,
      decider,
      keepRequests: options.keepRequests ?? 0,
      ...(options.keepRequest ? { keepRequest: options.keepRequest } : {}),
      ...(options.retainState ? { retain: options.retainState } : {}),
    });
    log: for await (const batch of readLineBatches(audit)) {
      for (const l of batch) {
        if (options.signal?.aborted) {
          cancelled = true;
          break log;
        }
        if (l.error === undefined) lines = l.line;
        const outcome = replay(prepare(l));
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
    if (change === 'undetermined' && result.oldObject === 'unknown') undeterminedOld++;
    if (result.snapshotTime && result.snapshotTime !== 'unknown') evidence[result.snapshotTime] ??= { line: result.line, what: describeRequest(result) };
    else if (result.snapshotTime === 'unknown') unproven++;
    if (change === 'newly-denied' && c.deniedBy) tally(deniedBy, c.deniedBy);
    const liveAllowed = result.live.code < 400;
    if (b.allowed !== liveAllowed) baselineDisagrees++;
    if (!b.allowed && liveAllowed && b.deniedBy) tally(baselineDeniedBy, b.deniedBy);
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
    if (kept && (options.keepRequest || keptRequests < (options.keepRequests ?? 0))) {
      keptRequests++;
      report.requests[result.auditID] = keep(kept, `line ${result.line} of the audit log`, specAt(result.line));
    }
    options.onEvent?.(result);
    if (change === 'unchanged' ? options.keepUnchanged !== false : options.keepChanged !== false) report.events.push(result);
    if (events % 200 === 0) progress('audit');
  }

  const user = options.user ?? ADMIN;
  const existingJudged = !cancelled && existingTotal > 0;
  if (existingJudged) {
    // the existing objects as the snapshot holds them, judged by the chains the snapshot holds
    const decide = decider(chains.now);
    const discovery = specDiscovery(chains.now);
    // the Namespaces as the snapshot has them: the cluster now, whatever the log's replay did before it
    const namespaces = new Map(cluster.namespaces.map((o) => [nameOf(o), o]));
    for (const o of workspace) if (obj(o).kind === 'Namespace') namespaces.set(nameOf(o), o);
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
      const decision = decide(request, namespaceObject);
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
              chains.now,
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
    ...(chains.timeouts.has(webhook) ? { timeoutSeconds: chains.timeouts.get(webhook) } : {}),
  }));
  const inputErrors: string[] = [];
  const warnings: string[] = [];
  if (input.cluster !== undefined && !cancelledFirst) {
    const p = snapshotProblems(input.cluster, input.clusterProblems ?? []);
    if (p.error) inputErrors.push(p.error);
    if (p.warning) warnings.push(p.warning);
  }
  if (audit !== undefined && !cancelled) {
    const p = logProblems(reading);
    if (p.error) inputErrors.push(p.error);
    if (p.warning) warnings.push(p.warning);
  }
  const answers = cancelledFirst ? undefined : unknownAnswers(options.webhooks, chains.webhooks);
  if (answers) warnings.push(answers);
  for (const r of refused)
    warnings.push(
      r.leftOut
        ? `Kubernetes ${version} does not serve ${r.kind} ${r.name} (${r.message}): the candidate runs without it`
        : `Kubernetes ${version} would not store ${r.kind} ${r.name} (${r.message}): the result is for a configuration the cluster cannot hold`,
    );
  for (const k of ['after', 'before'] as const) {
    const c = chains.evidence[k];
    if (c && (!evidence[k] || c.line < evidence[k].line)) evidence[k] = c;
  }
  const timeNote = input.cluster !== undefined && audit !== undefined ? snapshotTimeNote(evidence, unproven) : undefined;
  const partial: Omit<ImpactSummary, 'headline'> = {
    kubernetesVersion: version,
    lines,
    events,
    skipped,
    changes,
    existing: { total: report.existing.length, judged: existingJudged, changes: existingChanges },
    newlyDeniedBy: byCount(deniedBy),
    ...(from !== undefined ? { from, to } : {}),
    webhookCalls: webhookCalls.sort((a, b) => b.calls - a.calls),
    baselineDisagrees,
    baselineDeniedBy: byCount(baselineDeniedBy),
    refused,
    inputErrors,
    warnings,
    notes: [
      ...inputNotes(cluster, unknownOld, undeterminedOld, input.cluster !== undefined),
      ...(timeNote ? [timeNote] : []),
      ...chains.notes(),
      ...(stopped ? [`the replay stopped at line ${lines}: ${stopped}`] : []),
    ],
    cancelled,
    assumed: { kubernetesVersion: version, webhooks: options.webhooks ?? {}, user },
  };
  report.summary = { ...partial, headline: headlineOf(partial) };
  progress('done');
  return report;
}

/** A write in a few words, for the notes. */
const describeRequest = (e: EventImpact): string =>
  `${e.request.operation} ${e.request.resource} ${e.request.namespace ? `${e.request.namespace}/` : ''}${e.request.name ?? ''}`;
