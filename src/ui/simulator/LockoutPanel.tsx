/**
 * Lockout analysis: the critical system requests (kubelet leases and node status, kube-system
 * pods and leader election, namespace deletion, token requests, CSR approval, EndpointSlices,
 * the webhook's own pods …) the workspace would reject or stall while its webhooks are down
 * (src/admission lockoutReport). A headline, then each finding linked to the field that makes it so.
 */
import { useEffect, useId, useState } from 'react';
import type { LockoutReport } from '../../store/simulator';
import { useWorkspace } from '../../store';
import { docOfRef, runLockout } from '../../store/simulator';
import { focusRef } from './focus';
import './simulator.css';

const RUN_DELAY_MS = 300;

export default function LockoutPanel() {
  const docs = useWorkspace((s) => s.docs);
  const celState = useWorkspace((s) => s.celState);
  const release = useWorkspace((s) => s.kubernetesVersion); // runs again at another target release
  const platform = useWorkspace((s) => s.platform); // … or platform (its critical namespaces)
  const allStatic = useWorkspace((s) => s.staticManifests); // … and when the workspace becomes a static manifest set
  const [report, setReport] = useState<LockoutReport | { error: string }>();
  const uid = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: runLockout reads the release, platform and static flag from the store, so release, platform and allStatic are its triggers
  useEffect(() => {
    if (celState !== 'ready') return;
    let cancelled = false;
    const t = setTimeout(() => void runLockout(docs).then((r) => !cancelled && setReport(r)), RUN_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [celState, docs, release, platform, allStatic]);

  return (
    <section className="lockout" aria-labelledby={`${uid}-h`}>
      <h2 id={`${uid}-h`}>Lockout analysis</h2>
      <p className="sim-muted">
        Critical requests the cluster's own components send all the time, simulated with every webhook of the workspace unavailable. A request that is rejected
        (or waits for a webhook's timeout) can take nodes, controllers or the webhook itself down with it.
      </p>
      {celState === 'failed' ? (
        <p className="pt-problem">The CEL engine is unavailable: the report needs it for matchConditions and policies.</p>
      ) : celState !== 'ready' || !report ? (
        <p className="sim-muted">{celState !== 'ready' ? 'Waiting for the CEL engine…' : 'Checking…'}</p>
      ) : 'error' in report ? (
        <p className="pt-problem" role="alert">
          {report.error}
        </p>
      ) : (
        <>
          <p className={`lockout-headline ${report.findings.length ? 'bad' : 'good'}`} data-testid="lockout-headline" role="status">
            {report.headline}
          </p>
          {report.findings.length ? (
            <ul className="lockout-findings" aria-label="Findings">
              {report.findings.map((f, i) => {
                const doc = docOfRef(docs, f.document);
                const who = f.webhook ? `${f.name} / ${f.webhook}` : f.binding ? `${f.name} · binding ${f.binding}` : f.name;
                return (
                  <li key={i} data-testid="lockout-finding" data-request={f.request} data-effect={f.effect}>
                    <span className={`lockout-effect ${f.effect}`}>{f.effect}</span>
                    {f.static ? (
                      <span className="badge static-badge" data-testid="lockout-static" title="A static manifest: it cannot be deleted through the API">
                        static
                      </span>
                    ) : null}{' '}
                    <strong>{f.title}</strong>
                    <div>{f.impact}</div>
                    <div>
                      {f.kind}{' '}
                      {doc ? (
                        <button type="button" className="link" data-step-path={f.path} onClick={() => focusRef(doc, f.path)}>
                          {who}
                          {f.path ? ` · ${f.path}` : ''}
                        </button>
                      ) : (
                        <code>{who}</code>
                      )}
                      : {f.reason}
                    </div>
                    {f.message ? <div className="sim-message">{f.message}</div> : null}
                  </li>
                );
              })}
            </ul>
          ) : null}
          <details>
            <summary>Every request checked ({report.checked.length})</summary>
            <table className="lockout-checked">
              <thead>
                <tr>
                  <th scope="col">Request</th>
                  <th scope="col">With the webhooks down</th>
                </tr>
              </thead>
              <tbody>
                {report.checked.map((c) => (
                  <tr key={c.request}>
                    <td>{c.title}</td>
                    <td>
                      {c.allowed ? (c.stalled ? 'goes through after a timeout' : 'goes through') : 'rejected'}
                      {c.note ? <div className="sim-muted">{c.note}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}
