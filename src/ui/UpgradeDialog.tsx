/**
 * "What changes from release A to B": the workspace's documents and saved cases checked at both
 * releases by the CLI's upgrade check (src/store/upgrade.ts), each difference with a link to its
 * document and path, what got worse first.
 */
import { useState } from 'react';
import { KUBERNETES_VERSIONS, isKubernetesVersion, releaseLabel, type KubernetesVersion } from '../base/releases';
import { docTitle, useWorkspace, workspace } from '../store';
import type { UpgradeComparison } from '../store/upgrade';
import { Dialog } from './Dialog';

type Change = UpgradeComparison['changes'][number];

const WORDS: Record<Change['change'], string> = { appears: 'appears in', gone: 'gone in', changed: 'changed in' };

/** The release after `v` in the table (the one before, for the last). */
const nextRelease = (v: KubernetesVersion): KubernetesVersion => {
  const i = KUBERNETES_VERSIONS.indexOf(v);
  return KUBERNETES_VERSIONS[i + 1] ?? KUBERNETES_VERSIONS[i - 1] ?? v;
};

function ReleaseSelect({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: KubernetesVersion;
  onChange: (v: KubernetesVersion) => void;
  testId: string;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value} data-testid={testId} onChange={(e) => isKubernetesVersion(e.target.value) && onChange(e.target.value)}>
        {KUBERNETES_VERSIONS.map((v) => (
          <option key={v} value={v}>
            {releaseLabel(v)}
          </option>
        ))}
      </select>
    </label>
  );
}

type Target = { docId: string; path: string } | undefined;

function ChangeLine({
  change: c,
  target,
  from,
  onGo,
}: {
  change: Change;
  target: Target;
  from: KubernetesVersion;
  onGo: (docId: string, path: string) => void;
}) {
  const docs = useWorkspace((s) => s.docs);
  const p = c.problem;
  const doc = target && docs.find((d) => d.id === target.docId);
  const where = doc ? `${docTitle(doc)}${target.path ? ` · ${target.path}` : ''}` : p.file;
  return (
    <li className={p.severity === 'error' ? 'error' : 'warning'} data-change={c.change} data-worse={c.worse || undefined}>
      <span className="badge">
        {WORDS[c.change]} {c.release}
        {c.worse ? ' (worse)' : ''}
      </span>{' '}
      {target ? (
        <button type="button" className="link" data-testid="upgrade-change-link" onClick={() => onGo(target.docId, target.path)}>
          {where}
        </button>
      ) : (
        <code>{where}</code>
      )}
      : {p.severity}: {p.rule && p.type === 'Case' ? `${p.rule}: ` : ''}
      {p.message}
      {c.before ? (
        <div className="hint">
          at {from}: {c.before.severity}: {c.before.message}
        </div>
      ) : null}
    </li>
  );
}

type State = { kind: 'idle' } | { kind: 'running' } | { kind: 'failed'; messages: string[] } | { kind: 'done'; report: UpgradeComparison; targets: Target[] };

export function UpgradeDialog({ onClose }: { onClose: () => void }) {
  const target = useWorkspace((s) => s.kubernetesVersion);
  const [from, setFrom] = useState<KubernetesVersion>(target);
  const [to, setTo] = useState<KubernetesVersion>(nextRelease(target));
  const [state, setState] = useState<State>({ kind: 'idle' });
  const run = () => {
    setState({ kind: 'running' });
    void import('../store/upgrade')
      .then(async (m) => {
        const r = await m.compareWorkspace(from, to);
        return r.ok ? ({ kind: 'done', report: r.report, targets: r.report.changes.map((c) => m.changeTarget(c.problem)) } as const) : r;
      })
      .then(
        (r) => setState('ok' in r ? { kind: 'failed', messages: r.messages } : r),
        (e: unknown) => setState({ kind: 'failed', messages: [String(e)] }),
      );
  };
  const go = (docId: string, path: string) => {
    workspace.getState().focusField(docId, path);
    onClose();
  };
  // what got worse first, then in the report's order
  const changes =
    state.kind === 'done'
      ? state.report.changes.map((change, i) => ({ change, target: state.targets[i] })).sort((a, b) => Number(b.change.worse) - Number(a.change.worse))
      : [];
  return (
    <Dialog labelledBy="upgrade-title" onClose={onClose} testId="upgrade-dialog" className="upgrade-dialog">
      <h2 id="upgrade-title">What changes from release A to B</h2>
      <p className="help">
        The workspace's documents and saved cases checked at both releases, with each release's own CEL engine (as{' '}
        <code>admission-workbench check --upgrade-from A --kubernetes-version B</code>). CEL compiles at A as written and at B as already stored, as B's
        apiserver compiles the policies it finds in etcd after the upgrade (a library of B's own release is usable there).
      </p>
      <div className="dialog-actions">
        <ReleaseSelect label="From (A)" value={from} onChange={setFrom} testId="upgrade-from" />
        <ReleaseSelect label="To (B)" value={to} onChange={setTo} testId="upgrade-to" />
        <button type="button" className="primary" disabled={from === to || state.kind === 'running'} onClick={run} data-testid="upgrade-run">
          Compare
        </button>
      </div>
      <div role="status" data-testid="upgrade-result" aria-live="polite">
        {state.kind === 'running' ? (
          <p>
            Checking at {from} and {to}…
          </p>
        ) : null}
        {state.kind === 'failed' ? (
          <div className="notice error">
            {state.messages.map((m) => (
              <p key={m}>Nothing compared: {m}</p>
            ))}
          </div>
        ) : null}
        {state.kind === 'done' ? (
          <>
            <p data-testid="upgrade-summary">
              {state.report.from} → {state.report.to}: {state.report.summary.appears} appear, {state.report.summary.gone} gone, {state.report.summary.changed}{' '}
              changed, {state.report.summary.worse} worse
              {state.report.summary.cases.to.total
                ? `; saved cases: ${state.report.summary.cases.from.passed}/${state.report.summary.cases.from.total} pass at ${state.report.from}, ${state.report.summary.cases.to.passed}/${state.report.summary.cases.to.total} at ${state.report.to}`
                : ''}
            </p>
            {changes.length ? (
              <ul className="problems upgrade-changes" data-testid="upgrade-changes">
                {changes.map((c, i) => (
                  <ChangeLine key={`${i}-${c.change.change}`} change={c.change} target={c.target} from={state.report.from} onGo={go} />
                ))}
              </ul>
            ) : (
              <p>Nothing changes for this workspace.</p>
            )}
          </>
        ) : null}
      </div>
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
