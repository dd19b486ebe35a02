/**
 * Which of the control plane's critical requests can reach a fail-closed webhook (W03), in the
 * terms of the Lockout report: both read the one list, src/k8s/critical-requests.ts (the Lockout
 * report builds its simulated requests from its rows). Here a request reaches the webhook when a
 * rule matches it (operation, group, resource/subresource, scope), namespaceSelector does not
 * exclude its namespace (for a Namespace, the namespace itself; nothing shields cluster-scoped
 * objects) and no matchCondition keeps its sender away (system-guards.ts); the agreement test
 * src/store/lockout-lints.test.ts runs this reading and the simulator on the same configurations.
 */
import type { FieldPath } from '../../base/path';
import { CRITICAL_REQUEST_SHAPES, type CriticalRequestShape } from '../critical-requests';
import { excludeNamespaces, skipSystemUsers } from '../fixes/edits';
import type { Fix } from '../fixes/types';
import { covers, objs, selectorExcludesNamespace, str, strs, type Obj } from './helpers';
import { skippedSystemClasses, skipsSystemUsers, type SystemClass } from './system-guards';

// Does a rule's resources list match `resource` or `resource/sub` as the apiserver does?
// '*' is every resource but no subresource; '*/*' is both; 'pods/*' and '*/status' are subresources.
function resourceMatches(resources: readonly string[], target: string): boolean {
  const [res, sub] = target.split('/');
  if (sub === undefined) return resources.includes('*') || resources.includes('*/*') || resources.includes(res!);
  return resources.some((r) => r === '*/*' || r === target || r === `${res}/*` || r === `*/${sub}`);
}

const ruleMatches = (rule: Obj, c: CriticalRequestShape): boolean => {
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
export function criticalReached(w: Obj, skipped: ReadonlySet<SystemClass> = skippedSystemClasses(w)): CriticalRequestShape[] {
  const rules = objs(w.rules);
  return CRITICAL_REQUEST_SHAPES.filter(
    (c) =>
      !skipped.has(c.sender) && (c.namespace === '' || !selectorExcludesNamespace(w.namespaceSelector, c.namespace)) && rules.some((r) => ruleMatches(r, c)),
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
