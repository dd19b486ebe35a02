/**
 * Webhook lint rules about what a webhook intercepts: its rules (resources, operations, versions,
 * CONNECT), its selectors and the requests they let through. The rest: ./webhook-rules.ts.
 */
import type { FieldPath } from '../../base/path';
import { dropRule, failOpen, narrowResources, setField } from '../fixes/edits';
import type { Fix } from '../fixes/types';
import { broad, covers, isEmptySelector, objs, one, ruleCovers, rulesOf, str, strs, WEBHOOK_KINDS, type Obj } from './helpers';
import type { WebhookLintRule } from './rule-types';

/** Connect subresources: CONNECT requests exist only for these. */
const CONNECT_SUBRESOURCES = ['pods/exec', 'pods/attach', 'pods/portforward', 'pods/proxy', 'services/proxy', 'nodes/proxy'];
const coversSubresource = (resources: readonly string[], sub: string) => {
  const [res, s] = sub.split('/');
  return resources.some((r) => r === '*/*' || r === sub || r === `${res}/*` || r === `*/${s}`);
};
const coversConnect = (r: Obj) => CONNECT_SUBRESOURCES.some((s) => coversSubresource(strs(r.resources), s));

/** A rule naming every group and version: no other group/version of its resources exists to bypass it, so Exact = Equivalent. */
const anyGroupVersion = (r: Obj) => strs(r.apiGroups).includes('*') && strs(r.apiVersions).includes('*');

/** Kubernetes' own API groups (custom resources keep their own version policies). */
const builtInGroup = (g: string) => g === '' || g.endsWith('.k8s.io') || ['apps', 'batch', 'extensions', 'policy', 'autoscaling'].includes(g);

/** Versions that are not stable: alpha/beta. */
const unstable = (v: string) => /^v\d+(alpha|beta)\d*$/.test(v);

const withoutOps = (ops: readonly string[], drop: string, all: readonly string[]) =>
  ops.includes('*') ? all.filter((o) => o !== drop) : ops.filter((o) => o !== drop);

/**
 * W26's way to stop matching CONNECT on rule `j`: drop CONNECT from its operations; when CONNECT
 * is its only operation (an empty list is invalid), drop the rule if others remain. When it is
 * the webhook's only rule the webhook exists for exec sessions: no rule edit, failing open is the fix.
 */
