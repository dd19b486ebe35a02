/**
 * analyzeImpact: what a candidate admission chain would have done to a cluster's real traffic
 * (an audit log) and to the objects it runs now (a snapshot), beside what the cluster's own
 * chain (the baseline) does with the same requests. Every request goes through `simulate`
 * (src/admission) twice: the baseline chain and the candidate chain.
 */
import { isObject, nameOf, namespaceOf, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { discoveryFor, leanChain, leanSet, leanVerdicts, prepareChain, probePrepared, requestCel, simulatePrepared, type Discovery, type LeanRegistry, type LeanVerdict, type PreparedChain, type SimOptions, type SimResult, type WebhookResponse } from '../admission';
import { evaluate, evaluateBatchOnce } from '../cel';
import type { PolicyCel } from '../policy';
import type { AdmissionRequest, UserInfo } from '../request/model';
import { readAuditLine, type AuditLine, type AuditWrite, type SkipReason } from './audit';
import { isAdmissionObject, readCluster, stateKey, stateOf, type OldObjectSource } from './cluster';
import { readLineBatches, type TextSource } from './lines';
import { replayRequest } from './replay';

export interface Denial {
  kind: string;
  name: string;
  binding?: string;
  webhook?: string;
  message: string;
  /** The policy or webhook configuration is loaded from a static manifest (it runs before the API objects; the API cannot delete it). */
  static?: true;
}

/** What one chain did with one request. */
export interface Decision {
  allowed: boolean;
  /** The denial the client sees (null when allowed). */
  deniedBy: Denial | null;
  /** Every step that would deny, when more than one would (the apiserver names only `deniedBy`). */
  denials?: Denial[];
  warnings: string[];
  /** Keys of the audit annotations the chain added. */
  audited: string[];
  /** Webhooks called (their answers are assumed: `ImpactOptions.webhooks`, default allow). */
  calls: string[];
  mutated: boolean;
}

export type Change = 'newly-denied' | 'no-longer-denied' | 'newly-warned' | 'newly-audited' | 'newly-mutated' | 'unchanged';

export const CHANGES: readonly Change[] = ['newly-denied', 'no-longer-denied', 'newly-warned', 'newly-audited', 'newly-mutated', 'unchanged'];

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
}

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
  /** Keep the whole admission request of up to this many changed events (`report.requests`, by auditID), to open them in the simulator (default 0). */
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
   * Whether a later event reads the object an event leaves (default: keep every object). From
   * `laterReads` (src/impact/retain.ts) over the same log read once before: the replay then
   * keeps only the objects still to be read.
   */
  retainState?: (ev: AuditWrite) => boolean;
}

/** Both chains as plain data (structured-cloneable: what a worker needs to decide). */
export interface ChainSpec {
  baseline: unknown[];
  candidate: unknown[];
  kubernetesVersion: KubernetesVersion;
  webhooks?: Record<string, WebhookResponse>;
  /** Indices into `candidate` of the objects loaded from static manifests (the simulator runs them first: `prepareChain`). */
  staticDocuments?: readonly number[];
}

export interface DecisionPair {
  baseline: Decision;
  candidate: Decision;
}

/** One request through both chains; `namespaceObject` is the request's Namespace (or undefined). */
export type Decider = (request: AdmissionRequest, namespaceObject: unknown) => Promise<DecisionPair>;

/**
 * The decider on this thread: both chains prepared once and compiled for lean verdicts (one
 * engine batch per request for both chains, no explanation built: allowed, or denied by
 * ValidatingAdmissionPolicies' false validations); a chain the lean path leaves undecided (a
 * mutation, an error, params, a webhook that denies …) runs the full simulation (and its probe
 * when denied), with one CEL memo per request shared by its runs.
 */
