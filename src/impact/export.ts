/** The report as JSON, CSV (one line per changed event) and Markdown (headline, counts, the grouped table). */
import { describeWebhookResponse } from '../request/scenario';
import type { EventImpact, ImpactReport } from './analyze';
import { CHANGES } from './decide';
import { SKIP_REASONS } from './audit';
import { byDecider, groupEvents, reasonOf, spreadOf, type ImpactRow } from './group';
import type { Assumed } from './scenario';
import { baselineNote } from './summary';

/**
 * The report as JSON, the same from the CLI and the Impact view: `summary` counts every write,
 * `events` holds the changed ones (`eventsKept: "changed"`; `allEvents`, the CLI's
 * `--all-events`, every one: `"all"`), `existing` every existing object judged, `skipped` the
 * first lines not replayed. The requests kept to open rows in Simulate stay out. Byte for byte
 * `JSON.stringify` of those keys with an indent of 2 (what a reader of the format may rely on).
 */
export function reportJson(r: ImpactReport, { allEvents = false }: { allEvents?: boolean } = {}): string {
  const { head, tail } = reportJsonFrame(r, allEvents);
  const events = (allEvents ? r.events : r.events.filter((e) => e.change !== 'unchanged')).map(eventJson);
  const [open, close] = eventsBrackets(events.length);
  return `${head}${open}${events.join(',\n')}${close}${tail}`;
}

/**
 * The JSON report around its `events`, for a writer that does not keep them (the CLI writes
 * them to a spool as they are decided, and the summary comes first): `head`, the `events` array
 * (the `eventJson` of each, joined by ",\n", in `eventsBrackets`), `tail`.
 */
export function reportJsonFrame(r: ImpactReport, allEvents: boolean): { head: string; tail: string } {
  const before = JSON.stringify({ summary: r.summary, eventsKept: allEvents ? 'all' : 'changed' }, null, 2);
  const after = JSON.stringify({ existing: r.existing, skipped: r.skipped }, null, 2);
  // before ends with "\n}", after starts with "{\n": the keys of both at the report's own depth
  return { head: `${before.slice(0, -2)},\n  "events": `, tail: `${after === '{}' ? '' : `,${after.slice(1, -2)}`}\n}\n` };
}

/**
 * An event as the JSON report's `events` array holds it: indented at its depth there, as
 * `JSON.stringify` indents an element of an element, with the two arrays' brackets cut off
 * (`[\n  [\n` and `\n  ]\n]`); a quarter faster than indenting it again line by line.
 */
export const eventJson = (e: EventImpact): string => JSON.stringify([[e]], null, 2).slice(6, -6);

/** What opens and closes the `events` array of `n` events. */
export const eventsBrackets = (n: number): [string, string] => (n ? ['[\n', '\n  ]'] : ['[', ']']);

/** What a report assumed, one part a line: the release, the webhooks' answers, who creates the existing objects (the view, the CLI's text and Markdown). */
export function assumedLines(a: Assumed): string[] {
  const answers = Object.entries(a.webhooks).filter(([, r]) => r !== 'allow');
  const groups = a.user.groups?.length ? ` (groups ${a.user.groups.join(', ')})` : '';
  return [
    `Kubernetes ${a.kubernetesVersion}`,
    answers.length
      ? `webhook answers: ${answers.map(([name, r]) => `${name} ${describeWebhookResponse(r)}`).join('; ')}; every other webhook allows`
      : 'webhook answers: every webhook allows',
    `existing objects are created by ${a.user.username}${groups}`,
  ];
}

