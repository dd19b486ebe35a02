/**
 * What the inputs themselves say before and after the replay: the candidate's objects the target
 * release refuses (`refusedAt`), a snapshot or a log that holds nothing readable or is a file of
 * the other kind (an input error: nothing the report says about it can be trusted), or that is
 * only partly readable (a warning). The report's headline says them first (summary.ts).
 */
import type { KubernetesVersion } from '../base/releases';
import { kindOf, nameOf, obj, str } from '../base/json';
import { fieldProblems, severityOf } from '../check';
import { SKIP_REASONS, type SkipReason } from './audit';
import { isAdmissionObject, type Cluster } from './cluster';

/** A candidate object the target release refuses. */
export interface Refused {
  kind: string;
  name: string;
  /** The apiserver's words (the first error) and how many errors. */
  message: string;
  /** Not served at that release: the cluster could not hold it, so the candidate runs without it. */
  leftOut: boolean;
}

/**
 * The workspace's admission objects the release refuses: an apiVersion it does not serve (left
 * out: at that release the kind is not there, and neither is its admission plugin), or other
 * validation errors (kept, as the Simulate view runs them: the result is for a configuration the
 * cluster cannot hold, and the headline says so).
 */
export function refusedAt(workspace: readonly unknown[], version: KubernetesVersion): { refused: Refused[]; leftOut: Set<unknown> } {
  const refused: Refused[] = [];
  const leftOut = new Set<unknown>();
  for (const o of workspace) {
    if (!isAdmissionObject(o)) continue;
    const errors = fieldProblems(o, { kubernetesVersion: version }).filter((e) => severityOf(e) === 'error');
    if (!errors.length) continue;
    const served = !errors.some((e) => e.field === 'apiVersion' && e.type === 'NotSupported');
    const first = errors[0]!;
    refused.push({
      kind: kindOf(o),
      name: nameOf(o),
      message: `${first.field ? `${first.field}: ` : ''}${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`,
      leftOut: !served,
    });
    if (!served) leftOut.add(o);
  }
  return { refused, leftOut };
}

/** Audit events among the snapshot's objects: a log given as the snapshot. */
const isAuditEvent = (o: unknown): boolean => kindOf(o) === 'Event' && str(obj(o).apiVersion).startsWith('audit.k8s.io/');

/** The snapshot's input error, or its warning (parts that could not be read, a file cut off). */
export function snapshotProblems(objects: readonly unknown[], problems: readonly string[]): { error?: string; warning?: string } {
  const events = objects.filter(isAuditEvent).length;
  if (events)
    return {
      error: `the snapshot holds ${events === objects.length ? '' : `${events} of ${objects.length} objects as `}audit events, not cluster objects: it is an audit log (were the snapshot and the log swapped?)`,
    };
  if (!objects.length)
    return { error: problems.length ? `the snapshot holds no readable object (${problems[0]})` : 'the snapshot holds no object (an empty file or List)' };
  // an object without apiVersion and kind is no Kubernetes object: the replay cannot key it
  const kindless = objects.filter((o) => !str(obj(o).apiVersion) || !kindOf(o));
  if (kindless.length === objects.length)
    return {
      error: `the snapshot holds no Kubernetes object: ${kindless.length === 1 ? 'its one object has no apiVersion and kind' : `none of its ${objects.length} objects has an apiVersion and a kind`}`,
    };
  const unkeyed = kindless.length
    ? `${kindless.length} of its objects ${kindless.length === 1 ? 'has' : 'have'} no apiVersion and kind and ${kindless.length === 1 ? 'was' : 'were'} not read`
    : '';
  const cut = problems.find((p) => /truncated file|does not end|ends inside/.test(p));
  const read = cut
    ? `the snapshot is cut off: ${cut}; only the ${objects.length} objects before it were read`
    : problems.length
      ? `${problems.length} part${problems.length === 1 ? '' : 's'} of the snapshot could not be read and ${problems.length === 1 ? 'was' : 'were'} skipped (the first: ${problems[0]})`
      : '';
  const warning = [read, unkeyed && `the snapshot: ${unkeyed}`].filter(Boolean).join('; ');
  return warning ? { warning } : {};
}

