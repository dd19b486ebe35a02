/**
 * The Impact view's state (src/impact over the CEL engine): the snapshot and audit files the user
 * opened, the options, the run with its progress and Cancel, and the report. The run is off the
 * page: a replay worker reads the files as streams (the audit log never whole) and decider
 * workers, one per core beside it, decide (src/store/impact-protocol.ts). Imported by the lazily loaded
 * Impact view only (keeps src/impact out of the first bundle).
 */
import { create } from 'zustand';
import type { KubernetesVersion } from '../base/releases';
import { celModule } from '../cel';
import type { Change, EventImpact, ImpactProgress, ImpactReport, ImpactRow } from '../impact';
import { simulatorDraftOf } from '../impact';
import { readWebhookAnswers, responseDrafts, toWebhookResponses, type WebhookResponseDraft } from '../request';
import { appStore } from './app-stores';
import type { WorkspaceDoc } from './documents';
import type { DeciderInit, FromReplay, ToReplay } from './impact-protocol';
import { setSimulatorDraft, staticIndices } from './simulator';
import { workspace } from './workspace';

export interface ImpactFile {
  name: string;
  size: number;
  file: Blob;
}

export interface ImpactState {
  snapshots: ImpactFile[];
  audits: ImpactFile[];
  candidate: 'overlay' | 'replace';
  existing: boolean;
  /** The answer assumed for each webhook (others allow): the Simulate view's vocabulary, set in the view or read from an answers file. */
  webhooks: Record<string, WebhookResponseDraft>;
  /** Who creates the existing objects when they are judged (default a cluster admin). */
  user: { username: string; groups: string[] };
  running: boolean;
  /**
   * `snapshotRead`: the snapshot files' bytes read (of `snapshotBytes`), until the log's reading
   * starts; `scanned`: the log's bytes read by its first reading (src/impact/retain.ts), until the
   * replay starts.
   */
  progress?: ImpactProgress & { bytes: number; totalBytes: number; startedAt: number; snapshotRead?: number; snapshotBytes?: number; scanned?: number };
  report?: ImpactReport;
  /** The report's table: the changed events grouped (by the replay worker, as they came). */
  rows?: ImpactRow[];
  /** The log's writes in the chart's buckets ([the bucket's start in ms, count]): the report holds the changed events only. */
  writes?: [number, number][];
  /** Files that could not be read, parse errors: said above the report. */
  problems: string[];
  /** What the report was made from: a report shown after the workspace, its static marks or the target release changed is stale (`isStale`). */
  ranWith?: RunInputs;
  /** How the changed requests are shown (ChangedRequests): kept here, so that they stay as chosen after a row is opened in Simulate and the view comes back. */
  table: ImpactTable;
}

export interface ImpactTable {
  groupBy: 'decider' | 'request';
  change: Change | 'all';
  text: string;
}

/** The workspace a run judged: its documents (by identity), the target release, whether every document is a static manifest. */
export interface RunInputs {
  docs: readonly WorkspaceDoc[];
  kubernetesVersion: KubernetesVersion;
  staticManifests: boolean;
}

/** Whether a report is about another workspace or release than the one open now. */
export const isStale = (ran: RunInputs | undefined, now: RunInputs): boolean =>
  !!ran && (ran.docs !== now.docs || ran.kubernetesVersion !== now.kubernetesVersion || ran.staticManifests !== now.staticManifests);

/** Who creates the existing objects by default: the CLI's default too (src/impact/analyze.ts). */
export const DEFAULT_IMPACT_USER = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

export const impact = appStore(
  create<ImpactState>(() => ({
    snapshots: [],
    audits: [],
    candidate: 'overlay',
    existing: true,
    webhooks: {},
    user: DEFAULT_IMPACT_USER,
    running: false,
    problems: [],
    table: { groupBy: 'decider', change: 'all', text: '' },
  })),
);
export const useImpact = impact;

const isAuditName = (name: string): boolean => /\.(log|jsonl|ndjson)(\.gz)?$/i.test(name) || /audit/i.test(name);