export function chainDecider(spec: ChainSpec): Decider {
  const baseline = prepareChain(spec.baseline, { kubernetesVersion: spec.kubernetesVersion });
  const candidate = prepareChain(spec.candidate, { kubernetesVersion: spec.kubernetesVersion, staticDocuments: spec.staticDocuments });
  const registry: LeanRegistry = new Map();
  const lean = leanSet([leanChain(baseline, registry), leanChain(candidate, registry)]);
  return async (request, namespace) => {
    const sim = { webhooks: spec.webhooks, namespaces: namespace ? [namespace] : [] };
    const [lb, lc] = await leanVerdicts(lean, request, sim, DEFAULT_CEL);
    if (lb && lc) return { baseline: leanDecision(lb), candidate: leanDecision(lc) };
    const cel = requestCel(spec.kubernetesVersion);
    const [b, c] = await Promise.all([lb ? leanDecision(lb) : decide(baseline, request, sim, cel), lc ? leanDecision(lc) : decide(candidate, request, sim, cel)]);
    return { baseline: b, candidate: c };
  };
}

/**
 * The decider that explains every request: both chains through simulatePrepared (and the probe
 * when denied), one CEL memo per request. What chainDecider gave before its lean verdicts, and what
 * they are tested against (lean.test.ts).
 */
export function fullDecider(spec: ChainSpec): Decider {
  const baseline = prepareChain(spec.baseline, { kubernetesVersion: spec.kubernetesVersion });
  const candidate = prepareChain(spec.candidate, { kubernetesVersion: spec.kubernetesVersion, staticDocuments: spec.staticDocuments });
  return async (request, namespace) => {
    const cel = requestCel(spec.kubernetesVersion);
    const sim = { webhooks: spec.webhooks, namespaces: namespace ? [namespace] : [] };
    const [b, c] = await Promise.all([decide(baseline, request, sim, cel), decide(candidate, request, sim, cel)]);
    return { baseline: b, candidate: c };
  };
}

/** The engine the lean path batches on (src/cel, no memo: each distinct expression of a request is asked once anyway; its inputs go with the batch). */
const DEFAULT_CEL: PolicyCel = { evaluate: (e, c, i, o) => evaluate(e, c, i, o), evaluateBatch: (items, inputs) => evaluateBatchOnce(items, inputs) };

/** A lean verdict as decisionOf words the full run's (the same members, in its order). */
const leanDecision = (v: LeanVerdict): Decision => ({
  allowed: v.allowed,
  deniedBy: v.deniedBy ?? null,
  warnings: v.warnings,
  audited: v.audited,
  calls: v.calls,
  mutated: false,
  ...(v.denials ? { denials: v.denials } : {}),
});

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
  existing: { total: number; changes: Record<Change, number> };
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
  headline: string;
}

/** Skipped lines kept with their line number (all are counted in `summary.skipped`). */
export const MAX_SKIPPED_KEPT = 1000;

export interface ImpactReport {
  events: EventImpact[];
  /** The requests of the first changed events (`ImpactOptions.keepRequests`), by auditID, with the Namespace they were judged with. */
  requests: Record<string, { request: AdmissionRequest; namespaceObject?: unknown }>;
  existing: ExistingImpact[];
  /** The first MAX_SKIPPED_KEPT lines not replayed, with why. */
  skipped: { line: number; auditID?: string; reason: SkipReason; detail?: string }[];
  summary: ImpactSummary;
}

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

function decisionOf(r: SimResult, all?: SimResult): Decision {
  const denial = (d: { kind: string; name: string; binding?: string; webhook?: string; message?: string }): Denial => ({
    kind: d.kind,
    name: d.name,
    ...(d.binding ? { binding: d.binding } : {}),
    ...(d.webhook ? { webhook: d.webhook } : {}),
    message: d.message ?? '',
  });
  const out: Decision = {
    allowed: r.allowed,
    deniedBy: r.deniedBy ? denial(r.deniedBy) : null,
    warnings: r.warnings,
    audited: Object.keys(r.auditAnnotations),
    calls: [...new Set(r.steps.filter((s) => s.webhook && s.outcome !== 'skipped').map((s) => s.webhook!))],
    mutated: r.patches.length > 0,
  };
  if (all) {
    const denials = all.steps.filter((s) => s.outcome === 'denied' || s.outcome === 'error-rejected').map(denial);
    if (denials.length > 1) out.denials = denials;
  }
  return out;
}

