/** The report as JSON, CSV (one line per changed event) and Markdown (headline, counts, the grouped table). */
import type { ImpactReport } from './analyze';
import { CHANGES } from './decide';
import { SKIP_REASONS } from './audit';
import { groupEvents } from './group';

export const reportJson = (r: ImpactReport): string => `${JSON.stringify(r, null, 2)}\n`;

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
      e.candidate.deniedBy?.message ?? e.baseline.deniedBy?.message,
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
      '',
      o.change,
      verdict(o.candidate),
      verdict(o.baseline),
      o.candidate.deniedBy?.message ?? o.baseline.deniedBy?.message,
    ]);
  }
  return [head, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

const mdCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function reportMarkdown(r: ImpactReport, maxRows = 50): string {
  const s = r.summary;
  const out = [`# Admission impact`, '', `**${s.headline}**`, '', `Target release: Kubernetes ${s.kubernetesVersion}.`, ''];
  if (s.from !== undefined && s.to !== undefined)
    out.push(`Audit log: ${new Date(s.from).toISOString()} to ${new Date(s.to).toISOString()}, ${s.lines} lines, ${s.events} writes replayed.`, '');
  out.push('| change | audit log | existing objects |', '|---|---:|---:|');
  for (const c of CHANGES) out.push(`| ${c} | ${s.changes[c]} | ${s.existing.changes[c]} |`);
  out.push('');
  const rows = groupEvents(r.events);
  if (rows.length) {
    out.push('## Changed requests', '', '| change | decided by | namespace | user | resource | count | example |', '|---|---|---|---|---|---:|---|');
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
    out.push('## Existing objects', '', '| change | kind | namespace | name | decided by |', '|---|---|---|---|---|');
    for (const o of existing.slice(0, maxRows))
      out.push(
        `| ${o.change} | ${o.kind} | ${mdCell(o.namespace ?? '—')} | ${mdCell(o.name)} | ${mdCell(o.candidate.deniedBy ? `${o.candidate.deniedBy.kind} ${o.candidate.deniedBy.name}: ${o.candidate.deniedBy.message}` : '—')} |`,
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
  if (s.baselineDisagrees)
    out.push(
      `Note: for ${s.baselineDisagrees} requests the baseline's decision differs from what the cluster answered (webhook answers are assumed; built-in admission plugins are not modelled).`,
      '',
    );
  return out.join('\n');
}
