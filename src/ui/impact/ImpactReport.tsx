/**
 * The Impact view's report: the headline and what it assumed, the counts, the denials over time,
 * the changed requests grouped, the existing objects that would change (each with why, and each
 * row opening its request in Simulate as the report judged it), webhook load, what was not
 * replayed. Exports as JSON (the CLI's `--format json`), CSV or Markdown.
 */
import { useDeferredValue, useMemo } from 'react';
import {
  assumedLines,
  CHANGES,
  denialTimeline,
  existingKey,
  groupEvents,
  reasonOf,
  reportCsv,
  reportJson,
  reportMarkdown,
  SKIP_REASONS,
  TIMELINE_BUCKETS,
  timelineAxis,
  verdictOf,
  baselineNote,
  type ImpactReport,
  type ImpactRow,
} from '../../impact';
import { openInSimulator, type ImpactState } from '../../store/impact';
import { download } from '../download';
import { CHANGE_LABEL, ChangedRequests } from './ChangedRequests';

const NO_ROWS: ImpactRow[] = [];

/** Newly denied requests over the log's time: one bar per bucket, the writes as a faint bar behind. */
function TimelineChart({ report, writes }: { report: ImpactReport; writes: ImpactState['writes'] }) {
  const buckets = useMemo(() => denialTimeline(report, TIMELINE_BUCKETS, writes), [report, writes]);
  if (buckets.length < 2) return null;
  const [w, h] = [640, 120];
  const maxWrites = Math.max(1, ...buckets.map((b) => b.writes));
  const bw = w / buckets.length;
  const axis = timelineAxis(buckets);
  const at = (t: number) =>
    new Date(t)
      .toISOString()
      .replace('T', ' ')
      .slice(0, buckets[0]!.width < 60_000 ? 19 : 16);
  return (
    <figure className="impact-chart">
      <svg viewBox={`0 0 ${w} ${h + 16}`} role="img" aria-label={`Newly denied requests over time, from ${axis.start} to ${axis.end}, one bar per ${axis.bar}`}>
        {buckets.map((b, i) => (
          <g key={i}>
            <title>{`${at(b.start)} (${axis.bar}): ${b.newlyDenied} newly denied of ${b.writes} writes`}</title>
            <rect x={i * bw + 1} width={Math.max(1, bw - 2)} y={h - (b.writes / maxWrites) * h} height={(b.writes / maxWrites) * h} className="writes" />
            <rect
              x={i * bw + 1}
              width={Math.max(1, bw - 2)}
              y={h - (b.newlyDenied / maxWrites) * h}
              height={(b.newlyDenied / maxWrites) * h}
              className="denied"
            />
          </g>
        ))}
        <text x={0} y={h + 13} className="axis">
          {axis.start}
        </text>
        <text x={w} y={h + 13} textAnchor="end" className="axis">
          {axis.end}
        </text>
      </svg>
      <figcaption data-testid="impact-chart-caption">
        {`${axis.start} to ${axis.end} (${axis.span}), one bar per ${axis.bar}:`} <span className="swatch denied" /> newly denied{' '}
        <span className="swatch writes" /> writes replayed
      </figcaption>
    </figure>
  );
}

