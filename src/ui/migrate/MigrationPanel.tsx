/**
 * The Migration view: every rule of the workspace's Gatekeeper and Kyverno documents and what
 * its conversion into native admission says (exact, different and why, not convertible and
 * why), at a glance as a bar of counts, then one row per rule with its produced objects (each
 * opens its document once converted). Nothing is converted into the workspace until "Convert".
 */
import { Fragment } from 'react';
import { useWorkspace, workspace } from '../../store';
import { convertToNative, migrationOf, newPolicyForTemplate, setGatekeeperMode, useGatekeeperMode, type GatekeeperMode } from '../../store/migrate';
import { countByStatus, STATUS_LABEL, STATUSES } from '../../migrate/report';
import type { RuleStatus } from '../../migrate';
import { OpenFolder, TestProblems, TestsCell, useSourceTests } from './MigrationTests';
import TrafficProof, { TrafficCell } from './TrafficProof';
import './migrate.css';

function StatusBar({ counts, total }: { counts: Record<RuleStatus, number>; total: number }) {
  return (
    <>
      <div className="migration-bar" role="img" aria-label={STATUSES.map((s) => `${counts[s]} ${STATUS_LABEL[s]}`).join(', ')}>
        {STATUSES.map((s) => (counts[s] ? <span key={s} className={`status-${s}`} style={{ width: `${(100 * counts[s]) / total}%` }} /> : null))}
      </div>
      <p className="migration-legend" data-testid="migration-counts">
        {STATUSES.map((s) => (
          <span key={s}>
            <span className={`migration-status status-${s}`}>{STATUS_LABEL[s]}</span> {counts[s]}
          </span>
        ))}
      </p>
    </>
  );
}

const open = (id: string) => workspace.getState().select(id);

/** A Rego-only template's Rego (read-only), beside where the CEL is started by hand. */
function RegoPane({ name, rego }: { name: string; rego: string }) {
  return (
    <details className="migration-rego" data-testid="migration-rego">
      <summary>Show the Rego and start the CEL by hand</summary>
      <div className="migration-rego-pane">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable block takes the focus so that the keyboard can scroll it (axe: scrollable-region-focusable) */}
        <pre className="mono" role="group" aria-label={`Rego of ${name} (read-only)`} tabIndex={0}>
          {rego}
        </pre>
        <div>
          <p className="help">
            Rego cannot be converted to CEL. Write the CEL in a ValidatingAdmissionPolicy of your own: it starts with no validations, named after the template,
            and opens in the editor (the Rego stays here).
          </p>
          <button type="button" data-testid="new-vap-from-template" onClick={() => newPolicyForTemplate(name)}>
            New ValidatingAdmissionPolicy from this template
          </button>
        </div>
      </div>
    </details>
  );
}

export default function MigrationPanel() {
  const docs = useWorkspace((s) => s.docs);
  const release = useWorkspace((s) => s.kubernetesVersion);
  const mode = useGatekeeperMode();
  const m = migrationOf(docs, release, mode);
  const counts = countByStatus(m.conversion.rules);
  const tests = useSourceTests(docs, m.conversion, release);
  return (
    <section className="migration" aria-labelledby="migration-title" data-testid="migration">
      <h2 id="migration-title">Migration to native admission</h2>
      <p className="help">
        The workspace's Gatekeeper templates and constraints and Kyverno policies, rule by rule, as ValidatingAdmissionPolicy / MutatingAdmissionPolicy and
        their bindings for Kubernetes {release}. "Exact" is said only where a differential test against the project's own engine agrees.
      </p>
      <div className="migration-controls">
        <label>
          Gatekeeper{' '}
          <select value={mode} onChange={(e) => setGatekeeperMode(e.target.value as GatekeeperMode)} data-testid="gatekeeper-mode">
            <option value="as-gatekeeper">as Gatekeeper generates it (paramKind: the constraint)</option>
            <option value="standalone">standalone (no Gatekeeper left in the cluster)</option>
          </select>
        </label>
        <button type="button" className="primary" data-testid="convert-all" disabled={!m.sources} onClick={() => convertToNative()}>
          Convert all to native admission
        </button>
        <OpenFolder />
      </div>
      {m.error ? <p className="banner error" role="status">{`The conversion failed: ${m.error}`}</p> : null}
      {!m.sources ? (
        <p className="empty" data-testid="migration-empty">
          No Gatekeeper or Kyverno document in the workspace. Open a ConstraintTemplate with its constraints, or a Kyverno ValidatingPolicy, MutatingPolicy or
          ClusterPolicy (Open files… or Paste YAML…).
        </p>
      ) : null}
      {m.conversion.rules.length ? (
        <>
          <StatusBar counts={counts} total={m.conversion.rules.length} />
          <table className="migration-rows" data-testid="migration-rows">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Source</th>
                <th scope="col">Rule</th>
                <th scope="col">Reason</th>
                <th scope="col">Produced</th>
                {tests ? <th scope="col">Tests</th> : null}
                <th scope="col">Traffic</th>
              </tr>
            </thead>
            <tbody>
              {m.rows.map((r, i) => (
                <Fragment key={i}>
                  <tr>
                    <td>
                      <span className={`migration-status status-${r.rule.status}`}>{STATUS_LABEL[r.rule.status]}</span>
                    </td>
                    <td className="mono">
                      {r.doc ? (
                        <button type="button" className="link" onClick={() => open(r.doc!.id)}>{`${r.rule.source.kind}/${r.rule.source.name}`}</button>
                      ) : (
                        `${r.rule.source.kind}/${r.rule.source.name}`
                      )}
                      {r.rule.duplicate && r.doc?.origin ? <div className="hint">{r.doc.origin}</div> : null}
                    </td>
                    <td className="mono">{r.rule.source.rule}</td>
                    <td>
                      {r.rule.reason ?? ''}
                      {r.rule.duplicate ? <p className="migration-duplicate">{r.rule.duplicate}</p> : null}
                    </td>
                    <td>
                      <ul className="migration-produced">
                        {r.produced.map((p) => (
                          <li key={p.ref} className="mono">
                            {p.doc ? (
                              <button type="button" className="link" onClick={() => open(p.doc!.id)}>
                                {p.ref}
                              </button>
                            ) : (
                              <span title="Not in the workspace yet: Convert adds it">{p.ref}</span>
                            )}
                          </li>
                        ))}
                      </ul>
                    </td>
                    {tests ? (
                      <td>
                        <TestsCell runs={tests.runs[i]} />
                      </td>
                    ) : null}
                    <td>
                      <TrafficCell source={r.rule.source} />
                    </td>
                  </tr>
                  {r.rego ? (
                    <tr>
                      <td colSpan={tests ? 7 : 6}>
                        <RegoPane name={r.rule.source.name} rego={r.rego} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
          <TrafficProof />
        </>
      ) : null}
      {tests ? <TestProblems problems={tests.problems} /> : null}
      {m.unread.length ? (
        <>
          <h3>Not read by any converter of this build</h3>
          <ul data-testid="migration-unread">
            {m.unread.map((u) => (
              <li key={u.doc.id} className="mono">
                <button type="button" className="link" onClick={() => open(u.doc.id)}>{`${u.kind}/${u.name}`}</button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