function stopConnect(w: Obj, p: FieldPath, j: number, ops: readonly string[]): Fix[] {
  const path = String(p.child('rules').index(j).child('operations'));
  const rest = withoutOps(ops, 'CONNECT', ['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
  if (rest.length > 0) return [setField('Stop matching CONNECT', path, rest)];
  if (rulesOf(w).length > 1) return [dropRule(String(p.child('rules')), j, 'Stop matching CONNECT (drop this rule: CONNECT is its only operation)')];
  return [];
}

/** Cluster-scoped resources a webhook rule may name. */
const CLUSTER_RESOURCES: readonly [string, string][] = [
  ['', 'nodes'],
  ['', 'persistentvolumes'],
  ['rbac.authorization.k8s.io', 'clusterroles'],
  ['rbac.authorization.k8s.io', 'clusterrolebindings'],
  ['storage.k8s.io', 'storageclasses'],
  ['apiextensions.k8s.io', 'customresourcedefinitions'],
  ['scheduling.k8s.io', 'priorityclasses'],
  ['certificates.k8s.io', 'certificatesigningrequests'],
];

export const MIRROR_POD_EXPRESSION = "object == null || !('kubernetes.io/config.mirror' in object.?metadata.?annotations.orValue({}))";

function skipMirrorPods(path: string, existing: Obj[]): Fix {
  const taken = new Set(existing.map((c) => str(c.name)));
  let name = 'exclude-mirror-pods';
  for (let n = 2; taken.has(name); n++) name = `exclude-mirror-pods-${n}`;
  return setField('Skip mirror pods (matchCondition)', path, [...existing, { name, expression: MIRROR_POD_EXPRESSION }]);
}

export const WEBHOOK_MATCH_RULES: readonly WebhookLintRule[] = [
  {
    id: 'W05',
    name: 'wildcard-resources',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      rulesOf(w).flatMap((r, j) =>
        one(broad(r), () => ({
          field: String(p.child('rules').index(j).child('resources')),
          message: 'the rule intercepts every resource (and, with */*, every subresource such as pods/exec)',
          hint: 'Every matching request waits for the webhook: list the resources it needs.',
          fixes: [narrowResources(String(p.child('rules').index(j)), r)].filter((f) => f !== undefined),
        })),
      ),
  },
  {
    id: 'W06',
    name: 'operations-wildcard',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      rulesOf(w).flatMap((r, j) => {
        const ops = strs(r.operations);
        const path = String(p.child('rules').index(j).child('operations'));
        if (ops.includes('*'))
          return [
            {
              field: path,
              message: "operations: ['*'] also sends DELETE (object is null) and CONNECT (exec, attach, port-forward) requests",
              hint: 'Name the operations the webhook handles; each extra operation is latency on every such request.',
              fixes: [setField('Set operations: [CREATE, UPDATE]', path, ['CREATE', 'UPDATE'])],
            },
          ];
        if (ops.includes('CONNECT') && !coversConnect(r)) {
          // Without CONNECT an only-CONNECT rule would have `operations: []`, which the apiserver rejects:
          // the rule matches nothing, so dropping it keeps what the webhook sees.
          const fix =
            ops.length > 1
              ? setField(
                  'Remove CONNECT',
                  path,
                  ops.filter((o) => o !== 'CONNECT'),
                )
              : dropRule(
                  String(p.child('rules')),
                  j,
                  'Drop this rule (it matches no request)',
                  rulesOf(w).length === 1
                    ? 'It is the only rule: the webhook is then called for nothing, as now. Delete the webhook if it has no other purpose.'
                    : undefined,
                );
          return [
            {
              field: path,
              message: 'CONNECT never happens for these resources (only for pods/exec, pods/attach, pods/portforward and */proxy)',
              hint: 'The entry does nothing but suggests the webhook sees exec sessions; remove it.',
              fixes: [fix],
            },
          ];
        }
        return [];
      }),
  },
  {
    id: 'W07',
    name: 'node-leases',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(
        rulesOf(w).some((r) => ruleCovers(r, 'coordination.k8s.io', 'leases') && !broad(r)),
        () => ({
          field: String(p.child('rules')),
          message: 'the webhook intercepts node leases (coordination.k8s.io/leases)',
          hint: 'Kubelets renew leases every few seconds; delaying or changing them can mark nodes NotReady and break upgrades.',
        }),
      ),
  },
  {
    id: 'W08',
    name: 'virtual-resources',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(
        rulesOf(w).some((r) => strs(r.apiGroups).some((g) => g === 'authentication.k8s.io' || g === 'authorization.k8s.io')),
        () => ({
          field: String(p.child('rules')),
          message: 'the webhook intercepts TokenReview/SubjectAccessReview-style resources',
          hint: 'These are read-only reviews the apiserver answers itself; intercepting them can break authentication and authorization.',
        }),
      ),
  },
  {
    id: 'W09',
    name: 'admission-objects-unreachable',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(
        rulesOf(w).some((r) => strs(r.apiGroups).includes('admissionregistration.k8s.io') && strs(r.resources).some((x) => !x.startsWith('*'))),
        () => ({
          field: String(p.child('rules')),
          message: 'webhooks are never called for admission configuration objects (webhook configurations, policies, bindings)',
          hint: 'The apiserver exempts them so a cluster can always be recovered; this rule has no effect.',
        }),
      ),
  },
  {
    id: 'W12',
    name: 'matchpolicy-exact',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(str(w.matchPolicy) === 'Exact' && !rulesOf(w).every(anyGroupVersion), () => ({
        field: String(p.child('matchPolicy')),
        message: 'requests through other API versions of the same resources bypass this webhook',
        hint: 'Equivalent (the default) also sends requests made through other group/versions, converted to one the rules name.',
        fixes: [setField('Set matchPolicy: Equivalent', String(p.child('matchPolicy')), 'Equivalent')],
      })),
  },
  {
    id: 'W13',
    name: 'unstable-or-removed-version',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      rulesOf(w).flatMap((r, j) => {
        const versions = strs(r.apiVersions);
        return one(strs(r.apiGroups).some(builtInGroup) && versions.length > 0 && versions.every(unstable), () => ({
          field: String(p.child('rules').index(j).child('apiVersions')),
          message: `the rule names only pre-release versions of Kubernetes APIs (${versions.join(', ')})`,
          hint: 'When a beta version is removed, requests through the stable version stop matching. Name the stable version (matchPolicy: Equivalent then covers the others).',
        }));
      }),
  },
  {
    id: 'W14',
    name: 'objectselector-on-enforcement',
    severity: 'info',
    kinds: ['ValidatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(str(w.failurePolicy) === 'Fail' && !isEmptySelector(w.objectSelector), () => ({
        field: String(p.child('objectSelector')),
        message: "an enforcing webhook can be skipped by whoever sets the object's labels",
        hint: "Use objectSelector for opt-in webhooks only; users control their objects' labels.",
      })),
  },
  {
    id: 'W15',
    name: 'no-self-trigger-guard',
    severity: 'info',
    kinds: ['MutatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(
        rulesOf(w).some((r) => ruleCovers(r, '', 'events') || ruleCovers(r, 'events.k8s.io', 'events')) &&
          isEmptySelector(w.objectSelector) &&
          objs(w.matchConditions).length === 0,
        () => ({
          field: String(p.child('rules')),
          message: 'the mutating webhook intercepts Events, which webhooks and controllers write themselves',
          hint: 'An Event written while handling a request comes back to the webhook: exclude your own objects with an objectSelector label or a matchCondition.',
        }),
      ),
  },
  {
    id: 'W16',
    name: 'mirror-pods',
    severity: 'info',
    kinds: ['MutatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(
        rulesOf(w).some((r) => ruleCovers(r, '', 'pods') && (covers(strs(r.operations), 'CREATE') || covers(strs(r.operations), 'UPDATE'))) &&
          !objs(w.matchConditions).some((c) => str(c.expression).includes('kubernetes.io/config.mirror')),
        () => ({
          field: String(p.child('matchConditions')),
          message: 'mirror pods (static pods shown by the kubelet) are not excluded',
          hint: 'The apiserver rejects changes to mirror pods, so mutating them fails. Skip pods with the kubernetes.io/config.mirror annotation.',
          fixes: [skipMirrorPods(String(p.child('matchConditions')), objs(w.matchConditions))],
        }),
      ),
  },
  {
    id: 'W20',
    name: 'namespaceselector-on-cluster-scoped',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      if (isEmptySelector(w.namespaceSelector)) return [];
      const cluster = rulesOf(w).filter((r) => str(r.scope) !== 'Namespaced' && CLUSTER_RESOURCES.some(([g, res]) => ruleCovers(r, g, res) && !broad(r)));
      return one(cluster.length > 0, () => ({
        field: String(p.child('namespaceSelector')),
        message: 'namespaceSelector has no effect on the cluster-scoped resources these rules name (nodes, persistentvolumes, cluster roles, …)',
        hint: 'Exclusions by namespace do not protect them: use matchConditions or objectSelector if some must be skipped.',
      }));
    },
  },
  {
    id: 'W26',
    name: 'connect-exec-fail-closed',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      str(w.failurePolicy) !== 'Fail'
        ? []
        : rulesOf(w).flatMap((r, j) => {
            const ops = strs(r.operations);
            const path = String(p.child('rules').index(j).child('operations'));
            return one(covers(ops, 'CONNECT') && coversSubresource(strs(r.resources), 'pods/exec'), () => ({
              field: path,
              message: 'CONNECT on pods/exec fails closed: while the webhook is down, nobody can kubectl exec (also not to debug the webhook)',
              hint: 'Leave CONNECT out unless the webhook audits exec sessions, or fail open for it.',
              fixes: [...stopConnect(w, p, j, ops), failOpen(String(p.child('failurePolicy')))],
            }));
          }),
  },
];
