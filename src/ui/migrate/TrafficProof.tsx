/**
 * The Migration view's real-traffic proof: an audit log (and a snapshot) replayed with the
 * converted objects in place of the cluster's chain. Each rule's row says how many events agree
 * with what the cluster answered (what Kyverno or Gatekeeper decided) and how many differ; the
 * differing events are listed here, those of one rule when its row's link was followed.
 */
import { useRef } from 'react';
import { ruleKey } from '../../impact';
import type { SourceRule } from '../../migrate';
import { replayTraffic, showRuleDifferences, useTraffic } from '../../store/migrate-traffic';

/** A rule's Traffic cell: agreeing and differing events of the last replay (empty before one). */
export function TrafficCell({ source }: { source: SourceRule }) {
  const proof = useTraffic((s) => s.proof);
  const key = ruleKey(source);
  const r = proof?.rules.find((x) => x.key === key);
  if (!r) return null;
  return (
    <span data-testid="traffic-cell" className="traffic-cell">
      {`${r.agreeing} of ${r.replayed} agree`}
      {r.differing.length ? (
        <>
          {', '}
          <button
            type="button"
            className="link traffic-differ"
            data-testid="traffic-differ"
            onClick={() => {
              showRuleDifferences(key);
              requestAnimationFrame(() => document.getElementById('traffic-differences')?.scrollIntoView({ block: 'nearest' }));
            }}
          >{`${r.differing.length} differ`}</button>
        </>
      ) : (
        ', none differ'
      )}
    </span>
  );
}

export default function TrafficProof() {
  const { running, proof, error, audit, rule } = useTraffic((s) => s);
  const auditInput = useRef<HTMLInputElement>(null);
  const snapshotInput = useRef<HTMLInputElement>(null);
  const run = () => {
    const log = auditInput.current?.files?.[0];
    if (log) void replayTraffic(log, snapshotInput.current?.files?.[0]);
  };
  const shown = proof?.differences.filter((d) => !rule || d.sourceRules.includes(rule) || d.nativeRules.includes(rule)) ?? [];
  return (
    <section className="migration-traffic" aria-labelledby="traffic-title" data-testid="migration-traffic">
      <h3 id="traffic-title">Real traffic</h3>
      <p className="help">
        Replay the cluster's audit log with the converted objects in place of its admission chain (the source's webhooks removed): every request where they
        decide otherwise than the cluster answered (what Kyverno or Gatekeeper decided) is listed. A snapshot (kubectl get -o json) gives the Namespaces and the
        objects the log does not hold.
      </p>
      <div className="migration-controls">
        <label>
          Audit log <input ref={auditInput} type="file" data-testid="traffic-audit" />
        </label>
        <label>
          Snapshot (optional) <input ref={snapshotInput} type="file" data-testid="traffic-snapshot" />
        </label>
        <button type="button" data-testid="traffic-replay" disabled={running} onClick={run}>
          {running ? 'Replaying…' : 'Replay'}
        </button>
      </div>
      {error ? <p className="banner error" role="status">{`The replay failed: ${error}`}</p> : null}
      {proof ? (
        <p data-testid="traffic-summary" role="status">
          {`${audit}: ${proof.events} events replayed; ${proof.agreeing} decided as the cluster answered, ${proof.differences.length} otherwise.`}
        </p>
      ) : null}
      {proof?.differences.length ? (
        <div id="traffic-differences">
          <h4>
            {rule ? `Differing events of ${rule}` : 'Differing events'}{' '}
            {rule ? (
              <button type="button" className="link" onClick={() => showRuleDifferences(undefined)}>
                show all
              </button>
            ) : null}
          </h4>
          <ul data-testid="traffic-differences">
            {shown.map((d) => (
              <li key={d.auditID} className="mono">
                {`line ${d.line}: ${d.request.operation} ${d.request.resource} ${d.request.namespace ? `${d.request.namespace}/` : ''}${d.request.name ?? ''} by ${d.request.username}: `}
                {`the cluster ${d.live.code < 400 ? 'allowed' : `denied${d.sourceRules.length ? ` (${d.sourceRules.join(', ')})` : ''}`}, `}
                {`natively ${d.native.allowed ? 'allowed' : `denied by ${d.native.deniedBy?.name ?? '?'}`}`}
                {d.undetermined ? ' (undetermined: it reads what the replay does not know)' : ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
