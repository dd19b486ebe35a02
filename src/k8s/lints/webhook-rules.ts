/**
 * Lint rules about one webhook of a Validating/MutatingWebhookConfiguration. They run per
 * webhook (results are reused for an unchanged webhook) and see the defaulted webhook;
 * their fixes edit the same path of the object as written.
 * Ideas and sources: the Kubernetes documentation on admission webhook good practices.
 */
import type { FieldPath } from '../../base/path';
import { dropRule, excludeNamespaces, failOpen, narrowResources, setField } from '../fixes/edits';
import { criticalReached, lockoutFixes } from './control-plane';
import { skipsSystemUsers } from './system-guards';
import type { Fix } from '../fixes/types';
import { covers, isEmptySelector, isObj, objs, ruleCovers, selectorExcludesNamespace, str, strs, type Obj } from './helpers';
import { cheapCelRisks, unguardedReads } from './cel-heuristics';
import type { Finding } from './rule-types';

/** Rules about one webhook of a configuration. */
export interface WebhookLintRule {
  id: string;
  name: string;
  severity: 'warning' | 'info';
  kinds: readonly string[];
  webhook(w: Obj, p: FieldPath, ctx: WebhookContext): Finding[];
}

/** What a webhook rule may know of the configuration around the webhook. */
export interface WebhookContext {
  /** A CA injector (cert-manager, OpenShift) fills caBundle. */
  caInjected: boolean;
}

const WEBHOOK_KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];
const rulesOf = (w: Obj) => objs(w.rules);

/** Resources whose loss stops a cluster when a fail-closed webhook is down. */
const CRITICAL: readonly [string, string][] = [
  ['', 'pods'],
  ['', 'nodes'],
  ['', 'namespaces'],
  ['', 'events'],
  ['coordination.k8s.io', 'leases'],
];

/** What a webhook's pods are made from (W02): the requests that bring them back. */
const OWN_WORKLOAD: readonly [string, string][] = [
  ['', 'pods'],
  ['apps', 'deployments'],
  ['apps', 'replicasets'],
];

/** admissionregistration/v1's timeoutSeconds default. */
const DEFAULT_TIMEOUT_SECONDS = 10;

const andList = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

const coversNamespaced = (rules: Obj[]) => rules.some((r) => str(r.scope) !== 'Cluster');
export const broad = (r: Obj) => strs(r.resources).some((x) => x === '*' || x === '*/*') || strs(r.apiGroups).includes('*');
const one = (cond: boolean, f: () => Finding): Finding[] => (cond ? [f()] : []);
const serviceNamespace = (w: Obj) => (isObj(w.clientConfig) && isObj(w.clientConfig.service) ? str(w.clientConfig.service.namespace) : '');

/** The namespaces to exclude for W01/W02: kube-system and the webhook's own. */
function exclusionFix(w: Obj, p: FieldPath): Fix {
  const ns = serviceNamespace(w);
  return excludeNamespaces(String(p.child('namespaceSelector')), ns && ns !== 'kube-system' ? ['kube-system', ns] : ['kube-system']);
}

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

