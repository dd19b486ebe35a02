/**
 * Saved scenarios: the simulator's request and webhook responses with the verdict expected
 * (allowed, or denied — optionally by a named configuration, webhook, policy or binding), all
 * re-run on every edit of the workspace, with a pass/fail summary.
 */
import { useEffect, useId, useState } from 'react';
import type { SimResult } from '../../store/simulator';
import { useWorkspace, type WorkspaceDoc } from '../../store';
import { runScenarios, scenarioOf, setSimulatorDraft, type ScenarioResult } from '../../store/simulator';
import { testInputs, useTestInputs } from '../../store/test-inputs';
import type { SimulatorDraft } from '../../request';
import { MutationBreaks } from './MutationBreaks';

const RUN_DELAY_MS = 300;

export function Scenarios({ docs, draft, current }: { docs: readonly WorkspaceDoc[]; draft: SimulatorDraft; current: SimResult | undefined }) {
  const scenarios = useTestInputs((s) => s.scenarios);
  const celState = useWorkspace((s) => s.celState);
  const release = useWorkspace((s) => s.kubernetesVersion); // runs again at another target release
  const allStatic = useWorkspace((s) => s.staticManifests); // … and when the workspace becomes a static manifest set
  const [results, setResults] = useState<ScenarioResult[]>();
  const [name, setName] = useState('');
  const [expected, setExpected] = useState<'' | 'allowed' | 'denied'>('');
  const [deniedBy, setDeniedBy] = useState('');
  const uid = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: runScenarios reads the release and the static flag from the store, so release and allStatic are its triggers
  useEffect(() => {
    if (celState !== 'ready' || !scenarios.length) {
      setResults(undefined);
      return;
    }
    let cancelled = false;
    const t = setTimeout(() => void runScenarios(docs, scenarios).then((r) => !cancelled && setResults(r)), RUN_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [celState, docs, scenarios, release, allStatic]);

  const now = current ? (current.allowed ? 'allowed' : 'denied') : undefined;
  const verdict = expected || now || 'allowed';
  const save = () => {
    const by =
      verdict === 'denied' ? deniedBy.trim() || (now === 'denied' && !expected ? (current?.deniedBy?.webhook ?? current?.deniedBy?.name ?? '') : '') : '';
    testInputs
      .getState()
      .saveScenario(scenarioOf(name.trim() || `scenario ${scenarios.length + 1}`, draft, { allowed: verdict === 'allowed', ...(by ? { deniedBy: by } : {}) }));
    setName('');
    setExpected('');
    setDeniedBy('');
  };
  const passed = results?.filter((r) => r.pass).length ?? 0;
  return (
    <section className="sim-scenarios" aria-labelledby={`${uid}-h`}>
      <h3 id={`${uid}-h`}>
        Saved scenarios{' '}
        {scenarios.length ? (
          <span className={`count ${results && passed < results.length ? 'error' : 'ok'}`} data-testid="scenarios-summary">
            {results ? `${passed}/${results.length} pass` : `${scenarios.length} scenario(s)`}
          </span>
        ) : null}
      </h3>
      <div className="sim-save">
        <label htmlFor={`${uid}-name`}>Scenario name</label>
        <input id={`${uid}-name`} type="text" value={name} placeholder={`scenario ${scenarios.length + 1}`} onChange={(e) => setName(e.target.value)} />
        <label htmlFor={`${uid}-expect`}>Expect</label>
        <select id={`${uid}-expect`} value={verdict} onChange={(e) => setExpected(e.target.value as 'allowed' | 'denied')}>
          <option value="allowed">allowed{now === 'allowed' ? ' (now)' : ''}</option>
          <option value="denied">denied{now === 'denied' ? ' (now)' : ''}</option>
        </select>
        {verdict === 'denied' ? (
          <>
            <label htmlFor={`${uid}-by`}>denied by (optional)</label>
            <input
              id={`${uid}-by`}
              type="text"
              value={deniedBy}
              placeholder={current?.deniedBy?.webhook ?? current?.deniedBy?.name ?? 'any'}
              onChange={(e) => setDeniedBy(e.target.value)}
            />
          </>
        ) : null}
        <button type="button" onClick={save}>
          Save as a scenario
        </button>
      </div>
      <ul className="sim-scenario-list">
        {scenarios.map((s) => {
          const r = results?.find((x) => x.id === s.id);
          return (
            <li key={s.id} className={r ? (r.pass ? 'pass' : 'fail') : ''} data-scenario={s.name} data-status={r ? (r.pass ? 'pass' : 'fail') : 'pending'}>
              <span className="badge">{r ? (r.pass ? 'pass' : 'fail') : '…'}</span> <strong>{s.name}</strong> — expect{' '}
              {s.expect.allowed ? 'allowed' : `denied${s.expect.deniedBy ? ` by ${s.expect.deniedBy}` : ''}`}
              {r && !r.pass ? <div className="pt-err">{r.failures.join('; ')}</div> : null}
              {r ? <MutationBreaks breaks={r.breaks} docs={docs} /> : null}
              <span className="pt-case-actions">
                <button
                  type="button"
                  className="small"
                  aria-label={`Load scenario ${s.name}`}
                  onClick={() => setSimulatorDraft({ input: s.input, webhooks: s.webhooks, ...(s.cluster ? { cluster: s.cluster } : {}) })}
                >
                  Load
                </button>
                <button
                  type="button"
                  className="icon danger"
                  aria-label={`Delete scenario ${s.name}`}
                  onClick={() => testInputs.getState().removeScenario(s.id)}
                >
                  ×
                </button>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
