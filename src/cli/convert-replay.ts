/**
 * `convert --replay AUDIT_LOG [--snapshot FILE]`: the converted objects replace the cluster's chain
 * (the source's webhook configurations gone) on the cluster's real traffic, and every event where
 * the native chain decides otherwise than the cluster answered (what Kyverno or Gatekeeper
 * decided) is listed, with each source rule's count (src/impact/conversion.ts).
 */
import type { Conversion } from '../migrate';
import { replayConversion, type TrafficProof } from '../impact';
import { loadCelFor } from '../cel';
import type { KubernetesVersion } from '../base/releases';
import { readSnapshots } from './impact';
import type { FileSystem } from './inputs';

interface ReplayIO {
  fs: FileSystem;
  stderr(text: string): void;
}

/** The proof, or undefined after saying why it could not run. */
export async function replayConverted(
  conversion: Conversion,
  audit: string,
  snapshots: readonly string[],
  kubernetesVersion: KubernetesVersion,
  io: ReplayIO,
  sources: readonly unknown[] = [],
): Promise<TrafficProof | undefined> {
  const fail = (message: string) => {
    io.stderr(`admission-workbench convert: --replay: ${message}\n`);
    return undefined;
  };
  if (!io.fs.readStream) return fail('this build cannot stream files');
  try {
    io.fs.stat(audit);
  } catch (e) {
    return fail(`${audit}: ${(e as Error).message}`);
  }
  const cluster = await readSnapshots(snapshots, io, false);
  if (cluster.problems.length) return fail(cluster.problems.join('; '));
  const failure = await loadCelFor(kubernetesVersion);
  if (failure) return fail(failure);
  const proof = await replayConversion({ conversion, audit: io.fs.readStream(audit), cluster: cluster.objects, sources, options: { kubernetesVersion } });
  if (proof.summary.inputErrors.length) return fail(proof.summary.inputErrors.join('; '));
  return proof;
}

const requestLine = (d: TrafficProof['differences'][number]) =>
  `${d.request.operation} ${d.request.resource} ${d.request.namespace ? `${d.request.namespace}/` : ''}${d.request.name ?? ''} by ${d.request.username}${d.request.dryRun ? ' (dry run)' : ''}`;

/** The proof as text: one line per source rule, then every differing event. */
export function trafficText(proof: TrafficProof, audit: string): string {
  const lines = [
    '',
    `Real traffic (${audit}): ${proof.events} events replayed with the converted objects in place of the cluster's chain; ${proof.agreeing} decided as the cluster answered, ${proof.differences.length} otherwise.`,
  ];
  for (const r of proof.rules)
    lines.push(
      `  ${r.status.padEnd(11)} ${r.key}: ${r.agreeing} agree, ${r.differing.length} differ (denied by the source ${r.deniedBySource}, natively ${r.deniedNatively})`,
    );
  for (const d of proof.differences) {
    const live = d.live.code < 400 ? `allowed (${d.live.code})` : `denied (${d.live.code}${d.sourceRules.length ? `: ${d.sourceRules.join(', ')}` : ''})`;
    const native = d.native.allowed
      ? 'allowed'
      : `denied by ${d.native.deniedBy?.kind} ${d.native.deniedBy?.name}${d.nativeRules.length ? ` (${d.nativeRules.join(', ')})` : ''}`;
    lines.push(
      `  line ${d.line} ${requestLine(d)}: the cluster ${live}, natively ${native}${d.undetermined ? ' (undetermined: it reads what the replay does not know)' : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Exit 1: a rule called exact decided otherwise than the source did on some event. */
export const exactRuleDiffers = (proof: TrafficProof): boolean => proof.rules.some((r) => r.status === 'exact' && r.differing.length > 0);