export const WEBHOOK_RULES: readonly WebhookLintRule[] = [
  {
    id: 'W01',
    name: 'no-kube-system-exclusion',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(rulesOf(w).length > 0 && coversNamespaced(rulesOf(w)) && !selectorExcludesNamespace(w.namespaceSelector, 'kube-system'), () => ({
        field: String(p.child('namespaceSelector')),
        message: 'requests in kube-system are sent to this webhook',
        hint: 'Exclude system namespaces, e.g. matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]: a webhook that rejects or blocks control-plane requests can take the cluster down.',
        fixes: [exclusionFix(w, p)],
      })),
  },
  {
    id: 'W02',
    name: 'self-deadlock',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      const ns = serviceNamespace(w);
      if (!ns || str(w.failurePolicy) !== 'Fail') return [];
      const hits = OWN_WORKLOAD.filter(([g, res]) => rulesOf(w).some((r) => ruleCovers(r, g, res))).map(([, res]) => res);
      return one(hits.length > 0 && !selectorExcludesNamespace(w.namespaceSelector, ns), () => ({
        field: String(p.child('namespaceSelector')),
        message: `the webhook's own namespace "${ns}" is not excluded, and it fails closed on ${andList(hits)}`,
        hint: `If the webhook's pods go down, they cannot be re-created: the apiserver would need the webhook to admit them. Exclude "${ns}" in namespaceSelector.`,
        fixes: [exclusionFix(w, p)],
      }));
    },
  },
  {
    id: 'W03',
    name: 'fail-closed-broad',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      if (str(w.failurePolicy) !== 'Fail') return [];
      const hit = rulesOf(w).find((r) => broad(r) || CRITICAL.some(([g, res]) => ruleCovers(r, g, res)));
      // Quiet when control-plane users and nodes skip the webhook, unless a critical request
      // (the Lockout report's) still reaches it: then it is a lockout whatever the guard.
      const reached = criticalReached(w).map((c) => c.breaks);
      if (reached.length === 0 && (!hit || skipsSystemUsers(w))) return [];
      const what = !hit
        ? 'requests the control plane depends on'
        : broad(hit)
          ? 'wildcard resources'
          : andList(CRITICAL.filter(([g, res]) => rulesOf(w).some((r) => ruleCovers(r, g, res))).map(([, res]) => res));
      // Each fix is offered when it leaves no critical request reaching the webhook (the finding goes).
      const guardFixes = lockoutFixes(w, p);
      return [
        {
          field: String(p.child('failurePolicy')),
          message: `failurePolicy is Fail (also the default when unset) on ${what}: while the webhook is down, these requests are rejected`,
          hint: reached.length
            ? `This is how clusters get locked out (Lockout in Simulate lists them): while it is down, ${andList(reached)}. Narrow the rules, exclude system namespaces, let control-plane users and nodes skip the webhook (matchConditions), or use failurePolicy: Ignore and enforce the final state elsewhere.`
            : "Not a lockout: none of the control plane's critical requests (Lockout in Simulate) reaches this webhook. But while it is down, users' and controllers' requests it matches are rejected (a Deployment cannot create its pods). Let control-plane users and nodes skip the webhook (matchConditions), or use failurePolicy: Ignore and enforce the final state elsewhere.",
          fixes: [...guardFixes, failOpen(String(p.child('failurePolicy')))],
        },
      ];
    },
  },
  {
    id: 'W04',
    name: 'mutating-fail-closed',
    severity: 'info',
    kinds: ['MutatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(str(w.failurePolicy) === 'Fail', () => ({
        field: String(p.child('failurePolicy')),
        message: 'a mutating webhook fails closed',
        hint: 'Mutators usually fail open (Ignore) and a validating webhook or policy enforces the final state.',
        fixes: [failOpen(String(p.child('failurePolicy')))],
      })),
  },
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
          fixes: [narrowResources(String(p.child('rules').index(j)), r)],
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
    id: 'W10',
    name: 'timeout-long',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      // Above the default only: 10 s is what every webhook gets unless it says otherwise, and Lockout
      // reports it where it hurts (critical requests held by a fail-open webhook).
      one(typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > DEFAULT_TIMEOUT_SECONDS, () => ({
        field: String(p.child('timeoutSeconds')),
        message: `the apiserver waits up to ${String(w.timeoutSeconds)}s for this webhook on every matching request`,
        hint: 'Webhooks should answer in milliseconds; a short timeout (2–5 s) bounds the damage when one hangs. Mutating webhooks run in series, so their timeouts add up.',
        fixes: [setField('Set timeoutSeconds: 5', String(p.child('timeoutSeconds')), 5)],
      })),
  },
  {
    id: 'W11',
    name: 'side-effects-dryrun',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(str(w.sideEffects) === 'NoneOnDryRun', () => ({
        field: String(p.child('sideEffects')),
        message: 'NoneOnDryRun: the webhook promises to skip its side effects when request.dryRun is true',
        hint: 'Check that the server reads request.dryRun; otherwise kubectl diff and --dry-run=server trigger the side effects.',
      })),
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
    id: 'W17',
    name: 'reinvocation-idempotency',
    severity: 'info',
    kinds: ['MutatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(str(w.reinvocationPolicy) === 'IfNeeded', () => ({
        field: String(p.child('reinvocationPolicy')),
        message: 'the webhook may be called again after later mutations',
        hint: 'Its changes must be idempotent (check before adding a container or a label), or it duplicates what it adds. Do not rely on the order of mutating webhooks.',
      })),
  },
  {
    id: 'W18',
    name: 'url-in-cluster',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      const url = isObj(w.clientConfig) ? str(w.clientConfig.url) : '';
      const host = /^[a-z]+:\/\/([^/:?#]*)/i.exec(url)?.[1]?.toLowerCase() ?? '';
      if (host === 'localhost' || host.startsWith('127.') || host === '[::1]')
        return [
          {
            field: String(p.child('clientConfig', 'url')),
            message: "the URL points at the apiserver's own host",
            hint: 'localhost webhooks are non-portable and fail when the apiserver moves; prefer service.',
          },
        ];
      if (host.endsWith('.svc') || host.endsWith('.cluster.local'))
        return [
          {
            field: String(p.child('clientConfig', 'url')),
            message: 'the URL uses in-cluster DNS, which the apiserver usually cannot resolve',
            hint: 'Use clientConfig.service for in-cluster webhooks.',
          },
        ];
      return [];
    },
  },
  {
    id: 'W19',
    name: 'cabundle-missing',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p, ctx) =>
      one(!ctx.caInjected && isObj(w.clientConfig) && isObj(w.clientConfig.service) && !str(w.clientConfig.caBundle), () => ({
        field: String(p.child('clientConfig', 'caBundle')),
        message: "no caBundle: the apiserver verifies the service's certificate against its system roots",
        hint: 'In-cluster webhook certificates are rarely signed by public roots. Set caBundle, or let cert-manager inject it (cert-manager.io/inject-ca-from annotation).',
      })),
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
    id: 'W21',
    name: 'matchcondition-error-prone',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      str(w.failurePolicy) !== 'Fail'
        ? []
        : objs(w.matchConditions).flatMap((c, j) =>
            one(unguardedReads(str(c.expression)).length > 0, () => ({
              field: String(p.child('matchConditions').index(j).child('expression')),
              message: `reads ${unguardedReads(str(c.expression))[0]} without has() or ?.: an object without it makes the condition fail, and with failurePolicy Fail the request is rejected`,
              hint: 'Guard optional fields: has(object.metadata.labels) && …, or object.?metadata.?labels[?"team"].orValue("").',
            })),
          ),
  },
  {
    id: 'W22',
    name: 'matchcondition-cost',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      objs(w.matchConditions).flatMap((c, j) => {
        const risk = cheapCelRisks(str(c.expression));
        return one(!!risk, () => ({
          field: String(p.child('matchConditions').index(j).child('expression')),
          message: `${risk}: matchConditions of one webhook share a cost budget, and going over it counts as an error`,
          hint: 'Keep match conditions cheap (an authorizer check costs 350,000 of the 1,000,000 per call); move heavy checks into the webhook.',
        }));
      }),
  },
  {
    id: 'W24',
    name: 'admissionreview-v1beta1-only',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(strs(w.admissionReviewVersions).length > 0 && !strs(w.admissionReviewVersions).includes('v1'), () => ({
        field: String(p.child('admissionReviewVersions')),
        message: 'the webhook does not accept AdmissionReview v1',
        hint: 'v1 is the current version; list it first.',
        fixes: [
          setField(
            'Accept AdmissionReview v1 first',
            String(p.child('admissionReviewVersions')),
            ['v1', ...strs(w.admissionReviewVersions)],
            'The server must understand v1 requests.',
          ),
        ],
      })),
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
