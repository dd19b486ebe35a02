/**
 * W03 (src/k8s/lints) and the Lockout report (src/admission) agree: for each configuration
 * below, the critical requests W03 says reach a fail-closed webhook are exactly those Lockout
 * finds rejected while it is down. Both read the one list (src/k8s/critical-requests.ts), but W03
 * decides "reaches" by reading rules, selectors and guards while Lockout runs the simulator: this
 * test keeps the two readings from parting (W03 once said "locked out" where Lockout found
 * nothing), and checks that each request is sent by the sender W03's guards assume.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CRITICAL_REQUESTS, lockoutReport } from '../admission';
import { evaluate, loadCel } from '../cel/index';
import { withDefaults } from '../k8s/defaults';
import { lint } from '../k8s/lints';
import { CRITICAL_REQUEST_SHAPES, type SystemClass } from '../k8s/critical-requests';
import { criticalReached } from '../k8s/lints/control-plane';

type O = Record<string, unknown>;
const exclude = (...values: string[]) => ({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values }] });
const rule = (operations: string[], apiGroups: string[], resources: string[], scope?: string) => ({
  operations,
  apiGroups,
  apiVersions: ['*'],
  resources,
  ...(scope ? { scope } : {}),
});
const guard = (expression: string) => [{ name: 'guard', expression }];
const SKIP_CONTROL_PLANE =
  "!('system:nodes' in request.userInfo.groups) && !(request.userInfo.username.startsWith('system:') && !request.userInfo.username.startsWith('system:serviceaccount:'))";

const CONFIGS: Record<string, O> = {
  'pods, nothing excluded': { rules: [rule(['CREATE', 'UPDATE'], [''], ['pods'])] },
  'pods, kube-system excluded': { rules: [rule(['CREATE', 'UPDATE'], [''], ['pods'])], namespaceSelector: exclude('kube-system') },
  'pods, every system: user skipped': { rules: [rule(['CREATE'], [''], ['pods'])], matchConditions: guard("!request.userInfo.username.startsWith('system:')") },
  'pods, control plane and nodes skipped (controllers still reach it)': {
    rules: [rule(['CREATE'], [''], ['pods'])],
    matchConditions: guard(SKIP_CONTROL_PLANE),
  },
  leases: { rules: [rule(['UPDATE'], ['coordination.k8s.io'], ['leases'])] },
  'leases, kube-node-lease excluded': { rules: [rule(['UPDATE'], ['coordination.k8s.io'], ['leases'])], namespaceSelector: exclude('kube-node-lease') },
  'leases, both excluded': { rules: [rule(['UPDATE'], ['coordination.k8s.io'], ['leases'])], namespaceSelector: exclude('kube-node-lease', 'kube-system') },
  'leases, nodes skipped': {
    rules: [rule(['UPDATE'], ['coordination.k8s.io'], ['leases'])],
    matchConditions: guard("!('system:nodes' in request.userInfo.groups)"),
  },
  'nodes without status': { rules: [rule(['UPDATE'], [''], ['nodes'])] },
  'nodes/status': { rules: [rule(['UPDATE'], [''], ['nodes/status'])] },
  'namespaces, CREATE only': { rules: [rule(['CREATE'], [''], ['namespaces'])] },
  'namespaces, DELETE, kube-system excluded': { rules: [rule(['DELETE'], [''], ['namespaces'])], namespaceSelector: exclude('kube-system') },
  'namespaces/finalize': { rules: [rule(['UPDATE'], [''], ['namespaces/finalize'])] },
  'everything, kube-system excluded': { rules: [rule(['*'], ['*'], ['*'])], namespaceSelector: exclude('kube-system') },
  'everything with subresources, Namespaced scope': { rules: [rule(['*'], ['*'], ['*/*'], 'Namespaced')] },
  'everything, opt-in label': { rules: [rule(['*'], ['*'], ['*/*'])], namespaceSelector: { matchLabels: { 'policy.example.com/enforce': 'true' } } },
  'serviceaccounts/token': { rules: [rule(['CREATE'], [''], ['serviceaccounts/token'])] },
  'CSR approval': { rules: [rule(['UPDATE'], ['certificates.k8s.io'], ['certificatesigningrequests/approval'])] },
  endpointslices: { rules: [rule(['UPDATE'], ['discovery.k8s.io'], ['endpointslices'])] },
  configmaps: { rules: [rule(['CREATE'], [''], ['configmaps'])] },
};

const configuration = (webhook: O) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'guard' },
  webhooks: [
    {
      name: 'guard.example.com',
      clientConfig: { url: 'https://guard.example.com/' },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy: 'Fail',
      ...webhook,
    },
  ],
});

describe('W03 and the Lockout report', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  // The guards (system-guards.ts) keep senders away by class; the simulator sees a user.
  const senderClass = (u: { username: string; groups?: readonly string[] }): SystemClass | 'user' =>
    u.groups?.includes('system:nodes')
      ? 'nodes'
      : u.username.startsWith('system:serviceaccount:')
        ? 'serviceaccounts'
        : u.username.startsWith('system:')
          ? 'control-plane'
          : 'user';

  it('send each critical request as the sender W03 assumes, in the namespace of its object', () => {
    for (const c of CRITICAL_REQUEST_SHAPES) {
      const r = CRITICAL_REQUESTS.find((x) => x.id === c.id)!.request;
      expect(senderClass(r.userInfo!), c.id).toBe(c.sender);
      const o = (r.object ?? r.oldObject) as { metadata?: { namespace?: string; name?: string } };
      // the object lives where the request says (a Namespace is its own namespace)
      expect(o.metadata?.namespace ?? (r.resource.resource === 'namespaces' ? o.metadata?.name : undefined), c.id).toBe(r.namespace);
    }
  });

  for (const [name, webhook] of Object.entries(CONFIGS))
    it(`agree: ${name}`, async () => {
      const config = configuration(webhook);
      const report = await lockoutReport([config], {}, { evaluate });
      const rejected = [...new Set(report.findings.filter((f) => f.effect === 'rejected' && !f.request.startsWith('self:')).map((f) => f.request))].sort();
      const w = (withDefaults(config).webhooks as O[])[0]!;
      expect(
        criticalReached(w)
          .map((c) => c.id)
          .sort(),
      ).toEqual(rejected);
      const w03 = lint(config).find((l) => l.id === 'W03');
      // W03 speaks of a lockout exactly when Lockout finds one
      expect(!!w03?.hint?.startsWith('This is how clusters get locked out'), w03?.hint).toBe(rejected.length > 0);
    });
});
