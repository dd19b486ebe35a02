/**
 * What a target platform adds to the namespace lints: its critical namespaces (src/base/platforms.ts,
 * openshift-* and default on OpenShift) beside kube-system (W01). The same reading as the Lockout
 * report's Pod create in each: a fail-closed webhook whose rules match it, whose namespaceSelector
 * does not exclude the example namespace and whose matchConditions let service accounts through.
 */
import { fieldPath } from '../../base/path';
import { covers, objs, rulesOf, selectorExcludesNamespace, str, strs, WEBHOOK_KINDS } from './helpers';
import type { LintRule } from './rule-types';
import { skippedSystemClasses } from './system-guards';

export const PLATFORM_RULES: readonly LintRule[] = [
  {
    id: 'W27',
    name: 'platform-namespace-unexcluded',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    check: ({ object, criticalNamespaces = [] }) =>
      criticalNamespaces.length === 0
        ? []
        : objs(object.webhooks).flatMap((w, i) => {
            if (str(w.failurePolicy) !== 'Fail' || skippedSystemClasses(w).has('serviceaccounts')) return [];
            const podCreate = rulesOf(w).some(
              (r) =>
                str(r.scope) !== 'Cluster' &&
                covers(strs(r.operations), 'CREATE') &&
                covers(strs(r.apiGroups), '') &&
                strs(r.resources).some((x) => x === '*' || x === '*/*' || x === 'pods'),
            );
            if (!podCreate) return [];
            const reached = criticalNamespaces.filter((c) => !selectorExcludesNamespace(w.namespaceSelector, c.example));
            if (reached.length === 0) return [];
            const names = reached.map((c) => `${c.pattern} (e.g. ${c.example})`).join(' and ');
            return [
              {
                field: String(fieldPath('webhooks').index(i).child('namespaceSelector')),
                message: `pods created in ${names} are sent to this webhook, which fails closed`,
                hint: `On this platform those namespaces run the cluster's own operators: ${reached.map((c) => c.impact).join('; ')} while the webhook is down. Exclude them in namespaceSelector (a label they carry, or kubernetes.io/metadata.name NotIn the ones the webhook does not need).`,
              },
            ];
          }),
  },
];
