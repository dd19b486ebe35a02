/// <reference lib="webworker" />
/**
 * The Impact view's replay (a Web Worker): reads the snapshot files and the audit log as a
 * stream, rebuilds each request in log order (the old-object state is sequential) and runs
 * analyzeImpact with the decider workers as its pool (src/impact/pool.ts), so the page only
 * draws progress. The log is read twice: first for the objects a later event reads (the replay
 * keeps no others: src/impact/retain.ts), then replayed. The changed events stream to the page
 * with the progress, at most four times a second; Cancel stops reading and the decisions already
 * started complete into the partial report.
 */
import { loadCelHere } from '../cel';
import {
  addToGroups,
  byDecider,
  firstOfEachDecider,
  analyzeImpact,
  chainDecider,
  decisionPool,
  denialTimeline,
  existingKey,
  joinedSources,
  laterReads,
  readSnapshot,
  sortedRows,
  TIMELINE_BUCKETS,
  POOL_DEPTH,
  type EventGroups,
  type EventImpact,
  type ImpactProgress,
  type OpenMember,
} from '../impact';
import type { FromDecider, FromReplay, ToReplay } from './impact-protocol';

declare const self: DedicatedWorkerGlobalScope;

const post = (m: FromReplay) => self.postMessage(m);

/** Bytes counted as read at most this many at a time: a Blob's stream may hand over megabytes at once. */
const STEP = 64 * 1024;

/**
 * The page hears of progress at most this often (ms): each message wakes its thread and redraws
 * the bar, and analyzeImpact reports every 200 writes (25 times a second at 5,000 writes/s).
 */
const PROGRESS_EVERY = 250;

