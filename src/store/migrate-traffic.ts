/**
 * The Migration view's third proof: the workspace's conversion replayed on an audit log
 * (src/impact/conversion.ts `replayConversion`: the produced objects in place of the cluster's
 * chain), beside an optional snapshot for the Namespaces and old objects the log does not hold.
 * The per-rule counts feed the view's Traffic column; `rule` is the rule whose differing events
 * the list shows (none: all of them).
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { readSnapshot, replayConversion, type RuleKey, type TrafficProof } from '../impact';
import { migrateOptions, migrationOf } from './migrate';
import { workspace } from './workspace';

export interface TrafficState {
  /** The files of the last replay (names). */
  audit?: string;
  snapshot?: string;
  running: boolean;
  proof?: TrafficProof;
  error?: string;
  /** Show only the differing events of this rule. */
  rule?: RuleKey;
}

export const traffic = appStore(createStore<TrafficState>()(() => ({ running: false })));
export const useTraffic = <T>(pick: (s: TrafficState) => T): T => useStore(traffic, pick);
export const showRuleDifferences = (rule: RuleKey | undefined): void => traffic.setState({ rule });

async function* chunks(file: Blob): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
  } finally {
    reader.releaseLock();
  }
}

/** Replays the log (and the snapshot) with the workspace's conversion as it is now. */
export async function replayTraffic(audit: File, snapshot?: File): Promise<void> {
  const s = workspace.getState();
  const m = migrationOf(s.docs, s.kubernetesVersion, migrateOptions.getState().gatekeeper);
  traffic.setState({ running: true, audit: audit.name, snapshot: snapshot?.name, proof: undefined, error: undefined, rule: undefined });
  try {
    const cluster: unknown[] = [];
    if (snapshot)
      for await (const r of readSnapshot(chunks(snapshot), snapshot.name)) {
        if ('object' in r) cluster.push(r.object);
        else throw new Error(r.problem);
      }
    const proof = await replayConversion({
      conversion: m.conversion,
      audit: chunks(audit),
      cluster,
      sources: s.docs.map((d) => d.object),
      options: { kubernetesVersion: s.kubernetesVersion },
    });
    if (proof.summary.inputErrors.length) throw new Error(proof.summary.inputErrors.join('; '));
    traffic.setState({ running: false, proof });
  } catch (e) {
    traffic.setState({ running: false, error: e instanceof Error ? e.message : String(e) });
  }
}
