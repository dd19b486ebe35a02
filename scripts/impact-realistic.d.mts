// Types of scripts/impact-realistic.mjs (the realistic impact benchmark's inputs) for its test.
export const FIXTURE_EVENTS: Record<string, unknown>[];
export const OUTCOME_CHANGES: readonly string[];
export function copyEvent(event: Record<string, unknown>, copy: number): Record<string, unknown>;
export function realisticLines(events: number): Generator<string>;
export function writeRealisticLog(path: string, events: number, gzip?: boolean): Promise<{ bytes: number; verbs: Record<string, number> }>;
export function realisticCandidate(): Record<string, unknown>[];
export function webhookAnswers(): Record<string, 'allow' | 'deny' | 'unavailable' | { patch: unknown[] } | { warnings: string[] }>;
export function snapshotBefore(events: number): { apiVersion: 'v1'; kind: 'List'; items: Record<string, unknown>[] };
export function snapshotAfter(objects: number): { apiVersion: 'v1'; kind: 'List'; items: Record<string, unknown>[] };
export function changedShare(changes: Record<string, number>): { changed: number; decided: number; share: number };
export function changesTable(text: string): { writes: Record<string, number>; existing: Record<string, number> };