/** `grouped`: the table's rows as the replay worker built them (else the report's events are grouped here). */
export function Report({
  report,
  grouped,
  writes,
  stale,
  onOpen,
}: {
  report: ImpactReport;
  grouped: ImpactState['rows'];
  writes: ImpactState['writes'];
  /** The workspace or the release changed since the run. */
  stale: boolean;
  onOpen: () => void;
}) {
  const s = report.summary;
  // the table after the headline and counts: its rows are drawn in a later, interruptible render
  const rows = useDeferredValue(
    useMemo(() => grouped ?? groupEvents(report.events), [report, grouped]),
    NO_ROWS,
  );
  const existing = report.existing.filter((o) => o.change !== 'unchanged');
  return (
    <>
      {stale ? (
        <p className="impact-stale" data-testid="impact-stale" role="status">
          {`Stale: the workspace or the target release changed since this result (Kubernetes ${s.kubernetesVersion}). Analyze again for the workspace as it is now.`}
        </p>
      ) : null}
      <p className={`impact-headline ${verdictOf(s)}${stale ? ' stale' : ''}`} data-testid="impact-headline" data-verdict={verdictOf(s)} role="status">
        {s.headline}
      </p>
      <p className="sim-muted" data-testid="impact-assumed">{`Assumed: ${assumedLines(s.assumed).join('; ')}.`}</p>
      <div className="impact-exports">
        <button type="button" onClick={() => download('impact.json', reportJson(report), 'application/json')}>
          Export JSON
        </button>
        <button type="button" onClick={() => download('impact.csv', reportCsv(report), 'text/csv')}>
          Export CSV
        </button>
        <button type="button" onClick={() => download('impact.md', reportMarkdown(report), 'text/markdown')}>
          Export Markdown
        </button>
      </div>
      <table className="impact-counts">
        <thead>
          <tr>
            <th scope="col">change</th>
            <th scope="col">writes in the log</th>
            <th scope="col">existing objects</th>
          </tr>
        </thead>
        <tbody>
          {CHANGES.map((c) => (
            <tr key={c} className={c}>
              <th scope="row">{CHANGE_LABEL[c]}</th>
              <td>{s.changes[c].toLocaleString()}</td>
              <td>{s.existing.judged ? s.existing.changes[c].toLocaleString() : 'not judged'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <TimelineChart report={report} writes={writes} />
      {rows.length ? <ChangedRequests report={report} rows={rows} onOpen={onOpen} /> : null}
      {existing.length ? (
        <section aria-label="Existing objects">
          <h3>Existing objects that would change</h3>
          <ul className="impact-existing">
            {existing.slice(0, 500).map((o, i) => (
              <li key={i} className={o.change}>
                <b>{CHANGE_LABEL[o.change]}</b> <span className="mono">{`${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`}</span>
                <span className="impact-message">{` — ${reasonOf(o.change, o.baseline, o.candidate)}`}</span>{' '}
                {report.requests[existingKey(o)] ? (
                  <button type="button" className="link" onClick={() => openInSimulator(existingKey(o)) && onOpen()}>
                    Open in Simulate
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
          {existing.length > 500 ? <p className="sim-muted">{`… ${existing.length - 500} more in the exported report`}</p> : null}
        </section>
      ) : null}
      {s.webhookCalls.length ? (
        <section aria-label="Webhook calls">
          <h3>Webhook calls of the candidate</h3>
          <table className="impact-counts">
            <thead>
              <tr>
                <th scope="col">webhook</th>
                <th scope="col">calls</th>
                <th scope="col">busiest second</th>
                <th scope="col">worst added latency</th>
              </tr>
            </thead>
            <tbody>
              {s.webhookCalls.map((w) => (
                <tr key={w.webhook}>
                  <th scope="row" className="mono">
                    {w.webhook}
                  </th>
                  <td>{w.calls.toLocaleString()}</td>
                  <td>{`${w.peakPerSecond}/s`}</td>
                  <td>{w.timeoutSeconds !== undefined ? `${w.timeoutSeconds} s (timeoutSeconds)` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {Object.keys(s.skipped).length ? (
        <section aria-label="Not replayed">
          <h3>Not replayed</h3>
          <ul className="sim-muted">
            {Object.entries(s.skipped).map(([reason, n]) => (
              <li key={reason}>{`${n?.toLocaleString()} — ${SKIP_REASONS[reason as keyof typeof SKIP_REASONS]}`}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {s.notes.map((n, i) => (
        <p key={i} className="sim-muted">{`Note: ${n}.`}</p>
      ))}
      {baselineNote(s) ? <p className="sim-muted">{`Note: ${baselineNote(s)}.`}</p> : null}
    </>
  );
}