/** A file's bytes as chunks, counting what the replay has taken (the progress bar's share of the log, and the time left). */
async function* chunksOf(file: Blob, read: (n: number) => void): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      for (let at = 0; at < r.value.byteLength; at += STEP) {
        const part = r.value.subarray(at, at + STEP);
        read(part.byteLength);
        yield part;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** The audit files opened, as one log in the order opened: each inflated on its own (a gzip file beside a plain one), a newline between two. */
const concat = (files: readonly Blob[], read: (n: number) => void) => joinedSources(files.map((f) => chunksOf(f, read)));

/** The snapshot files' objects (Lists unwrapped), and what could not be read: each file streamed (`readSnapshot`: any size, gzip); Cancel stops the reading. */
async function readSnapshots(
  files: readonly { name: string; file: Blob }[],
  read: (n: number) => void,
  signal: AbortSignal,
): Promise<{ objects: unknown[]; problems: string[] }> {
  const objects: unknown[] = [];
  const problems: string[] = [];
  reading: for (const f of files)
    for await (const r of readSnapshot(chunksOf(f.file, read), f.name)) {
      if (signal.aborted) break reading;
      if ('object' in r) objects.push(r.object);
      else problems.push(r.problem);
    }
  return { objects, problems };
}

let controller: AbortController | undefined;
/** Each decider's `failed`, for the page's word that its worker failed. */
const memberFailed: (() => void)[] = [];

/** A decider worker behind its port: the chains sent first, then the asks. */
const portMember =
  (port: MessagePort, index: number): OpenMember =>
  ({ answer, failed }) => {
    port.onmessage = (e: MessageEvent<FromDecider>) => ('failed' in e.data ? failed() : answer(e.data));
    memberFailed[index] = failed;
    return { send: (ask) => port.postMessage(ask), close: () => port.close() };
  };

async function run(m: Extract<ToReplay, { op: 'start' }>): Promise<void> {
  controller = new AbortController();
  const signal = controller.signal;
  let bytes = 0;
  let streamed: EventImpact[] = [];
  let posted = 0;
  /** The changed events since they were last grouped. */
  let changed: EventImpact[] = [];
  /** The report's table, built as the events come (the page would group every changed event at once at the end). */
  const groups: EventGroups = new Map();
  const group = () => {
    addToGroups(groups, changed);
    changed = [];
  };
  /** Writes per second of the log (the chart's writes: the report keeps only the changed events). */
  const writes = new Map<number, number>();
  /** Progress to the page, at most every PROGRESS_EVERY ms (with the changed events since the last). */
  const progress = (p: ImpactProgress, force = false) => {
    const now = performance.now();
    if (!force && now - posted < PROGRESS_EVERY) return;
    posted = now;
    post({ op: 'progress', progress: p, bytes, events: streamed });
    streamed = [];
    group();
  };
  let snapshotRead = 0;
  const snap = await readSnapshots(
    m.snapshots,
    (n) => {
      snapshotRead += n;
      if (performance.now() - posted >= PROGRESS_EVERY) (posted = performance.now()), post({ op: 'snapshot', bytes: snapshotRead });
    },
    signal,
  );
  let pool: ReturnType<typeof decisionPool> | undefined;
  try {
    // the log read once before the replay, for the objects a later event reads: the replay keeps no others (src/impact/retain.ts)
    let scanned = 0;
    // the bar leaves the snapshot's reading now, not at the log's first progress message
    if (m.audits.length) post({ op: 'scan', bytes: 0 });
    const retainState = m.audits.length
      ? await laterReads(
          concat(m.audits, (n) => {
            scanned += n;
            if (performance.now() - posted >= PROGRESS_EVERY) (posted = performance.now()), post({ op: 'scan', bytes: scanned });
          }),
          signal,
        )
      : undefined;
    const report = await analyzeImpact({
      workspace: m.workspace,
      // no snapshot opened is not an empty one
      ...(m.snapshots.length ? { cluster: snap.objects, clusterProblems: snap.problems } : {}),
      ...(m.audits.length ? { audit: concat(m.audits, (n) => (bytes += n)) } : {}),
      staticDocuments: m.staticDocuments,
      options: {
        ...m.options,
        // every result streams to the page (which keeps the changed ones): none kept here
        keepUnchanged: false,
        keepChanged: false,
        // besides the first changed writes, each policy's or webhook's first change: every decider row opens in Simulate
        keepRequest: firstOfEachDecider(),
        signal,
        ...(retainState ? { retainState } : {}),
        onEvent: (e) => {
          if (e.change !== 'unchanged') streamed.push(e), changed.push(e);
          if (Number.isFinite(e.time)) {
            const second = Math.floor(e.time / 1000) * 1000;
            writes.set(second, (writes.get(second) ?? 0) + 1);
          }
        },
        onProgress: (p) => progress(p, p.phase === 'done'),
        decider: (spec) => {
          // the log changed the chains (or the existing objects are judged with the snapshot's): the same deciders, other chains
          if (pool) {
            pool.respec(spec, () => {
              void loadCelHere(m.baseUrl, m.module);
              return chainDecider(spec);
            });
            return pool.decide;
          }
          for (const port of m.members) port.postMessage({ spec });
          pool = decisionPool(
            m.members.map((port, i) => portMember(port, i)),
            () => {
              void loadCelHere(m.baseUrl, m.module); // every decider failed: this thread decides
              return chainDecider(spec);
            },
            spec,
          );
          return pool.decide;
        },
        inFlight: Math.max(1, m.members.length) * POOL_DEPTH,
      },
    });
    // the changed events went out with the progress: the report follows (it kept none), with the
    // table's rows, the requests of their examples only (each row opens its first) and the
    // chart's writes in its buckets (not one pair per second of the log): the page takes it in one task
    group();
    const rows = sortedRows(groups);
    const openable = new Set([
      ...rows.map((r) => r.examples[0]?.auditID),
      ...byDecider(rows).map((d) => d.example?.auditID),
      ...report.existing.filter((o) => o.change !== 'unchanged').map(existingKey),
    ]);
    const requests = Object.fromEntries(Object.entries(report.requests).filter(([id]) => openable.has(id)));
    const buckets = denialTimeline(report, TIMELINE_BUCKETS, [...writes]).map((b): [number, number] => [b.start, b.writes]);
    post({ op: 'done', report: { ...report, requests }, events: streamed, rows, writes: buckets, problems: snap.problems });
  } catch (e) {
    post({ op: 'failed', message: (e as Error).message });
  } finally {
    pool?.close();
  }
}

self.onmessage = (ev: MessageEvent<ToReplay>) => {
  const m = ev.data;
  if (m.op === 'start') void run(m);
  else if (m.op === 'cancel') controller?.abort();
  else memberFailed[m.index]?.();
};