export function changeOf(baseline: Decision, candidate: Decision): Change {
  if (baseline.allowed && !candidate.allowed) return 'newly-denied';
  if (!baseline.allowed && candidate.allowed) return 'no-longer-denied';
  if (!candidate.allowed) return 'unchanged';
  if (candidate.warnings.some((w) => !baseline.warnings.includes(w))) return 'newly-warned';
  if (candidate.audited.some((a) => !baseline.audited.includes(a))) return 'newly-audited';
  if (candidate.mutated && !baseline.mutated) return 'newly-mutated';
  return 'unchanged';
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

/** Runs one request through a chain: simulate, and when it is denied a probe run for every denial. `cel`: the request's (requestCel), shared by its runs. */
async function decide(chain: PreparedChain, request: AdmissionRequest, sim: SimOptions, cel: PolicyCel): Promise<Decision> {
  const r = await simulatePrepared(chain, request, sim, cel);
  return decisionOf(r, r.allowed ? undefined : await probePrepared(chain, request, sim, cel));
}

/** A decision started and what to do with it, taken in the order started. */
interface Pending {
  decision: Promise<DecisionPair>;
  take(pair: DecisionPair): void;
}

/** Takes the oldest decisions until at most `keep` are in flight (0 with one in flight: each is taken before the next line is read, so onEvent can cancel at once). */
async function settle(pending: Pending[], keep: number): Promise<void> {
  while (pending.length > keep) {
    const p = pending.shift()!;
    p.take(await p.decision);
  }
}

/** What the inputs leave unknown, said once in the summary. */
function inputNotes(cluster: ReturnType<typeof readCluster>, unknown: number, hadSnapshot: boolean, problems: readonly string[] = []): string[] {
  const notes: string[] = [];
  if (problems.length) notes.push(`${problems.length} part${problems.length === 1 ? '' : 's'} of the snapshot could not be read and ${problems.length === 1 ? 'was' : 'were'} skipped (the first: ${problems[0]})`);
  if (!hadSnapshot) notes.push('no cluster snapshot: the baseline chain is empty, and old objects come from the log alone');
  else if (!cluster.namespaces.length)
    notes.push("the snapshot has no Namespaces: namespaceSelector and namespaceObject saw each namespace with only its kubernetes.io/metadata.name label");
  if (unknown) notes.push(`${unknown} update or delete requests had no old object in the log or the snapshot (oldObject: unknown); rules on oldObject saw none`);
  return notes;
}

/** The report's one-line answer. */
export function headlineOf(s: Omit<ImpactSummary, 'headline'>): string {
  const parts: string[] = [];
  if (s.events) {
    const denied = s.changes['newly-denied'];
    const by = s.newlyDeniedBy.slice(0, 3).map((b) => `${b.count} by ${b.by}`).join(', ');
    parts.push(denied ? `the candidate would have denied ${denied} of ${s.events} writes${by ? `: ${by}` : ''}` : `the candidate would have denied none of ${s.events} writes`);
  }
  if (s.existing.total) {
    const d = s.existing.changes['newly-denied'];
    parts.push(`${d ? d : 'none'} of ${s.existing.total} existing objects would be rejected if created now`);
  }
  if (!parts.length) return 'nothing to replay: give an audit log or a cluster snapshot';
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
  const state = stateOf([...cluster.objects, ...workspaceOthers.filter((o) => obj(o).kind === 'Namespace')]);
  const namespaceObject = (ns: string | undefined): unknown => (ns ? state.get(stateKey('', 'Namespace', '', ns))?.object : undefined);

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
  const existingTotal = options.existing === false ? 0 : cluster.objects.length;
  const decider = (options.decider ?? chainDecider)({
    baseline: baseline.objects,
    candidate: candidate.objects,
    kubernetesVersion: version,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(staticIndices.length ? { staticDocuments: staticIndices } : {}),
  });
  const inFlight = Math.max(1, options.inFlight ?? 1);
  const pending: Pending[] = [];
  // with several in flight, half are taken before the next are started: those start in one turn,
  // so their engine requests leave together (one at a time was a pipe write per request)
  const refill = inFlight > 1 ? inFlight >> 1 : 0;
  const progress = (phase: ImpactProgress['phase']) =>
    options.onProgress?.({ lines, events, existing: report.existing.length, existingTotal, changed: events - changes.unchanged, phase });

  if (input.audit !== undefined) {
    reading: for await (const batch of readLineBatches(input.audit)) {
      for (const l of batch) {
        if (options.signal?.aborted) {
          cancelled = true;
          break reading;
        }
        if (l.error === undefined) lines = l.line;
        const read: AuditLine | undefined =
          l.error !== undefined ? { kind: 'skip', line: l.line, reason: 'unreadable', detail: l.error }
          : l.tooLong ? { kind: 'skip', line: l.line, reason: 'too-long', detail: `${l.tooLong} characters` }
          : readAuditLine(l.text, l.line, l.terminated);
        if (!read) continue;
        if (read.kind === 'skip') {
          skipped[read.reason] = (skipped[read.reason] ?? 0) + 1;
          if (report.skipped.length < MAX_SKIPPED_KEPT) report.skipped.push({ line: read.line, ...(read.auditID ? { auditID: read.auditID } : {}), reason: read.reason, ...(read.detail ? { detail: read.detail } : {}) });
          continue;
        }
        const ev = read.event;
        const replayed = replayRequest(ev, state, discovery, options.retainState);
        if (replayed.oldObject === 'unknown') unknownOld++;
        const ns = namespaceObject(replayed.request.namespace);
        pending.push({ decision: decider(replayed.request, ns), take: ({ baseline: b, candidate: c }) => takeEvent(ev, replayed, ns, b, markStatic(c)) });
        if (pending.length >= inFlight) await settle(pending, refill);
      }
    }
    await settle(pending, 0);
  }

  /** An event's decisions taken into the report, in log order. */
  function takeEvent(ev: AuditWrite, replayed: ReturnType<typeof replayRequest>, ns: unknown, b: Decision, c: Decision): void {
    const change = changeOf(b, c);
    events++;
    changes[change]++;
    if (change === 'newly-denied' && c.deniedBy) deniedBy.set(`${c.deniedBy.kind} ${c.deniedBy.name}`, (deniedBy.get(`${c.deniedBy.kind} ${c.deniedBy.name}`) ?? 0) + 1);
    const liveAllowed = ev.status.code < 400;
    if (b.allowed !== liveAllowed) baselineDisagrees++;
    if (Number.isFinite(ev.time)) {
      from = from === undefined ? ev.time : Math.min(from, ev.time);
      to = to === undefined ? ev.time : Math.max(to, ev.time);
    }
    const sec = Number.isFinite(ev.time) ? Math.floor(ev.time / 1000) : undefined;
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
    const r = replayed.request;
    const result: EventImpact = {
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
      candidate: c,
      baseline: b,
      change,
      ...(replayed.notes.length ? { notes: replayed.notes } : {}),
    };
    if (change !== 'unchanged' && keptRequests < (options.keepRequests ?? 0)) {
      keptRequests++;
      report.requests[ev.auditID] = { request: replayed.request, ...(ns ? { namespaceObject: ns } : {}) };
    }
    options.onEvent?.(result);
    if (change === 'unchanged' ? options.keepUnchanged !== false : options.keepChanged !== false) report.events.push(result);
    if (events % 200 === 0) progress('audit');
  }

  if (!cancelled && existingTotal) {
    const user = options.user ?? ADMIN;
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
      const ns = namespaceObject(namespace);
      pending.push({
        decision: decider(request, ns),
        take: ({ baseline: b, candidate }) => {
          const c = markStatic(candidate);
          const change = changeOf(b, c);
          existingChanges[change]++;
          report.existing.push({ kind: gvk.kind, ...(namespace ? { namespace } : {}), name: nameOf(o), candidate: c, baseline: b, change });
          if (report.existing.length % 200 === 0) progress('existing');
        },
      });
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
    existing: { total: report.existing.length, changes: existingChanges },
    newlyDeniedBy: [...deniedBy].map(([by, count]) => ({ by, count })).sort((a, b) => b.count - a.count || a.by.localeCompare(b.by)),
    ...(from !== undefined ? { from, to } : {}),
    webhookCalls: webhookCalls.sort((a, b) => b.calls - a.calls),
    baselineDisagrees,
    notes: inputNotes(cluster, unknownOld, input.cluster !== undefined, input.clusterProblems),
    cancelled,
  };
  report.summary = { ...partial, headline: headlineOf(partial) };
  progress('done');
  return report;
}

