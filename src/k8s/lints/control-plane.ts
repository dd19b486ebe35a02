/**
 * Which of the control plane's critical requests can reach a fail-closed webhook (W03), in the
 * terms of the Lockout report: the table mirrors src/admission/critical-requests.ts (which sits
 * above src/k8s in the core's order, so it cannot be read from here); the agreement test
 * src/store/lockout-lints.test.ts runs both on the same configurations and fails when they part.
 * A request reaches the webhook when a rule matches it (operation, group, resource/subresource,
 * scope), namespaceSelector does not exclude its namespace (for a Namespace, the namespace itself;
 * nothing shields cluster-scoped objects) and no matchCondition keeps its sender away
 * (system-guards.ts).
 */
import type { FieldPath } from '../../base/path';
import { excludeNamespaces, skipSystemUsers } from '../fixes/edits';
import type { Fix } from '../fixes/types';
import { covers, objs, selectorExcludesNamespace, str, strs, type Obj } from './helpers';
import { skippedSystemClasses, skipsSystemUsers, type SystemClass } from './system-guards';

export interface CriticalReach {
  /** The request's id in the Lockout report. */
  id: string;
  /** What breaks, as the hint says it. */
  breaks: string;
  operation: string;
  group: string;
  /** resource or resource/subresource */
  resource: string;
  /** '' for cluster-scoped objects */
  namespace: string;
  sender: SystemClass;
}

/** The Lockout report's critical requests (src/admission/critical-requests.ts), as a rule sees them. */
export const CRITICAL_REACH: readonly CriticalReach[] = [
  { id: 'kubelet-lease', breaks: 'kubelets cannot renew their leases and nodes turn NotReady', operation: 'UPDATE', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', sender: 'nodes' },
  { id: 'kubelet-node-status', breaks: 'kubelets cannot report node status', operation: 'UPDATE', group: '', resource: 'nodes/status', namespace: '', sender: 'nodes' },
  { id: 'kube-system-pod-create', breaks: 'system pods in kube-system cannot be re-created', operation: 'CREATE', group: '', resource: 'pods', namespace: 'kube-system', sender: 'serviceaccounts' },
  { id: 'leader-election-lease', breaks: 'the controller manager cannot renew its leader lease', operation: 'UPDATE', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system', sender: 'control-plane' },
  { id: 'namespace-delete', breaks: 'the namespace controller cannot delete namespaces', operation: 'DELETE', group: '', resource: 'namespaces', namespace: 'team-a', sender: 'serviceaccounts' },
  { id: 'namespace-finalize', breaks: 'namespaces cannot finish terminating', operation: 'UPDATE', group: '', resource: 'namespaces/finalize', namespace: 'team-a', sender: 'serviceaccounts' },
  { id: 'serviceaccount-token', breaks: 'kubelets cannot get service account tokens', operation: 'CREATE', group: '', resource: 'serviceaccounts/token', namespace: 'kube-system', sender: 'nodes' },
  { id: 'csr-approval', breaks: 'kubelet certificates cannot be approved', operation: 'UPDATE', group: 'certificates.k8s.io', resource: 'certificatesigningrequests/approval', namespace: '', sender: 'serviceaccounts' },
  { id: 'endpointslice-update', breaks: 'cluster DNS endpoints cannot be updated', operation: 'UPDATE', group: 'discovery.k8s.io', resource: 'endpointslices', namespace: 'kube-system', sender: 'serviceaccounts' },
];

// Does a rule's resources list match `resource` or `resource/sub` as the apiserver does?
// '*' is every resource but no subresource; '*/*' is both; 'pods/*' and '*/status' are subresources.
function resourceMatches(resources: readonly string[], target: string): boolean {
  const [res, sub] = target.split('/');
  if (sub === undefined) return resources.includes('*') || resources.includes('*/*') || resources.includes(res!);
  return resources.some((r) => r === '*/*' || r === target || r === `${res}/*` || r === `*/${sub}`);
}

const ruleMatches = (rule: Obj, c: CriticalReach): boolean => {
  const scope = str(rule.scope) || '*';
  const namespaced = c.namespace !== '' && !c.resource.startsWith('namespaces');
  return (
    covers(strs(rule.operations), c.operation) &&
    covers(strs(rule.apiGroups), c.group) &&
    resourceMatches(strs(rule.resources), c.resource) &&
    (scope === '*' || (scope === 'Namespaced') === namespaced)
  );
};

/**
 * What breaks while the webhook is down: the critical requests that reach it, given the senders
 * its matchConditions keep away (`skipped`, by default what they keep away now).
 */
export function criticalReached(w: Obj, skipped: ReadonlySet<SystemClass> = skippedSystemClasses(w)): CriticalReach[] {
  const rules = objs(w.rules);
  return CRITICAL_REACH.filter(
    (c) => !skipped.has(c.sender) && (c.namespace === '' || !selectorExcludesNamespace(w.namespaceSelector, c.namespace)) && rules.some((r) => ruleMatches(r, c)),
  );
}

const SYSTEM_NAMESPACES = ['kube-system', 'kube-node-lease'];

/**
 * W03's fixes besides failing open: the guard for control-plane users and nodes when that is
 * enough; else, when their requests still reach it in kube-system or kube-node-lease, the guard
 * and the exclusion of those namespaces together (or the exclusion alone beside a guard already
 * there). None when controllers' requests on cluster-scoped objects (namespaces, CSRs) still reach it.
 */
export function lockoutFixes(w: Obj, p: FieldPath): Fix[] {
  const guardedNow = skipsSystemUsers(w);
  const skipped = new Set([...skippedSystemClasses(w), 'nodes', 'control-plane'] as const);
  if (!guardedNow && criticalReached(w, skipped).length === 0) return [skipSystemUsers(String(p))];
  const selectorPath = String(p.child('namespaceSelector'));
  const excluded = excludeNamespaces('namespaceSelector', SYSTEM_NAMESPACES).apply(w).object as Obj;
  if (criticalReached(excluded, skipped).length > 0) return [];
  const exclude = excludeNamespaces(selectorPath, SYSTEM_NAMESPACES);
  if (guardedNow) return [exclude];
  const guard = skipSystemUsers(String(p));
  return [
    {
      title: `${guard.title.replace(/ \(matchCondition\)$/, '')}, and exclude ${SYSTEM_NAMESPACES.join(' and ')}`,
      note: `${guard.note} ${exclude.note}`,
      apply: (object, input) => exclude.apply(guard.apply(object, input).object, input),
    },
  ];
}
