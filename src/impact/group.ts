/**
 * The report's table: changed requests grouped by who decided (policy/binding or webhook) ×
 * namespace × user × resource, with counts and a few examples; and the timeline of denials.
 */
import type { EventImpact, ImpactReport } from './analyze';
import type { Change, Decision } from './decide';

export interface ImpactRow {
  change: Change;
  /** `ValidatingAdmissionPolicy require-team-label` (binding and webhook after a slash); for newly mutated events who changed the object; for newly warned events who newly warns; for undetermined events who read the unknown old object; '' for changes no single object decided. */
  by: string;
  namespace: string;
  user: string;
  resource: string;
  count: number;
  /** Up to `examples` events of the group (auditID and line). */
  examples: { auditID: string; line: number; message?: string }[];
}

/** Who decided a denial (else ''; who mutated is `Decision.mutatedBy`, who warned `Decision.warnedBy`). */
export function deciderOf(d: Decision): string {
  if (!d.deniedBy) return '';
  const b = d.deniedBy;
  return `${b.kind} ${b.name}${b.binding ? `/${b.binding}` : ''}${b.webhook ? `/${b.webhook}` : ''}${b.static ? ' (static manifest)' : ''}`;
}

/** Who read the unknown old object of an undetermined event (either chain). */
const readersOf = (e: EventImpact): string => [...new Set([...(e.candidate.undetermined ?? []), ...(e.baseline.undetermined ?? [])])].join(', ');
/**
 * Why a change is one, in a few words: who denies and their message (newly denied), who denied
 * before (no longer denied), the new warnings or audit annotation keys, or that the candidate
 * mutates. The table's examples and the existing objects' rows say it.
 */
export function reasonOf(change: Change, baseline: Decision, candidate: Decision): string {
  const denial = (d: Decision) => (d.deniedBy ? `${deciderOf(d)}: ${d.deniedBy.message}` : '');
  switch (change) {
    case 'newly-denied':
      return denial(candidate);
    case 'no-longer-denied':
      return baseline.deniedBy ? `the cluster's chain denied it (${denial(baseline)})` : '';
    case 'newly-warned':
      return `warns: ${candidate.warnings.filter((w) => !baseline.warnings.includes(w)).join('; ')}`;
    case 'newly-audited':
      return `audit annotations ${candidate.audited.filter((a) => !baseline.audited.includes(a)).join(', ')}`;
    case 'newly-mutated':
      return `the candidate changes the object: ${candidate.mutatedBy?.join(', ') || 'a mutating webhook or policy'}`;
    default:
      return '';
  }
}

/** Who warns in the candidate and not in the baseline; all who warn in the candidate when the same ones warn anew (another text). */
function newWarners(baseline: Decision, candidate: Decision): string[] {
  const all = candidate.warnedBy ?? [];
  const before = new Set(baseline.warnedBy);
  const added = all.filter((w) => !before.has(w));
  return added.length ? added : all;
}

/** Who a row names: who denied before (no longer denied), who read what is unknown (undetermined), who changed the object (newly mutated), who newly warns (newly warned), else who denies. */
export function byOf(e: EventImpact): string {
  switch (e.change) {
    case 'no-longer-denied':
      return deciderOf(e.baseline);
    case 'undetermined':
      return readersOf(e);
    case 'newly-mutated':
      return (e.candidate.mutatedBy ?? []).join(', ');
    case 'newly-warned':
      return newWarners(e.baseline, e.candidate).join(', ');
    default:
      return deciderOf(e.candidate);
  }
}

/** Groups of changed events being built, by group key: `addToGroups` adds events in log order, `sortedRows` reads them. */
export type EventGroups = Map<string, ImpactRow>;

/** Adds changed events to `groups` (unchanged ones are left out); in log order, so a group's examples are its first events. */
export function addToGroups(groups: EventGroups, events: readonly EventImpact[], examples = 3): EventGroups {
  for (const e of events) {
    if (e.change === 'unchanged') continue;
    const by = byOf(e);
    const resource = e.request.subResource ? `${e.request.resource}/${e.request.subResource}` : e.request.resource;
    const key = [e.change, by, e.request.namespace ?? '', e.request.username, resource].join('\u0000');
    let row = groups.get(key);
    if (!row)
      groups.set(key, (row = { change: e.change, by, namespace: e.request.namespace ?? '', user: e.request.username, resource, count: 0, examples: [] }));
    row.count++;
    if (row.examples.length < examples) {
      // a denial's message as the client saw it, else why it changed (new warnings, annotations …)
      const message =
        (e.change === 'no-longer-denied' ? e.baseline : e.candidate).deniedBy?.message ?? (reasonOf(e.change, e.baseline, e.candidate) || undefined);
      row.examples.push({ auditID: e.auditID, line: e.line, ...(message ? { message } : {}) });
    }
  }
  return groups;
}

/**
 * A change as one policy or webhook made it, over every namespace, user and resource: the table's
 * rows summed by change and who decided. A policy that newly denies in 500 namespaces is one of
 * these, where it is 500 rows of the table.
 */
export interface DeciderRow {
  change: Change;
  by: string;
  count: number;
  /** The distinct namespaces ('' for cluster scope), users and resources of its writes, sorted. */
  namespaces: string[];
  users: string[];
  resources: string[];
  /** Its first event in the log. */
  example?: ImpactRow['examples'][number];
}

