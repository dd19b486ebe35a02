/**
 * The report's summary: the counts, what the inputs leave unknown (notes), what is wrong with
 * them (input errors, warnings) and the one-line answer (`headlineOf`).
 */
import type { KubernetesVersion } from '../base/releases';
import type { SkipReason } from './audit';
import type { SnapshotEvidence } from './chains';
import type { Change, Denial } from './decide';
import type { Refused } from './inputs';
import type { Assumed } from './scenario';

export interface ImpactSummary {
  /** The release the chains ran at. */
  kubernetesVersion: KubernetesVersion;
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
  /** Of those, the ones the baseline denies and the cluster admitted, by who denies them (`kind name`): where the replay's picture of the cluster is wrong (a param, a Namespace, an answer it lacks). */
  baselineDeniedBy: { by: string; count: number }[];
  /** The candidate's objects the release refuses (`leftOut`: not served, so the candidate runs without them). */
  refused: Refused[];
  /** Inputs that cannot be what they were given as (a log with no readable event, a snapshot that is a log …): the report says nothing about them. */
  inputErrors: string[];
  /** Inputs read only in part, objects the release refuses: said in the headline. */
  warnings: string[];
  /** What the inputs leave unknown (no Namespaces in the snapshot, old objects not found, when the snapshot was taken …). */
  notes: string[];
  cancelled: boolean;
  /** What the report assumed, as the view and the CLI say it and Simulate receives it: the release, each webhook's answer (others allow), who creates the existing objects. */
  assumed: Assumed;
  headline: string;
}

/** The headline's class: an input error, a denial, a doubt (warnings, undetermined writes), or nothing to say. */
export function verdictOf(s: Pick<ImpactSummary, 'inputErrors' | 'warnings' | 'changes' | 'existing'>): 'error' | 'bad' | 'warn' | 'good' {
  if (s.inputErrors.length) return 'error';
  if (s.changes['newly-denied'] + s.existing.changes['newly-denied'] > 0) return 'bad';
  if (s.warnings.length || s.changes.undetermined > 0) return 'warn';
  return 'good';
}

/** Counts a denial by who denied it (`kind name`). */
export const tally = (m: Map<string, number>, d: Denial): void => {
  const by = `${d.kind} ${d.name}`;
  m.set(by, (m.get(by) ?? 0) + 1);
};
/** Counts by who, the most first. */
export const byCount = (m: Map<string, number>): { by: string; count: number }[] =>
  [...m].map(([by, count]) => ({ by, count })).sort((a, b) => b.count - a.count || a.by.localeCompare(b.by));

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The note on the baseline's decisions that differ from the cluster's answers, the same in every
 * format: how many, why they may, and who denied what the cluster admitted (the first three).
 */
export function baselineNote(s: Pick<ImpactSummary, 'baselineDisagrees' | 'baselineDeniedBy'>): string | undefined {
  if (!s.baselineDisagrees) return undefined;
  const denied = s.baselineDeniedBy.reduce((a, b) => a + b.count, 0);
  const by = s.baselineDeniedBy.slice(0, 3).map((b) => `${b.count} by ${b.by}`);
  if (s.baselineDeniedBy.length > 3) by.push('…');
  return `for ${s.baselineDisagrees} requests the baseline's decision differs from what the cluster answered (webhook answers are assumed; built-in admission plugins are not modelled)${denied ? `; it denied ${denied} the cluster admitted: ${by.join(', ')}` : ''}`;
}

/** The report's one-line answer: input errors first, then what changes, then the warnings. */
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
    const u = s.changes.undetermined;
    if (u)
      parts.push(
        `${plural(u, 'write')} undetermined: the decision reads what the replay does not know (an old object, a Namespace, the authorizer, an object converted to another version)`,
      );
  }
  // a log was read, but none of its lines is a write admission saw that the replay can rebuild
  const notReplayed = Object.values(s.skipped ?? {}).reduce((a, n) => a + (n ?? 0), 0);
  if (!s.events && notReplayed) parts.push(`no write replayed: the log's ${plural(notReplayed, 'line')} are counted under Not replayed, with why`);
  if (s.existing.total) {
    const d = s.existing.changes['newly-denied'];
    parts.push(`${d ? d : 'none'} of ${s.existing.total} existing objects would be rejected if created now`);
  }
  const errors = s.inputErrors.length ? `Input error: ${s.inputErrors.join('; ')}` : '';
  if (!parts.length) {
    if (errors) return errors;
    if (s.cancelled) return 'Cancelled before any write or existing object was judged';
    return 'nothing to replay: give an audit log or a cluster snapshot';
  }
  const text = parts.join('; ');
  const answer = `${text[0]!.toUpperCase()}${text.slice(1)}${s.cancelled ? ' (cancelled: partial report)' : ''}`;
  const warned = s.warnings.length ? `${answer} (warning: ${s.warnings.join('; ')})` : answer;
  return errors ? `${errors}. ${warned}` : warned;
}

/** When the snapshot was taken, as the replay assumes it and as the log shows it. */
export function snapshotTimeNote(evidence: SnapshotEvidence, unproven: number): string | undefined {
  const at = (e: { line: number; what: string }) => `line ${e.line} (${e.what})`;
  if (evidence.after && evidence.before)
    return `the snapshot was taken while the log was written: it holds later versions than ${at(evidence.after)} and earlier ones than ${at(evidence.before)}; each of its objects is taken as the log shows it`;
  if (evidence.after)
    return `the snapshot was taken after the log's ${at(evidence.after)}: the replay takes each snapshot object as existing from its creationTimestamp and as it was before the log's first write to it, except where the log shows the snapshot holds a later version (its old object is then unknown)`;
  if (evidence.before) return `the snapshot was taken before the log's ${at(evidence.before)}: its objects are the state the log starts from`;
  if (unproven)
    return `nothing in the log shows when the snapshot was taken (no resourceVersion to compare): the replay assumes each snapshot object is the one the log's first write to it found (${plural(unproven, 'write')})`;
  return undefined;
}
