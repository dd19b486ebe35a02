/**
 * The report's table: changed requests grouped by who decided (policy/binding or webhook) ×
 * namespace × user × resource, with counts and a few examples; and the timeline of denials.
 */
import type { EventImpact, ImpactReport } from './analyze';
import type { Change, Decision } from './decide';

export interface ImpactRow {
  change: Change;
  /** `ValidatingAdmissionPolicy require-team-label` (binding and webhook after a slash); for undetermined events who read the unknown old object; '' for changes no single object decided. */
  by: string;
  namespace: string;
  user: string;
  resource: string;
  count: number;
  /** Up to `examples` events of the group (auditID and line). */
  examples: { auditID: string; line: number; message?: string }[];
}

/** Who decided a change: the denier for denials, else the first webhook or policy that warned/mutated is not known here (''). */
export function deciderOf(d: Decision): string {
  if (!d.deniedBy) return '';
  const b = d.deniedBy;
  return `${b.kind} ${b.name}${b.binding ? `/${b.binding}` : ''}${b.webhook ? `/${b.webhook}` : ''}${b.static ? ' (static manifest)' : ''}`;
}

/** Who read the unknown old object of an undetermined event (either chain). */
const readersOf = (e: EventImpact): string => [...new Set([...(e.candidate.undetermined ?? []), ...(e.baseline.undetermined ?? [])])].join(', ');

/** Groups of changed events being built, by group key: `addToGroups` adds events in log order, `sortedRows` reads them. */
export type EventGroups = Map<string, ImpactRow>;

/** Adds changed events to `groups` (unchanged ones are left out); in log order, so a group's examples are its first events. */
export function addToGroups(groups: EventGroups, events: readonly EventImpact[], examples = 3): EventGroups {
  for (const e of events) {
    if (e.change === 'unchanged') continue;
    const by = e.change === 'no-longer-denied' ? deciderOf(e.baseline) : e.change === 'undetermined' ? readersOf(e) : deciderOf(e.candidate);
    const resource = e.request.subResource ? `${e.request.resource}/${e.request.subResource}` : e.request.resource;
    const key = [e.change, by, e.request.namespace ?? '', e.request.username, resource].join('\u0000');
    let row = groups.get(key);
    if (!row)
      groups.set(key, (row = { change: e.change, by, namespace: e.request.namespace ?? '', user: e.request.username, resource, count: 0, examples: [] }));
    row.count++;
    if (row.examples.length < examples) {
      const message = (e.change === 'no-longer-denied' ? e.baseline : e.candidate).deniedBy?.message;
      row.examples.push({ auditID: e.auditID, line: e.line, ...(message ? { message } : {}) });
    }
  }
  return groups;
}

/** The groups as the table's rows, largest first. */
export const sortedRows = (groups: EventGroups): ImpactRow[] =>
  [...groups.values()].sort((a, b) => b.count - a.count || a.by.localeCompare(b.by) || a.namespace.localeCompare(b.namespace));

/** Changed events grouped (unchanged ones are left out), largest group first. */
export const groupEvents = (events: readonly EventImpact[], examples = 3): ImpactRow[] => sortedRows(addToGroups(new Map(), events, examples));

/** The chart's buckets over the log's time. */
export const TIMELINE_BUCKETS = 48;

/**
 * Newly denied requests per time bucket (the chart): bucket start (ms) → count, buckets without
 * denials included. The writes are counted from the report's events, or from `writes` (writes
 * per second of the log: [the second's start in ms, count]) when the report kept only the
 * changed events (`keepUnchanged: false`).
 */
export function denialTimeline(
  report: ImpactReport,
  buckets = TIMELINE_BUCKETS,
  writes?: readonly (readonly [number, number])[],
): { start: number; width: number; newlyDenied: number; writes: number }[] {
  const { from, to } = report.summary;
  if (from === undefined || to === undefined) return [];
  const width = Math.max(1000, Math.ceil((to - from + 1) / buckets));
  const n = Math.max(1, Math.ceil((to - from + 1) / width));
  const out = Array.from({ length: n }, (_, i) => ({ start: from + i * width, width, newlyDenied: 0, writes: 0 }));
  const at = (t: number) => out[Math.max(0, Math.min(n - 1, Math.floor((t - from) / width)))]!;
  for (const e of report.events) {
    if (!Number.isFinite(e.time)) continue;
    if (!writes) at(e.time).writes++;
    if (e.change === 'newly-denied') at(e.time).newlyDenied++;
  }
  for (const [t, count] of writes ?? []) at(t).writes += count;
  return out;
}