/** Adds opened or dropped files: audit logs by their name (`*.log`, `*.jsonl`, `audit*`, gzip or not), the rest are snapshot files. */
export function addImpactFiles(files: Iterable<File>, as?: 'snapshot' | 'audit'): void {
  const add = [...files].map((f) => ({ name: f.name, size: f.size, file: f as Blob }));
  const audits = add.filter((f) => (as ? as === 'audit' : isAuditName(f.name)));
  const snapshots = add.filter((f) => !audits.includes(f));
  impact.setState((s) => ({ audits: [...s.audits, ...audits], snapshots: [...s.snapshots, ...snapshots], report: undefined }));
}

export const removeImpactFile = (name: string): void =>
  impact.setState((s) => ({ audits: s.audits.filter((f) => f.name !== name), snapshots: s.snapshots.filter((f) => f.name !== name), report: undefined }));

export const setImpactOptions = (o: Partial<Pick<ImpactState, 'candidate' | 'existing' | 'webhooks' | 'user'>>): void =>
  impact.setState({ ...o, report: undefined });

/** Reads a file of assumed webhook answers (the CLI's `--webhook-answers`: src/request readWebhookAnswers) into the answers set; what cannot be read is said, the rest kept. */
export async function openWebhookAnswers(file: Blob & { name?: string }): Promise<void> {
  const { answers, problems } = readWebhookAnswers(await file.text());
  impact.setState((s) => ({
    webhooks: { ...s.webhooks, ...responseDrafts(answers) },
    problems: problems.map((p) => `${file.name ?? 'webhook answers'}: ${p}`),
    report: undefined,
  }));
}

/**
 * Decider workers: one per core beside the replay worker's (`navigator.hardwareConcurrency` − 1,
 * at least 1, at most MAX_DECIDERS). The replay needs a core of its own: on 2 cores, 2 deciders
 * beside it were slower than 1 (docs/performance.md). Each holds its own engine instance (the
 * compiled code is shared, the Go heap is not: ~75 MB of the tab's memory each), which bounds the
 * tab's memory on a machine with many cores.
 */
export const MAX_DECIDERS = 8;
export const deciderCount = (cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 2 : 2): number =>
  Math.min(MAX_DECIDERS, Math.max(1, cores - 1));

/** The page's base URL (the app is hosted under arbitrary sub-paths: the engine's files are resolved against it). */
const baseUrl = (): string => document.baseURI;

let cancel: (() => void) | undefined;
/** Cancel pressed while the run's workers were still starting (the engine loading): sent with the start. */
let cancelAtStart = false;

/** Stops reading the log; the decisions already started complete into the partial report. */
export const cancelImpact = (): void => {
  if (cancel) cancel();
  else if (impact.getState().running) cancelAtStart = true;
};

/**
 * Runs the analysis of the opened files against the workspace, off the page: a replay worker
 * reads the files and rebuilds the requests, decider workers decide them
 * (src/store/impact-protocol.ts); the page takes progress and the changed events. Never throws.
 */