/** The rows (`sortedRows`, `groupEvents`) summed by change and who decided, largest first. */
export function byDecider(rows: readonly ImpactRow[]): DeciderRow[] {
  const sums = new Map<string, { row: DeciderRow; ns: Set<string>; users: Set<string>; resources: Set<string> }>();
  for (const r of rows) {
    const key = `${r.change}\u0000${r.by}`;
    let sum = sums.get(key);
    if (!sum)
      sums.set(
        key,
        (sum = {
          row: { change: r.change, by: r.by, count: 0, namespaces: [], users: [], resources: [] },
          ns: new Set(),
          users: new Set(),
          resources: new Set(),
        }),
      );
    sum.row.count += r.count;
    sum.ns.add(r.namespace);
    sum.users.add(r.user);
    sum.resources.add(r.resource);
    const first = r.examples[0];
    if (first && (!sum.row.example || first.line < sum.row.example.line)) sum.row.example = first;
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return [...sums.values()]
    .map(({ row, ns, users, resources }) => ({ ...row, namespaces: sorted(ns), users: sorted(users), resources: sorted(resources) }))
    .sort((a, b) => b.count - a.count || a.change.localeCompare(b.change) || a.by.localeCompare(b.by));
}

/** The rows a table's filters pick: of a change (or all), with the text in who decided, the namespace, the user or the resource (any case). byDecider sums what they pick. */
export function pickRows(rows: readonly ImpactRow[], change: Change | 'all', text: string): ImpactRow[] {
  const needle = text.toLowerCase();
  return rows.filter(
    (r) => (change === 'all' || r.change === change) && (!needle || [r.by, r.namespace, r.user, r.resource].some((w) => w.toLowerCase().includes(needle))),
  );
}

/** A predicate true for the first changed event of each change and who decided (in log order): the events whose requests a report keeps so that every decider row opens in Simulate. */
export function firstOfEachDecider(): (e: EventImpact) => boolean {
  const seen = new Set<string>();
  return (e) => {
    if (e.change === 'unchanged') return false;
    const key = `${e.change}\u0000${byOf(e)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** Where a decider row's writes came from, in a few words: `pods by ci-bot in apps`, `2 resources by 3 users in 40 namespaces`. */
export function spreadOf(r: Pick<DeciderRow, 'namespaces' | 'users' | 'resources'>): string {
  const one = (values: readonly string[], many: string, none: string) =>
    values.length === 1 ? values[0] || none : `${values.length.toLocaleString('en-US')} ${many}`;
  return `${one(r.resources, 'resources', '—')} by ${one(r.users, 'users', '—')} in ${one(r.namespaces, 'namespaces', 'cluster scope')}`;
}

/** The groups as the table's rows, largest first. */
export const sortedRows = (groups: EventGroups): ImpactRow[] =>
  [...groups.values()].sort((a, b) => b.count - a.count || a.by.localeCompare(b.by) || a.namespace.localeCompare(b.namespace));

/** Changed events grouped (unchanged ones are left out), largest group first. */
export const groupEvents = (events: readonly EventImpact[], examples = 3): ImpactRow[] => sortedRows(addToGroups(new Map(), events, examples));

/** The chart's buckets over the log's time (at most one more, the bars starting at a round time). */
export const TIMELINE_BUCKETS = 48;

const [SECOND, MINUTE, HOUR, DAY] = [1000, 60_000, 3_600_000, 86_400_000];
/** The widths a bar may have, in ms. */
const BAR_WIDTHS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * SECOND)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * MINUTE),
    [1, 2, 3, 6, 12].map((h) => h * HOUR),
    [DAY, 2 * DAY],
  );

/** A duration in words: `2 s`, `5 min`, `1 h 30 min`, `2 d`. */
export function durationText(ms: number): string {
  if (ms < MINUTE) return `${Math.round(ms / SECOND)} s`;
  const parts: [number, string][] = [
    [Math.floor(ms / DAY), 'd'],
    [Math.floor((ms % DAY) / HOUR), 'h'],
    [Math.floor((ms % HOUR) / MINUTE), 'min'],
    [ms < HOUR ? Math.round((ms % MINUTE) / SECOND) : 0, 's'],
  ];
  return parts
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n} ${u}`)
    .join(' ');
}

/**
 * The chart's time axis in words (UTC): the first and last bar's edges, to the second when a bar
 * is under a minute, the date said once (again at the end when the log crosses midnight); the
 * range's length; each bar's width.
 */
export function timelineAxis(buckets: readonly { start: number; width: number }[]): { start: string; end: string; span: string; bar: string } {
  const from = buckets[0]!.start;
  const to = buckets.at(-1)!.start + buckets.at(-1)!.width;
  const width = buckets[0]!.width;
  const iso = (t: number) => new Date(t).toISOString();
  const time = (t: number) => iso(t).slice(11, width < MINUTE ? 19 : 16);
  const sameDay = iso(from).slice(0, 10) === iso(to - 1).slice(0, 10);
  return {
    start: `${iso(from).slice(0, 10)} ${time(from)}`,
    end: `${sameDay ? '' : `${iso(to).slice(0, 10)} `}${time(to)} UTC`,
    span: durationText(to - from),
    bar: durationText(width),
  };
}

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
  // a bar is a round time (2 s, 5 min, 1 h …) from a round start, so the axis can say what a bar is
  const width = BAR_WIDTHS.find((w) => w * buckets >= to - from + 1) ?? DAY * 7 * Math.ceil((to - from + 1) / (buckets * DAY * 7));
  const first = Math.floor(from / width) * width;
  const n = Math.max(1, Math.ceil((to + 1 - first) / width));
  const out = Array.from({ length: n }, (_, i) => ({ start: first + i * width, width, newlyDenied: 0, writes: 0 }));
  const at = (t: number) => out[Math.max(0, Math.min(n - 1, Math.floor((t - first) / width)))]!;
  for (const e of report.events) {
    if (!Number.isFinite(e.time)) continue;
    if (!writes) at(e.time).writes++;
    if (e.change === 'newly-denied') at(e.time).newlyDenied++;
  }
  for (const [t, count] of writes ?? []) at(t).writes += count;
  return out;
}
