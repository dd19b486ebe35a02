/**
 * `impact`'s report as the CLI writes it, from events it does not keep: each event is taken as it
 * is decided (`onEvent`) and only what the format needs of it stays: its JSON in a spool (the
 * summary comes first in the report and is known only at the end), or its place in the groups of
 * changed requests (text, Markdown, GitHub). A long log's memory then does not grow with its
 * changed events (docs/performance.md, the CLI's memory).
 */
import {
  addToGroups,
  assumedLines,
  baselineNote,
  CHANGES,
  eventJson,
  eventsBrackets,
  reasonOf,
  reportJsonFrame,
  reportMarkdown,
  sortedRows,
  byDecider,
  spreadOf,
  SKIP_REASONS,
  type EventGroups,
  type EventImpact,
  type ImpactReport,
  type ImpactRow,
} from '../impact';

/** Text put aside in order and read back once. */
export interface Spool {
  write(text: string): void;
  /** What was written, in pieces, in order; read once, at the end. */
  read(): Iterable<string>;
}

/** A spool in this process's memory (where no temporary file can be made: `CliIO.spool`). */
export function memorySpool(): Spool {
  const parts: string[] = [];
  return { write: (t) => void parts.push(t), read: () => parts };
}

/** `impact --format`'s values. */
export const IMPACT_FORMATS = ['text', 'json', 'markdown', 'github'] as const;
export type ReportFormat = (typeof IMPACT_FORMATS)[number];

export interface ReportWriter {
  /** Every event, in log order (`ImpactOptions.onEvent`). */
  onEvent(e: EventImpact): void;
  /** The whole report, in pieces, once the replay is done. */
  write(r: ImpactReport, out: (text: string) => void): void;
}

/** The report in `format` from the events taken and the finished report's summary; JSON with every event when `allEvents`. */
export function reportWriter(format: ReportFormat, allEvents: boolean, spool: Spool = memorySpool()): ReportWriter {
  const groups: EventGroups = new Map();
  let spooled = 0;
  return {
    onEvent(e) {
      if (format !== 'json') {
        if (e.change !== 'unchanged') addToGroups(groups, [e]);
      } else if (allEvents || e.change !== 'unchanged') spool.write(`${spooled++ ? ',\n' : ''}${eventJson(e)}`);
    },
    write(r, out) {
      if (format === 'json') {
        const { head, tail } = reportJsonFrame(r, allEvents);
        const [open, close] = eventsBrackets(spooled);
        out(`${head}${open}`);
        for (const t of spool.read()) out(t);
        return out(`${close}${tail}`);
      }
      const rows = sortedRows(groups);
      out(format === 'markdown' ? reportMarkdown(r, 50, rows) : format === 'github' ? formatGithub(r, rows) : formatText(r, rows));
    },
  };
}

function formatText(r: ImpactReport, rows: readonly ImpactRow[]): string {
  const s = r.summary;
  const out = [s.headline, '', `Assumed: ${assumedLines(s.assumed).join('; ')}.`, ''];
  const pad = (x: string | number, n: number) => String(x).padStart(n);
  out.push(`${'change'.padEnd(18)} ${pad('writes', 8)} ${pad('existing', 10)}`);
  for (const c of CHANGES) out.push(`${c.padEnd(18)} ${pad(s.changes[c], 8)} ${pad(s.existing.judged ? s.existing.changes[c] : 'not judged', 10)}`);
  if (rows.length) {
    const deciders = byDecider(rows);
    out.push('', 'Changes by who decided:');
    for (const d of deciders.slice(0, 20)) {
      const ex = d.example;
      out.push(
        `  ${pad(d.count, 6)}  ${d.change}  ${d.by || '—'}  (${spreadOf(d)})${ex ? `  e.g. line ${ex.line}${ex.message ? `: ${ex.message}` : ''}` : ''}`,
      );
    }
    if (deciders.length > 20) out.push(`  … ${deciders.length - 20} more (--format json)`);
    out.push('', 'Changed requests (grouped):');
    for (const row of rows.slice(0, 20)) {
      const ex = row.examples[0];
      out.push(
        `  ${pad(row.count, 6)}  ${row.change}  ${row.by || '—'}  ns=${row.namespace || '—'} user=${row.user} ${row.resource}${ex ? `  (e.g. line ${ex.line}${ex.message ? `: ${ex.message}` : ''})` : ''}`,
      );
    }
    if (rows.length > 20) out.push(`  … ${rows.length - 20} more groups (--format json)`);
  }
  const existing = r.existing.filter((o) => o.change !== 'unchanged');
  if (existing.length) {
    out.push('', 'Existing objects that change:');
    for (const o of existing.slice(0, 20))
      out.push(`  ${o.change}  ${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}: ${reasonOf(o.change, o.baseline, o.candidate)}`);
    if (existing.length > 20) out.push(`  … ${existing.length - 20} more (--format json)`);
  }
  if (s.webhookCalls.length) {
    out.push('', 'Webhook calls (candidate): calls, busiest second, timeoutSeconds');
    for (const w of s.webhookCalls) out.push(`  ${w.webhook}: ${w.calls}, ${w.peakPerSecond}/s, ${w.timeoutSeconds ?? '?'} s`);
  }
  const skipped = Object.entries(s.skipped);
  if (skipped.length) {
    out.push('', `Not replayed (${skipped.reduce((a, [, n]) => a + (n ?? 0), 0)} lines):`);
    for (const [reason, n] of skipped) out.push(`  ${pad(n ?? 0, 6)}  ${SKIP_REASONS[reason as keyof typeof SKIP_REASONS]}`);
  }
  for (const n of s.notes) out.push('', `Note: ${n}.`);
  const baseline = baselineNote(s);
  if (baseline) out.push('', `Note: ${baseline}.`);
  return `${out.join('\n')}\n`;
}

function formatGithub(r: ImpactReport, rows: readonly ImpactRow[]): string {
  const esc = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const s = r.summary;
  const lines = [
    ...s.inputErrors.map((e) => `::error title=admission impact: input error::${esc(e)}`),
    ...s.warnings.map((w) => `::warning title=admission impact: warning::${esc(w)}`),
    // one annotation per policy or webhook and change (GitHub shows a step's first few of each kind)
    ...byDecider(rows)
      .filter((d) => d.change === 'newly-denied' || d.change === 'newly-warned' || d.change === 'undetermined')
      .map(
        (d) =>
          `::${d.change === 'newly-denied' ? 'error' : 'warning'} title=${esc(`admission impact: ${d.change}`)}::${esc(`${d.count} × ${spreadOf(d)}: ${d.by}${d.example?.message ? ` (${d.example.message})` : ''}`)}`,
      ),
  ];
  return [...lines, s.headline, ''].join('\n');
}
