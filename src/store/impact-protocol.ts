/**
 * The messages of the Impact view's Web Workers (src/store/impact.ts): the page starts one
 * replay worker (reads the files, rebuilds the requests in log order, runs analyzeImpact) and
 * decider workers, one per core beside it (each starts the engine from the page's compiled module and
 * decides requests: src/impact/pool.ts). The replay worker and the deciders talk over
 * MessagePorts the page hands them, so the page only sees progress and the results.
 */
import type { KubernetesVersion } from '../base/releases';
import type { ChainSpec, EventImpact, ImpactOptions, ImpactRow, ImpactProgress, ImpactReport, PoolAnswer, ToMember } from '../impact';

/** Page → replay worker. */
export type ToReplay =
  | {
      op: 'start';
      snapshots: { name: string; file: Blob }[];
      audits: Blob[];
      workspace: unknown[];
      /** Indices into `workspace` of the documents loaded from static manifests. */
      staticDocuments: number[];
      options: {
        kubernetesVersion: KubernetesVersion;
        candidate: 'overlay' | 'replace';
        existing: boolean;
        webhooks: ImpactOptions['webhooks'];
        staticOrder: ImpactOptions['staticOrder'];
        featureGates: ImpactOptions['featureGates'];
        user: NonNullable<ImpactOptions['user']>;
        keepRequests: number;
      };
      /** One port per decider worker (transferred). */
      members: MessagePort[];
      /** For deciding on the replay worker's own thread when every decider failed. */
      baseUrl: string;
      module: WebAssembly.Module | undefined;
    }
  | { op: 'cancel' }
  /** A decider worker failed (its `error` event, seen by the page). */
  | { op: 'member-failed'; index: number };

/** Replay worker → page. The changed events stream in `events` (each sent once); `done` carries the report without them. */
export type FromReplay =
  /** The snapshot files' reading (before the log's), bytes so far. */
  | { op: 'snapshot'; bytes: number }
  /** The log's first reading (the objects a later event reads: src/impact/retain.ts), bytes so far. */
  | { op: 'scan'; bytes: number }
  | { op: 'progress'; progress: ImpactProgress; bytes: number; events: EventImpact[] }
  /** `rows`: the report's table (the changed events grouped as they came); `writes`: the log's writes in the chart's buckets ([the bucket's start in ms, count]; the report keeps only the changed events); `report.requests` only the table's examples'. */
  | { op: 'done'; report: ImpactReport; events: EventImpact[]; rows: ImpactRow[]; writes: [number, number][]; problems: string[] }
  | { op: 'failed'; message: string };

/** Page → decider worker, once. */
export interface DeciderInit {
  port: MessagePort;
  baseUrl: string;
  module: WebAssembly.Module | undefined;
}

/** Replay worker → decider worker over its port: the chains first, then the asks (and other chains when the log changes them). */
export type ToDecider = { spec: ChainSpec } | ToMember;

/** Decider worker → replay worker: answers, or why it cannot decide (its engine did not start). */
export type FromDecider = PoolAnswer | { failed: string };