export async function runImpact(docs: readonly WorkspaceDoc[]): Promise<void> {
  const s = impact.getState();
  if (s.running) return;
  const { responses: webhooks, errors } = toWebhookResponses(s.webhooks);
  if (errors.length) {
    impact.setState({ problems: errors.map((e) => `The answer assumed for ${e.webhook}: ${e.message}`) });
    return;
  }
  const user = { username: s.user.username.trim() || DEFAULT_IMPACT_USER.username, groups: s.user.groups };
  const totalBytes = s.audits.reduce((a, f) => a + f.size, 0);
  const snapshotBytes = s.snapshots.reduce((a, f) => a + f.size, 0);
  const startedAt = Date.now();
  const { kubernetesVersion, staticManifests } = workspace.getState();
  impact.setState({
    ranWith: { docs, kubernetesVersion, staticManifests },
    running: true,
    report: undefined,
    rows: undefined,
    writes: undefined,
    problems: [],
    // with snapshot files the run starts by reading them: the bar says so from the first frame, not
    // from the reader's first message (a small snapshot was read before any, and the bar said nothing)
    progress: {
      lines: 0,
      events: 0,
      existing: 0,
      existingTotal: 0,
      changed: 0,
      phase: 'audit',
      bytes: 0,
      totalBytes,
      startedAt,
      ...(s.snapshots.length ? { snapshotRead: 0, snapshotBytes } : {}),
    },
  });
  const workers: Worker[] = [];
  try {
    const module = await celModule();
    const replay = new Worker(new URL('./impact-replay-worker.ts', import.meta.url), { type: 'module' });
    workers.push(replay);
    const channels = Array.from({ length: deciderCount() }, () => new MessageChannel());
    channels.forEach((c, index) => {
      const decider = new Worker(new URL('./impact-decider-worker.ts', import.meta.url), { type: 'module' });
      workers.push(decider);
      decider.onerror = (e) => {
        e.preventDefault();
        replay.postMessage({ op: 'member-failed', index } satisfies ToReplay);
      };
      decider.postMessage({ port: c.port2, baseUrl: baseUrl(), module } satisfies DeciderInit, [c.port2]);
    });
    /** The changed events as they stream in. */
    const events: EventImpact[] = [];
    await new Promise<void>((resolve) => {
      cancel = () => replay.postMessage({ op: 'cancel' } satisfies ToReplay);
      replay.onmessage = (ev: MessageEvent<FromReplay>) => {
        const m = ev.data;
        if (m.op === 'snapshot') {
          impact.setState((st) => (st.progress ? { progress: { ...st.progress, snapshotRead: m.bytes, snapshotBytes } } : {}));
          return;
        }
        if (m.op === 'scan') {
          impact.setState((st) => (st.progress ? { progress: { ...st.progress, snapshotRead: undefined, scanned: m.bytes } } : {}));
          return;
        }
        if (m.op === 'progress') {
          events.push(...m.events);
          impact.setState({ progress: { ...m.progress, bytes: m.bytes, totalBytes, startedAt } });
          return;
        }
        if (m.op === 'done') {
          events.push(...m.events);
          impact.setState({ report: { ...m.report, events }, rows: m.rows, writes: m.writes, problems: m.problems });
        } else impact.setState({ problems: [`The analysis failed: ${m.message}`] });
        resolve();
      };
      replay.onerror = (e) => {
        e.preventDefault();
        impact.setState({ problems: [`The analysis failed: ${e.message || 'the replay worker stopped'}`] });
        resolve();
      };
      const members = channels.map((c) => c.port1);
      const start: ToReplay = {
        op: 'start',
        snapshots: s.snapshots.map((f) => ({ name: f.name, file: f.file })),
        audits: s.audits.map((f) => f.file),
        workspace: docs.map((d) => d.object ?? null),
        staticDocuments: staticIndices(docs),
        options: {
          kubernetesVersion,
          candidate: s.candidate,
          existing: s.existing,
          webhooks,
          staticOrder: workspace.getState().staticOrder,
          featureGates: workspace.getState().featureGates,
          user,
          keepRequests: 2000,
        },
        members,
        baseUrl: baseUrl(),
        module,
      };
      replay.postMessage(start, members);
      if (cancelAtStart) cancel();
    });
  } catch (e) {
    impact.setState({ problems: [`The analysis failed: ${(e as Error).message}`] });
  } finally {
    for (const w of workers) w.terminate();
    impact.setState({ running: false });
    cancel = undefined;
    cancelAtStart = false;
  }
}

/**
 * Opens a kept request (a changed event by its auditID, a changed existing object by
 * `existingKey`) in the Simulate view as the report judged it (src/impact/scenario.ts): the
 * request, its Namespace, the cluster's objects its run read, the assumed answers, the release.
 */
export function openInSimulator(key: string): boolean {
  const report = impact.getState().report;
  const draft = report && simulatorDraftOf(report, key);
  if (!draft) return false;
  setSimulatorDraft(draft);
  return true;
}
