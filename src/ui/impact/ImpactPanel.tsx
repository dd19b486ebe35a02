/**
 * The Impact view: open a cluster snapshot (`kubectl get … -o yaml|json`) and an audit log
 * (JSON lines, gzip or not), replay them through the cluster's chain and the candidate (the
 * workspace added to it, or alone), and see what changes: a headline, the denials over time, the
 * changed requests grouped, the existing objects that would be rejected, webhook load; each row
 * opens its request in Simulate. Export as JSON, CSV or Markdown.
 */
import { useDeferredValue, useId, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import {
  CHANGES,
  denialTimeline,
  groupEvents,
  reportCsv,
  reportJson,
  reportMarkdown,
  SKIP_REASONS,
  TIMELINE_BUCKETS,
  verdictOf,
  type Change,
  type ImpactReport,
  type ImpactRow,
} from '../../impact';
import { useWorkspace } from '../../store';
import {
  addImpactFiles,
  cancelImpact,
  isStale,
  openInSimulator,
  removeImpactFile,
  runImpact,
  setImpactOptions,
  useImpact,
  type ImpactState,
} from '../../store/impact';
import { download } from '../download';
import './impact.css';

const CHANGE_LABEL: Readonly<Record<Change, string>> = {
  'newly-denied': 'newly denied',
  'no-longer-denied': 'no longer denied',
  'newly-warned': 'newly warned',
  'newly-audited': 'newly audited',
  'newly-mutated': 'newly mutated',
  undetermined: 'undetermined (old object unknown)',
  unchanged: 'unchanged',
};

/** Groups drawn in the table at most (the largest first): a log with thousands of groups draws in one frame; the filters and the exports reach the rest. */
const MAX_ROWS = 300;

const NO_ROWS: ImpactRow[] = [];

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** The run's progress: its own subscription, so a progress message redraws the bar and nothing else. */
function RunProgress() {
  const running = useImpact((s) => s.running);
  const p = useImpact((s) => s.progress);
  return running && p ? <Progress p={p} /> : null;
}

function Progress({ p }: { p: NonNullable<ImpactState['progress']> }) {
  if (p.snapshotRead !== undefined)
    return (
      <div className="impact-progress" role="status" aria-live="polite">
        <progress max={1} value={p.snapshotBytes ? p.snapshotRead / p.snapshotBytes : 0} aria-label="Progress" />
        <span>{`reading the snapshot: ${mb(p.snapshotRead)} of ${mb(p.snapshotBytes ?? 0)}`}</span>
      </div>
    );
  if (p.scanned !== undefined)
    return (
      <div className="impact-progress" role="status" aria-live="polite">
        <progress max={1} value={p.totalBytes ? p.scanned / p.totalBytes : 0} aria-label="Progress" />
        <span>{`reading the log for the objects later requests change: ${mb(p.scanned)} of ${mb(p.totalBytes)}`}</span>
      </div>
    );
  const secs = Math.max(0.001, (Date.now() - p.startedAt) / 1000);
  const share = p.totalBytes ? p.bytes / p.totalBytes : 0;
  const left = share > 0.02 && share < 1 ? Math.round((secs / share) * (1 - share)) : undefined;
  return (
    <div className="impact-progress" role="status" aria-live="polite">
      <progress max={1} value={p.phase === 'existing' ? (p.existingTotal ? p.existing / p.existingTotal : 0) : share} aria-label="Progress" />
      <span>
        {p.phase === 'existing'
          ? `existing objects ${p.existing} of ${p.existingTotal}`
          : `${p.events.toLocaleString()} writes replayed (${Math.round(p.events / secs)}/s), ${p.lines.toLocaleString()} lines`}
        {`, ${p.changed} changed`}
        {left !== undefined ? `, about ${left} s left` : ''}
      </span>
    </div>
  );
}

/** Newly denied requests over the log's time: one bar per bucket, the writes as a faint bar behind. */
function TimelineChart({ report, writes }: { report: ImpactReport; writes: ImpactState['writes'] }) {
  const buckets = useMemo(() => denialTimeline(report, TIMELINE_BUCKETS, writes), [report, writes]);
  if (buckets.length < 2) return null;
  const [w, h] = [640, 120];
  const maxWrites = Math.max(1, ...buckets.map((b) => b.writes));
  const bw = w / buckets.length;
  const fmt = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 16);
  return (
    <figure className="impact-chart">
      <svg
        viewBox={`0 0 ${w} ${h + 16}`}
        role="img"
        aria-label={`Newly denied requests over time, from ${fmt(buckets[0]!.start)} to ${fmt(buckets.at(-1)!.start + buckets.at(-1)!.width)} UTC`}
      >
        {buckets.map((b, i) => (
          <g key={i}>
            <title>{`${fmt(b.start)}: ${b.newlyDenied} newly denied of ${b.writes} writes`}</title>
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
          {fmt(buckets[0]!.start)}
        </text>
        <text x={w} y={h + 13} textAnchor="end" className="axis">
          {fmt(buckets.at(-1)!.start + buckets.at(-1)!.width)} UTC
        </text>
      </svg>
      <figcaption>
        <span className="swatch denied" /> newly denied <span className="swatch writes" /> writes replayed
      </figcaption>
    </figure>
  );
}

/** `grouped`: the table's rows as the replay worker built them (else the report's events are grouped here). */
function Report({
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
  const [filter, setFilter] = useState<Change | 'all'>('all');
  const [text, setText] = useState('');
  // the table after the headline and counts: its rows are drawn in a later, interruptible render
  const rows = useDeferredValue(
    useMemo(() => grouped ?? groupEvents(report.events), [report, grouped]),
    NO_ROWS,
  );
  const shown = rows.filter(
    (r) =>
      (filter === 'all' || r.change === filter) && (!text || [r.by, r.namespace, r.user, r.resource].some((x) => x.toLowerCase().includes(text.toLowerCase()))),
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
              <td>{s.existing.changes[c].toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <TimelineChart report={report} writes={writes} />
      {rows.length ? (
        <section aria-label="Changed requests">
          <h3>Changed requests</h3>
          <div className="impact-filters">
            <label>
              Change{' '}
              <select value={filter} onChange={(e) => setFilter(e.target.value as Change | 'all')}>
                <option value="all">all</option>
                {CHANGES.filter((c) => c !== 'unchanged').map((c) => (
                  <option key={c} value={c}>
                    {CHANGE_LABEL[c]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Filter <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="policy, namespace, user, resource" />
            </label>
          </div>
          <table className="impact-rows" data-testid="impact-rows">
            <thead>
              <tr>
                <th scope="col">count</th>
                <th scope="col">change</th>
                <th scope="col">decided by</th>
                <th scope="col">namespace</th>
                <th scope="col">user</th>
                <th scope="col">resource</th>
                <th scope="col">example</th>
              </tr>
            </thead>
            <tbody>
              {shown.slice(0, MAX_ROWS).map((r, i) => {
                const ex = r.examples[0];
                const canOpen = !!ex && !!report.requests[ex.auditID];
                return (
                  <tr key={i} className={r.change}>
                    <td>{r.count.toLocaleString()}</td>
                    <td>{CHANGE_LABEL[r.change]}</td>
                    <td className="mono">{r.by || '—'}</td>
                    <td>{r.namespace || '—'}</td>
                    <td className="mono">{r.user}</td>
                    <td className="mono">{r.resource}</td>
                    <td>
                      {ex ? <span className="impact-message">{`line ${ex.line}${ex.message ? `: ${ex.message}` : ''}`}</span> : null}{' '}
                      {canOpen ? (
                        <button type="button" className="link" onClick={() => openInSimulator(ex.auditID) && onOpen()}>
                          Open in Simulate
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {shown.length > MAX_ROWS ? (
            <p className="sim-muted">{`… ${(shown.length - MAX_ROWS).toLocaleString()} more groups: narrow them with the filters, or export the report`}</p>
          ) : null}
        </section>
      ) : null}
      {existing.length ? (
        <section aria-label="Existing objects">
          <h3>Existing objects that would change</h3>
          <ul className="impact-existing">
            {existing.slice(0, 500).map((o, i) => (
              <li key={i} className={o.change}>
                <b>{CHANGE_LABEL[o.change]}</b> <span className="mono">{`${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`}</span>
                {o.candidate.deniedBy ? (
                  <span className="impact-message">{` — ${o.candidate.deniedBy.kind} ${o.candidate.deniedBy.name}: ${o.candidate.deniedBy.message}`}</span>
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
      {s.baselineDisagrees ? (
        <p className="sim-muted">{`For ${s.baselineDisagrees} requests the baseline's decision differs from what the cluster answered: webhook answers are assumed (allow) and the built-in admission plugins are not modelled.`}</p>
      ) : null}
    </>
  );
}

export default function ImpactPanel({ onOpenInSimulate }: { onOpenInSimulate: () => void }) {
  // everything but the progress, which RunProgress draws
  const state = useImpact(useShallow(({ progress: _, ...rest }) => rest));
  const docs = useWorkspace((s) => s.docs);
  const celState = useWorkspace((s) => s.celState);
  const kubernetesVersion = useWorkspace((s) => s.kubernetesVersion);
  const staticManifests = useWorkspace((s) => s.staticManifests);
  const stale = isStale(state.ranWith, { docs, kubernetesVersion, staticManifests });
  const uid = useId();
  const snapshotInput = useRef<HTMLInputElement>(null);
  const auditInput = useRef<HTMLInputElement>(null);
  const files = [...state.snapshots.map((f) => ({ ...f, as: 'snapshot' })), ...state.audits.map((f) => ({ ...f, as: 'audit log' }))];
  return (
    <section
      className="impact"
      aria-labelledby={`${uid}-h`}
      onDragOver={(e) => e.dataTransfer.types.includes('Files') && (e.preventDefault(), e.stopPropagation())}
      onDrop={(e) => {
        if (!e.dataTransfer.files.length) return;
        e.preventDefault();
        e.stopPropagation();
        addImpactFiles(e.dataTransfer.files);
      }}
    >
      <h2 id={`${uid}-h`}>Impact on real traffic</h2>
      <p className="sim-muted">
        What the workspace would have done to your cluster's real requests (its audit log) and to the objects it runs now (a snapshot), beside what the
        cluster's own admission chain does. Files stay in this browser. Drop them here or open them:
        <code> kubectl get $(kubectl api-resources --verbs=list -o name | paste -sd,) -A -o json &gt; snapshot.json</code> and the kube-apiserver's
        <code> --audit-log-path</code> file (level Request or RequestResponse for writes).
      </p>
      <div className="impact-inputs">
        <input
          ref={snapshotInput}
          type="file"
          multiple
          hidden
          accept=".yaml,.yml,.json,.gz"
          onChange={(e) => e.target.files && addImpactFiles(e.target.files, 'snapshot')}
          data-testid="impact-snapshot-input"
        />
        <input
          ref={auditInput}
          type="file"
          multiple
          hidden
          onChange={(e) => e.target.files && addImpactFiles(e.target.files, 'audit')}
          data-testid="impact-audit-input"
        />
        <button type="button" onClick={() => snapshotInput.current?.click()}>
          Open snapshot…
        </button>
        <button type="button" onClick={() => auditInput.current?.click()}>
          Open audit log…
        </button>
        <fieldset className="impact-candidate">
          <legend>Candidate</legend>
          <label>
            <input type="radio" name={`${uid}-c`} checked={state.candidate === 'overlay'} onChange={() => setImpactOptions({ candidate: 'overlay' })} /> the
            cluster's chain with the workspace
          </label>
          <label>
            <input type="radio" name={`${uid}-c`} checked={state.candidate === 'replace'} onChange={() => setImpactOptions({ candidate: 'replace' })} /> the
            workspace alone
          </label>
        </fieldset>
        <label>
          <input type="checkbox" checked={state.existing} onChange={(e) => setImpactOptions({ existing: e.target.checked })} /> judge existing objects (as a
          CREATE now)
        </label>
      </div>
      {files.length ? (
        <ul className="impact-files" aria-label="Opened files">
          {files.map((f) => (
            <li key={`${f.as}:${f.name}`}>
              <span className="mono">{f.name}</span> <span className="sim-muted">{`${f.as}, ${mb(f.size)}`}</span>{' '}
              <button type="button" className="link" aria-label={`Remove ${f.name}`} onClick={() => removeImpactFile(f.name)} disabled={state.running}>
                remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="impact-run">
        {state.running ? (
          <button type="button" onClick={cancelImpact}>
            Cancel
          </button>
        ) : (
          <button type="button" className="primary" disabled={!files.length || celState !== 'ready'} onClick={() => void runImpact(docs)}>
            {celState === 'ready' ? 'Analyze' : 'Waiting for the CEL engine…'}
          </button>
        )}
        <span className="sim-muted"> Webhook answers are assumed: allow.</span>
      </div>
      <RunProgress />
      {state.problems.length ? (
        <ul className="pt-problem" role="alert">
          {state.problems.map((p, i) => (
            <li key={i}>{p}</li>
          ))}
        </ul>
      ) : null}
      {state.report ? <Report report={state.report} grouped={state.rows} writes={state.writes} stale={stale} onOpen={onOpenInSimulate} /> : null}
    </section>
  );
}
