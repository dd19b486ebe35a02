/**
 * Lint rules about one webhook of a Validating/MutatingWebhookConfiguration. They run per
 * webhook (results are reused for an unchanged webhook) and see the defaulted webhook; their
 * fixes edit the same path of the object as written. Here: failing closed and lockouts; what the
 * webhook intercepts: ./webhook-match-rules.ts; how it is called: ./webhook-client-rules.ts.
 * Ideas and sources: the Kubernetes documentation on admission webhook good practices.
 */
import type { FieldPath } from '../../base/path';
import { excludeNamespaces, failOpen } from '../fixes/edits';
import { criticalReached, lockoutFixes } from './control-plane';
import { skipsSystemUsers } from './system-guards';
import type { Fix } from '../fixes/types';
import { broad, isObj, objs, one, ruleCovers, rulesOf, selectorExcludesNamespace, str, WEBHOOK_KINDS, type Obj } from './helpers';
import { cheapCelRisks, unguardedReads } from './cel-heuristics';
import type { WebhookLintRule } from './rule-types';
import { WEBHOOK_CLIENT_RULES } from './webhook-client-rules';
import { WEBHOOK_MATCH_RULES } from './webhook-match-rules';

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

const andList = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

const coversNamespaced = (rules: Obj[]) => rules.some((r) => str(r.scope) !== 'Cluster');
const serviceNamespace = (w: Obj) => (isObj(w.clientConfig) && isObj(w.clientConfig.service) ? str(w.clientConfig.service.namespace) : '');

/** The namespaces to exclude for W01/W02: kube-system and the webhook's own. */
function exclusionFix(w: Obj, p: FieldPath): Fix {
  const ns = serviceNamespace(w);
  return excludeNamespaces(String(p.child('namespaceSelector')), ns && ns !== 'kube-system' ? ['kube-system', ns] : ['kube-system']);
}

const FAILURE_RULES: readonly WebhookLintRule[] = [
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
];

/** Every webhook rule, in id order (the order of their findings). */
export const WEBHOOK_RULES: readonly WebhookLintRule[] = [...FAILURE_RULES, ...WEBHOOK_MATCH_RULES, ...WEBHOOK_CLIENT_RULES].sort((x, y) =>
  x.id.localeCompare(y.id),
);
