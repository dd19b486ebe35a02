/**
 * The Impact view's state (src/impact over the CEL engine): the snapshot and audit files the user
 * opened, the options, the run with its progress and Cancel, and the report. Files are read as
 * streams (the audit log never whole), in the page, with the engine in its Web Worker.
 * Imported by the lazily loaded Impact view only (keeps src/impact out of the first bundle).
 */
import { create } from 'zustand';
import { analyzeImpact, type ImpactOptions, type ImpactProgress, type ImpactReport } from '../impact';
import { toDraft } from '../request';
import { parseDocuments } from '../yaml';
import type { WorkspaceDoc } from './documents';
import { setSimulatorDraft } from './simulator';
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
  running: boolean;
  progress?: ImpactProgress & { bytes: number; totalBytes: number; startedAt: number };
  report?: ImpactReport;
  /** Files that could not be read, parse errors: said above the report. */
  problems: string[];
}

export const impact = create<ImpactState>(() => ({ snapshots: [], audits: [], candidate: 'overlay', existing: true, running: false, problems: [] }));
export const useImpact = impact;

const isAuditName = (name: string): boolean => /\.(log|jsonl|ndjson)(\.gz)?$/i.test(name) || /audit/i.test(name);

/** Adds opened or dropped files: audit logs by their name (`*.log`, `*.jsonl`, `audit*`, gzip or not), the rest are snapshot files. */
export function addImpactFiles(files: Iterable<File>, as?: 'snapshot' | 'audit'): void {
  const add = [...files].map((f) => ({ name: f.name, size: f.size, file: f as Blob }));
  const audits = add.filter((f) => (as ? as === 'audit' : isAuditName(f.name)));
  const snapshots = add.filter((f) => !audits.includes(f));
  impact.setState((s) => ({ audits: [...s.audits, ...audits], snapshots: [...s.snapshots, ...snapshots], report: undefined }));
}

export const removeImpactFile = (name: string): void => impact.setState((s) => ({ audits: s.audits.filter((f) => f.name !== name), snapshots: s.snapshots.filter((f) => f.name !== name), report: undefined }));

export const setImpactOptions = (o: Partial<Pick<ImpactState, 'candidate' | 'existing'>>): void => impact.setState({ ...o, report: undefined });

/** A file's bytes as chunks, counting what was read (the progress bar's share of the log). */
async function* chunksOf(file: Blob, read: (n: number) => void): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      read(r.value.byteLength);
      yield r.value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function* concat(files: readonly ImpactFile[], read: (n: number) => void): AsyncGenerator<Uint8Array> {
  for (const f of files) yield* chunksOf(f.file, read);
}

/** The snapshot files' objects (Lists unwrapped), and what could not be read. */
async function readSnapshots(files: readonly ImpactFile[]): Promise<{ objects: unknown[]; problems: string[] }> {
  const objects: unknown[] = [];
  const problems: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await f.file.arrayBuffer());
    } catch {
      problems.push(`${f.name}: not UTF-8 text: not YAML or JSON`);
      continue;
    }
    const parsed = parseDocuments(text);
    for (const e of parsed.errors) problems.push(`${f.name}:${e.line}:${e.column}: ${e.message}`);
    for (const d of parsed.documents) objects.push(d.object);
  }
  return { objects, problems };
}

let controller: AbortController | undefined;

export const cancelImpact = (): void => controller?.abort();

/** Runs the analysis of the opened files against the workspace. Never throws. */
export async function runImpact(docs: readonly WorkspaceDoc[], webhooks: ImpactOptions['webhooks'] = {}): Promise<void> {
  const s = impact.getState();
  if (s.running) return;
  controller = new AbortController();
  const totalBytes = s.audits.reduce((a, f) => a + f.size, 0);
  let bytes = 0;
  const startedAt = Date.now();
  impact.setState({ running: true, report: undefined, problems: [], progress: { lines: 0, events: 0, existing: 0, existingTotal: 0, changed: 0, phase: 'audit', bytes: 0, totalBytes, startedAt } });
  try {
    const snap = await readSnapshots(s.snapshots);
    const report = await analyzeImpact({
      workspace: docs.map((d) => d.object ?? null),
      cluster: snap.objects,
      ...(s.audits.length ? { audit: concat(s.audits, (n) => (bytes += n)) } : {}),
      options: {
        kubernetesVersion: workspace.getState().kubernetesVersion,
        candidate: s.candidate,
        existing: s.existing,
        webhooks,
        keepUnchanged: false,
        keepRequests: 2000,
        signal: controller.signal,
        onProgress: (p) => impact.setState({ progress: { ...p, bytes, totalBytes, startedAt } }),
      },
    });
    impact.setState({ report, problems: snap.problems });
  } catch (e) {
    impact.setState({ problems: [`The analysis failed: ${(e as Error).message}`] });
  } finally {
    impact.setState({ running: false });
    controller = undefined;
  }
}

/** Opens a replayed request in the Simulate view's draft (the request, its objects and Namespace). */
export function openInSimulator(auditID: string): boolean {
  const kept = impact.getState().report?.requests[auditID];
  if (!kept) return false;
  setSimulatorDraft({ input: toDraft({ request: kept.request, ...(kept.namespaceObject ? { namespaceObject: kept.namespaceObject } : {}) }), webhooks: {} });
  return true;
}

