/**
 * Workspace settings of the admission chain that a release may have: where static mutating
 * webhooks run among the API ones (`staticOrder`, from the release whose row has
 * chain.webhookStaticOrder) and the gates a workspace may turn on (base/releases.ts
 * WORKSPACE_GATES, offered where the release has them off by default).
 */
import { useId } from 'react';
import { optionalGates, releaseOf } from '../base/releases';
import { STATIC_ORDERS, type StaticOrder } from '../k8s/static-manifests';
import { useWorkspace, workspace } from '../store/workspace';

const ORDER_HELP: Record<StaticOrder, string> = {
  StaticFirst: 'static webhooks before every API webhook (the default)',
  StaticLast: 'static webhooks after every API webhook',
  ByName: 'static and API configurations together, by name',
};

export function ChainSettings() {
  const uid = useId();
  const release = useWorkspace((s) => s.kubernetesVersion);
  const order = useWorkspace((s) => s.staticOrder);
  const turnedOn = useWorkspace((s) => s.featureGates);
  const gates = optionalGates(release);
  const ordered = releaseOf(release).chain.webhookStaticOrder;
  if (!ordered && !gates.length) return null;
  return (
    <div className="chain-settings" data-testid="chain-settings">
      {ordered ? (
        <label
          htmlFor={`${uid}-order`}
          title={`The MutatingAdmissionWebhook plugin's staticOrder: ${STATIC_ORDERS.map((o) => `${o}: ${ORDER_HELP[o]}`).join('; ')}`}
        >
          Static mutating webhooks run{' '}
          <select
            id={`${uid}-order`}
            data-testid="static-order"
            value={order}
            onChange={(e) => workspace.getState().setStaticOrder(e.target.value as StaticOrder)}
          >
            {STATIC_ORDERS.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {gates.map((g) => (
        <label key={g} className="checkbox" title={`--feature-gates=${g}=true (off by default in Kubernetes ${release})`}>
          <input
            type="checkbox"
            data-testid={`gate-${g}`}
            checked={turnedOn.includes(g)}
            onChange={(e) => workspace.getState().setFeatureGate(g, e.target.checked)}
          />{' '}
          Gate {g}
        </label>
      ))}
    </div>
  );
}
