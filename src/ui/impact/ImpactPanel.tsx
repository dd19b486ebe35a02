/**
 * The Impact view: open a cluster snapshot (`kubectl get … -o yaml|json`) and an audit log
 * (JSON lines, gzip or not), replay them through the cluster's chain and the candidate (the
 * workspace added to it, or alone), and see what changes: a headline, the denials over time, the
 * changed requests grouped, the existing objects that would be rejected, webhook load; each row
 * opens its request in Simulate. Export as JSON, CSV or Markdown.
 */
import { useId, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { SNAPSHOT_COMMAND } from '../../impact';
import { useWorkspace } from '../../store';
import { addImpactFiles, cancelImpact, isStale, removeImpactFile, runImpact, setImpactOptions, useImpact, type ImpactState } from '../../store/impact';
import { ImpactAssumptions } from './ImpactAssumptions';
import { Report } from './ImpactReport';
import './impact.css';

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
        <code data-testid="impact-snapshot-command"> {SNAPSHOT_COMMAND}</code> and the kube-apiserver's
        <code> --audit-log-path</code> file (level Request or RequestResponse for writes).
      </p>
      <div className="impact-inputs">
        <input
          ref={snapshotInput}
          type="file"
          multiple
          hidden
          accept=".yaml,.yml,.json,.gz"
          onChange={(e) => {
            if (e.target.files) addImpactFiles(e.target.files, 'snapshot');
            // a file removed and opened again is a change: the picker's value starts empty each time
            e.target.value = '';
          }}
          data-testid="impact-snapshot-input"
        />
        <input
          ref={auditInput}
          type="file"
          multiple
          hidden
          onChange={(e) => {
            if (e.target.files) addImpactFiles(e.target.files, 'audit');
            e.target.value = '';
          }}
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
            {/* The words of the command line's --candidate overlay|replace (src/cli/impact.ts). */}
            <input type="radio" name={`${uid}-c`} checked={state.candidate === 'overlay'} onChange={() => setImpactOptions({ candidate: 'overlay' })} />{' '}
            overlay: the cluster's chain plus the workspace's
          </label>
          <label>
            <input type="radio" name={`${uid}-c`} checked={state.candidate === 'replace'} onChange={() => setImpactOptions({ candidate: 'replace' })} />{' '}
            replace: the workspace's alone
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
      <ImpactAssumptions docs={docs} state={state} />
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