/** Lines that are no audit.k8s.io/v1 Event of a stage the replay reads. */
const UNREADABLE: ReadonlySet<SkipReason> = new Set(['not-json', 'truncated', 'too-long', 'unreadable', 'not-an-event', 'other-api-version']);

/** What the replay saw of the log's lines, for its input error or warning. */
export interface LogReading {
  /** Lines that are not blank. */
  lines: number;
  /** Lines read as audit.k8s.io/v1 Events (replayed or skipped for what they are: a read, a stage …). */
  events: number;
  /** The lines that are not, by reason, and the first of them. */
  unreadable: number;
  first?: { line: number; reason: SkipReason };
  /** The first line that is not blank (its beginning): what the file looks like. */
  head?: string;
}

export const isUnreadable = (reason: SkipReason): boolean => UNREADABLE.has(reason);

/** What the file looks like when it is no audit log. */
function looksLike(head: string): string {
  const h = head.trimStart();
  if (/^<(!doctype|html|\?xml|[a-z])/i.test(h)) return ': it looks like HTML or XML, not an audit log';
  if (/^(apiVersion|kind|items|metadata):|^---/.test(h) || /"kind"\s*:\s*"List"|"items"\s*:/.test(h) || h === '{' || h === '[')
    return ': it looks like a cluster snapshot (kubectl get -o json|yaml), not an audit log (were the snapshot and the log swapped?)';
  return '';
}

/** The log's input error (nothing readable), or its warning (lines that could not be read). */
export function logProblems(r: LogReading): { error?: string; warning?: string } {
  if (!r.lines) return { error: 'the audit log is empty' };
  const first = r.first ? ` (the first: line ${r.first.line}, ${SKIP_REASONS[r.first.reason]})` : '';
  if (!r.events)
    return { error: `the audit log holds no readable audit event in ${r.lines} line${r.lines === 1 ? '' : 's'}${first}${looksLike(r.head ?? '')}` };
  if (r.unreadable === 1 && r.first?.reason === 'truncated') return { warning: `the audit log's last line is cut off (line ${r.first.line})` };
  if (r.unreadable) return { warning: `${r.unreadable} of ${r.lines} lines of the audit log could not be read${first}` };
  return {};
}

/** What the inputs leave unknown, said once in the summary. */
export function inputNotes(cluster: Cluster, unknown: number, undetermined: number, hadSnapshot: boolean): string[] {
  const notes: string[] = [];
  if (!hadSnapshot)
    notes.push(
      'no cluster snapshot: the baseline chain is empty, and old objects and Namespaces come from the log alone (a Namespace it does not write is assumed with only its kubernetes.io/metadata.name label; a decision that reads its other labels is undetermined)',
    );
  else if (!cluster.namespaces.length)
    notes.push(
      'the snapshot has no Namespaces: namespaceSelector and namespaceObject saw each namespace the log does not write with only its kubernetes.io/metadata.name label (a decision that reads its other labels is undetermined)',
    );
  if (unknown)
    notes.push(
      `${unknown} update or delete requests had no old object in the log or the snapshot (oldObject: unknown)${undetermined ? `; ${undetermined} of them are undetermined: a policy or matchCondition of their chains reads oldObject, or an objectSelector may select them by its labels` : '; none of their decisions reads oldObject or its labels'}`,
    );
  return notes;
}

/** The warning for webhook answers that name no webhook either chain ever had (a typo, or another cluster's name): they answer nothing. */
export function unknownAnswers(answers: Readonly<Record<string, unknown>> | undefined, webhooks: ReadonlySet<string>): string | undefined {
  const unknown = Object.keys(answers ?? {}).filter((w) => !webhooks.has(w));
  return unknown.length ? `webhook answers name ${unknown.length === 1 ? 'a webhook' : 'webhooks'} neither chain has: ${unknown.sort().join(', ')}` : undefined;
}