const csvCell = (v: unknown): string => {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One row per changed event and per changed existing object. */
export function reportCsv(r: ImpactReport): string {
  const head = ['source', 'auditID', 'line', 'time', 'operation', 'resource', 'namespace', 'name', 'user', 'change', 'candidate', 'baseline', 'message'];
  const rows: unknown[][] = [];
  const verdict = (d: { allowed: boolean; deniedBy: { kind: string; name: string } | null }) =>
    d.allowed ? 'allowed' : `denied by ${d.deniedBy?.kind} ${d.deniedBy?.name}`;
  for (const e of r.events) {
    if (e.change === 'unchanged') continue;
    const r0 = e.request;
    rows.push([
      'audit',
      e.auditID,
      e.line,
      Number.isFinite(e.time) ? new Date(e.time).toISOString() : '',
      r0.operation,
      r0.subResource ? `${r0.resource}/${r0.subResource}` : r0.resource,
      r0.namespace,
      r0.name,
      r0.username,
      e.change,
      verdict(e.candidate),
      verdict(e.baseline),
      e.candidate.deniedBy?.message ?? e.baseline.deniedBy?.message ?? reasonOf(e.change, e.baseline, e.candidate),
    ]);
  }
  for (const o of r.existing) {
    if (o.change === 'unchanged') continue;
    rows.push([
      'existing',
      '',
      '',
      '',
      'CREATE',
      o.kind,
      o.namespace,
      o.name,
      r.summary.assumed.user.username,
      o.change,
      verdict(o.candidate),
      verdict(o.baseline),
      reasonOf(o.change, o.baseline, o.candidate),
    ]);
  }
  return [head, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

/** A table cell's text: its pipes escaped, its lines joined, no HTML (a username can hold `<b>`). */
const mdCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** `rows`: the changed events grouped (`groupEvents`), given by a writer that did not keep the events (the CLI). */
export function reportMarkdown(r: ImpactReport, maxRows = 50, rows: readonly ImpactRow[] = groupEvents(r.events)): string {
  const s = r.summary;
  const out = [`# Admission impact`, '', `**${s.headline}**`, '', `Assumed: ${assumedLines(s.assumed).join('; ')}.`, ''];
  if (s.from !== undefined && s.to !== undefined)
    out.push(`Audit log: ${new Date(s.from).toISOString()} to ${new Date(s.to).toISOString()}, ${s.lines} lines, ${s.events} writes replayed.`, '');
  out.push('| change | audit log | existing objects |', '|---|---:|---:|');
  for (const c of CHANGES) out.push(`| ${c} | ${s.changes[c]} | ${s.existing.judged ? s.existing.changes[c] : 'not judged'} |`);
  out.push('');
  if (rows.length) {
    const deciders = byDecider(rows);
    out.push('## Changes by who decided', '', '| change | decided by | count | where | example |', '|---|---|---:|---|---|');
    for (const d of deciders.slice(0, maxRows)) {
      const ex = d.example;
      out.push(
        `| ${d.change} | ${mdCell(d.by || '—')} | ${d.count} | ${mdCell(spreadOf(d))} | ${ex ? mdCell(`line ${ex.line}${ex.message ? `: ${ex.message}` : ''}`) : ''} |`,
      );
    }
    if (deciders.length > maxRows) out.push('', `… and ${deciders.length - maxRows} more (see the JSON report).`);
    out.push('', '## Changed requests', '', '| change | decided by | namespace | user | resource | count | example |', '|---|---|---|---|---|---:|---|');
    for (const row of rows.slice(0, maxRows)) {
      const ex = row.examples[0];
      out.push(
        `| ${row.change} | ${mdCell(row.by || '—')} | ${mdCell(row.namespace || '—')} | ${mdCell(row.user)} | ${mdCell(row.resource)} | ${row.count} | ${ex ? mdCell(`line ${ex.line}${ex.message ? `: ${ex.message}` : ''}`) : ''} |`,
      );
    }
    if (rows.length > maxRows) out.push('', `… and ${rows.length - maxRows} more groups (see the JSON report).`);
    out.push('');
  }
  const existing = r.existing.filter((o) => o.change !== 'unchanged');
  if (existing.length) {
    out.push('## Existing objects', '', '| change | kind | namespace | name | why |', '|---|---|---|---|---|');
    for (const o of existing.slice(0, maxRows))
      out.push(
        `| ${o.change} | ${o.kind} | ${mdCell(o.namespace ?? '—')} | ${mdCell(o.name)} | ${mdCell(reasonOf(o.change, o.baseline, o.candidate) || '—')} |`,
      );
    out.push('');
  }
  if (s.webhookCalls.length) {
    out.push('## Webhook calls (candidate)', '', '| webhook | calls | busiest second | timeoutSeconds |', '|---|---:|---:|---:|');
    for (const w of s.webhookCalls) out.push(`| ${mdCell(w.webhook)} | ${w.calls} | ${w.peakPerSecond} | ${w.timeoutSeconds ?? ''} |`);
    out.push('');
  }
  const skipped = Object.entries(s.skipped);
  if (skipped.length) {
    out.push('## Not replayed', '', '| reason | lines |', '|---|---:|');
    for (const [reason, n] of skipped) out.push(`| ${mdCell(SKIP_REASONS[reason as keyof typeof SKIP_REASONS])} | ${n} |`);
    out.push('');
  }
  for (const n of s.notes) out.push(`Note: ${n}.`, '');
  const baseline = baselineNote(s);
  if (baseline) out.push(`Note: ${baseline}.`, '');
  return out.join('\n');
}
