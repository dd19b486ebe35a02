/**
 * lockoutReport() on real configurations (fixtures/realworld: copies from the projects named
 * in each file's header) and a hand-written fail-closed guard (./fixtures/policy-guard.yaml):
 * which critical requests each would reject or hold while its webhooks are down, and the field
 * responsible.
 */
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../fixtures';
import { useEngine } from '../cel/test-helpers';
import { CRITICAL_REQUESTS, criticalRequests, lockoutReport, type LockoutReport } from './index';

useEngine();

const documents = (text: string): unknown[] => loadAll(text).filter((d) => d !== null && d !== undefined);
/** This folder's own fixture (the hand-written guard). */
const fixture = (name: string): unknown[] => documents(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
/** A file of the real-world corpus. */
const realworld = (name: string): unknown[] => documents(readFixture('realworld', name));

const rejected = (r: LockoutReport) => r.findings.filter((f) => f.effect === 'rejected').map((f) => `${f.request} ← ${f.webhook ?? f.name} @ ${f.path}`);
const stalled = (r: LockoutReport) => r.findings.filter((f) => f.effect === 'stalled').map((f) => `${f.request} ← ${f.webhook ?? f.name} @ ${f.path}`);

describe('lockoutReport', () => {
  it('a fail-closed guard on every resource locks out every critical request, itself included', async () => {
    const r = await lockoutReport(fixture('policy-guard.yaml'));
    const ids = [...CRITICAL_REQUESTS.map((c) => c.id), 'self:guard-system/policy-guard', 'self:guard-system/policy-guard-safe'];
    expect(r.checked.map((c) => c.request)).toEqual(ids);
    // 1.37 sends review requests to no webhook: those rows go through, and say why
    const reviews = ['kubelet-tokenreview', 'kubelet-subjectaccessreview'];
    expect(r.checked.filter((c) => c.allowed).map((c) => c.request)).toEqual(reviews);
    for (const c of r.checked.filter((x) => reviews.includes(x.request))) expect(c.note).toMatch(/^Kubernetes 1\.37 sends review requests to no webhook/);
    expect(r.headline).toBe(`${ids.length - reviews.length} critical requests would be rejected while 'policy-guard' is down`);
    // 1.36 sends them to the webhook, which locks them out too
    const at136 = await lockoutReport(fixture('policy-guard.yaml'), { kubernetesVersion: '1.36' });
    expect(at136.checked.every((c) => !c.allowed)).toBe(true);
    expect(at136.checked.find((c) => c.request === 'kubelet-tokenreview')?.note).toMatch(/sends review requests to webhooks \(not to admission policies\)/);
    expect(at136.findings.find((f) => f.request === 'kubelet-tokenreview')).toMatchObject({ webhook: 'policy-guard', effect: 'rejected' });
    const lease = r.findings.find((f) => f.request === 'kubelet-lease')!;
    expect(lease).toMatchObject({
      kind: 'ValidatingWebhookConfiguration',
      name: 'policy-guard',
      webhook: 'policy-guard',
      path: 'webhooks[0].failurePolicy',
      document: { kind: 'ValidatingWebhookConfiguration', name: 'policy-guard', index: 0 },
    });
    expect(lease.message).toContain('failed calling webhook "policy-guard"');
    expect(lease.reason).toContain('webhooks[0].namespaceSelector is empty, so namespace kube-node-lease is not excluded');
    // the safe twin (kube-system, kube-node-lease and its own namespace excluded, Ignore, 3 s) is never responsible
    expect(r.findings.some((f) => f.webhook === 'policy-guard-safe')).toBe(false);
  });

  it('cert-manager: webhooks scoped to its own API groups lock nothing out', async () => {
    const r = await lockoutReport(realworld('01-cert-manager-webhooks.yaml'));
    expect(r.findings).toEqual([]);
    expect(r.headline).toMatch(/^No critical request would be rejected or stalled/);
  });

  it('OpenKruise: the fail-closed Pod webhook rejects kube-system pods and its own (namespaces lack the control-plane label it relies on)', async () => {
    const r = await lockoutReport(realworld('26-openkruise-webhooks.yaml'));
    expect(rejected(r)).toEqual([
      'kube-system-pod-create ← mpod.kb.io @ webhooks[0].failurePolicy',
      'self:kruise-system/kruise-webhook-service ← mpod.kb.io @ webhooks[0].failurePolicy',
    ]);
    expect(r.headline).toBe("2 critical requests would be rejected while 'mpod.kb.io' is down");
    // with the label on the two namespaces, as its chart sets it, nothing is locked out
    const labelled = ['kube-system', 'kruise-system'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { 'control-plane': 'true' } },
    }));
    expect(rejected(await lockoutReport(realworld('26-openkruise-webhooks.yaml'), { namespaces: labelled }))).toEqual([]);
  });

  it('Capsule: namespace deletion waits on its fail-closed Namespace webhook', async () => {
    const r = await lockoutReport(realworld('19-capsule-webhooks.yaml'));
    expect(rejected(r)).toEqual(['namespace-delete ← namespaces.projectcapsule.dev @ webhooks[4].failurePolicy']);
  });

  it('cel-admission-webhook: fail-closed on everything but excluding kube-system still blocks namespace deletion', async () => {
    const r = await lockoutReport(realworld('27-cel-admission-webhook-validating.yaml'));
    expect(rejected(r)).toEqual(['namespace-delete ← cel-shim.example.com @ webhooks[0].failurePolicy']);
  });

  it('Linkerd: the injector excludes kube-system and fails open, but would hold pods in its own namespace for its timeout (their labels are assumed)', async () => {
    const r = await lockoutReport(realworld('05-linkerd-webhooks.yaml'));
    expect(rejected(r)).toEqual([]);
    expect(stalled(r)).toEqual([
      'self:linkerd/linkerd-proxy-injector ← linkerd-proxy-injector.linkerd.io @ webhooks[0].timeoutSeconds',
      'self:linkerd/linkerd-sp-validator ← linkerd-proxy-injector.linkerd.io @ webhooks[0].timeoutSeconds',
      'self:linkerd/linkerd-policy-validator ← linkerd-proxy-injector.linkerd.io @ webhooks[0].timeoutSeconds',
    ]);
    expect(r.headline).toMatch(/^No critical request would be rejected; \d+ would wait for the timeout of 'linkerd-proxy-injector.linkerd.io'/);
    expect(rejected(await lockoutReport(realworld('05-linkerd-webhooks.yaml'), { stallSeconds: 11 }))).toEqual([]);
    expect(stalled(await lockoutReport(realworld('05-linkerd-webhooks.yaml'), { stallSeconds: 11 }))).toEqual([]);
  });

  it('a MutatingAdmissionPolicy whose matchCondition errors on pods without initContainers rejects kube-system pods (not a webhook: always)', async () => {
    const r = await lockoutReport(realworld('80-k8s-docs-map-applyconfiguration.yaml'));
    expect(rejected(r)).toEqual(['kube-system-pod-create ← sidecar-policy.example.com @ spec.matchConditions[0].expression']);
    expect(r.headline).toBe("1 critical request would be rejected by policy 'sidecar-policy.example.com'");
    // plain text: the Lockout view shows the headline as it is, so no Markdown backticks
    expect(r.headline).not.toContain('`');
  });
});

describe('lockoutReport on a platform', () => {
  // Fails closed on pod creation everywhere but kube-system and kube-node-lease: upstream's critical
  // requests all pass it; OpenShift's operators in openshift-* (and default) cannot bring their pods back.
  const guard = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'pod-guard' },
    webhooks: [
      {
        name: 'pods.guard.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { url: 'https://guard.example.com/validate' },
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'kube-node-lease'] }] },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      },
    ],
  };

  it('reports a webhook failing closed on openshift-* namespaces as a lockout on OpenShift and not upstream', async () => {
    const upstream = await lockoutReport([guard], { kubernetesVersion: '1.32' });
    expect(rejected(upstream)).toEqual([]);
    expect(upstream.checked.map((c) => c.request)).not.toContain('namespace:openshift-*');

    const os = await lockoutReport([guard], { platform: 'openshift-4.19' });
    expect(rejected(os)).toEqual([
      'namespace:openshift-* ← pods.guard.example.com @ webhooks[0].failurePolicy',
      'namespace:default ← pods.guard.example.com @ webhooks[0].failurePolicy',
    ]);
    const f = os.findings.find((x) => x.request === 'namespace:openshift-*')!;
    expect(f.title).toBe('openshift-* Pod create (CREATE pods in openshift-ingress by the replicaset controller)');
    expect(f.reason).toMatch(/namespaceSelector does not exclude namespace openshift-ingress/);
    expect(os.headline).toBe("2 critical requests would be rejected while 'pods.guard.example.com' is down");
    // the platform's Kubernetes release (1.32) decides the rest: review requests still reach webhooks
    expect(os.checked.find((c) => c.request === 'kubelet-tokenreview')?.note).toMatch(
      /^OpenShift 4\.19 \(Kubernetes 1\.32\) sends review requests to webhooks/,
    );
  });

  it('excluding the critical namespaces clears the finding', async () => {
    const excluded = structuredClone(guard);
    excluded.webhooks[0]!.namespaceSelector.matchExpressions[0]!.values.push('openshift-ingress', 'default');
    expect(rejected(await lockoutReport([excluded], { platform: 'openshift-4.19' }))).toEqual([]);
  });
});

describe('lockoutReport: leader-election leases', () => {
  // Fails closed on lease updates outside kube-node-lease; its matchCondition lets only the controller manager through.
  const leaseAudit = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'lease-audit' },
    webhooks: [
      {
        name: 'lease-audit.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { url: 'https://lease-audit.example.com/validate' },
        rules: [{ apiGroups: ['coordination.k8s.io'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['leases'] }],
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-node-lease'] }] },
        matchConditions: [{ name: 'not-kcm', expression: "request.userInfo.username != 'system:kube-controller-manager'" }],
      },
    ],
  };

  it("exempting only the controller manager still locks out the scheduler's leader lease", async () => {
    const r = await lockoutReport([leaseAudit]);
    expect(rejected(r)).toEqual(['scheduler-leader-election-lease ← lease-audit.example.com @ webhooks[0].failurePolicy']);
    expect(r.headline).toBe("1 critical request would be rejected while 'lease-audit.example.com' is down");
    const f = r.findings[0]!;
    expect(f.title).toBe('leader-election Lease update (UPDATE leases/kube-scheduler in kube-system by system:kube-scheduler)');
    expect(f.message).toContain('failed calling webhook "lease-audit.example.com"');
  });
});

describe("lockoutReport: the webhook's own Pod", () => {
  // Fails closed on every pod create but kube-system's, called at its Service's in-cluster DNS name.
  const podguard = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'podguard' },
    webhooks: [
      {
        name: 'podguard.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { url: 'https://podguard.podguard-system.svc:443/validate' },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
      },
    ],
  };

  it('a URL at <service>.<namespace>.svc is that Service: its pods cannot come back while it is down', async () => {
    const r = await lockoutReport([podguard]);
    expect(rejected(r)).toEqual(['self:podguard-system/podguard ← podguard.example.com @ webhooks[0].failurePolicy']);
    expect(r.headline).toBe("1 critical request would be rejected while 'podguard.example.com' is down");
    // nothing in the workspace says how its pods are labelled: the report says what it assumed
    expect(r.findings[0]!.title).toBe(
      "the webhook's own Pod (CREATE pods in podguard-system for Service podguard; labels app=podguard, app.kubernetes.io/name=podguard assumed: no Service podguard in the workspace and no workload in namespace podguard-system)",
    );
  });

  // Fails closed on pod creation outside kube-system; its objectSelector is meant to let its own pods through.
  const injector = (exclude: Record<string, string>) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'injector' },
    webhooks: [
      {
        name: 'inject.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { service: { name: 'injector-svc', namespace: 'injector-system' } },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
        objectSelector: { matchExpressions: Object.entries(exclude).map(([key, value]) => ({ key, operator: 'NotIn', values: [value] })) },
      },
    ],
  });
  const workload = (kind: string, name: string, labels: Record<string, string>) => ({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: 'injector-system' },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'manager', image: 'example.com/injector:1.0' }] } },
    },
  });
  const service = (selector: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'injector-svc', namespace: 'injector-system' },
    spec: { selector, ports: [{ port: 443, targetPort: 9443 }] },
  });
  const self = 'self:injector-system/injector-svc ← inject.example.com @ webhooks[0].failurePolicy';
  const selfTitle = (r: LockoutReport) => r.checked.find((c) => c.request === 'self:injector-system/injector-svc')!.title;

  it("reads its pods' labels from the workload named after its Service: excluding the Service's name does not exclude them", async () => {
    const r = await lockoutReport([
      injector({ 'app.kubernetes.io/name': 'injector-svc' }),
      workload('Deployment', 'injector', { 'app.kubernetes.io/name': 'injector' }),
    ]);
    expect(rejected(r)).toEqual([self]);
    expect(selfTitle(r)).toBe(
      "the webhook's own Pod (CREATE pods in injector-system for Service injector-svc; labels app.kubernetes.io/name=injector of Deployment injector's pod template, named after Service injector-svc (no Service injector-svc in the workspace))",
    );
  });

  it('reads them from the only workload of its namespace: excluding the label it really sets clears the finding', async () => {
    const r = await lockoutReport([
      injector({ 'control-plane': 'controller-manager' }),
      workload('Deployment', 'injector-controller-manager', { 'control-plane': 'controller-manager' }),
    ]);
    expect(rejected(r)).toEqual([]);
    expect(selfTitle(r)).toMatch(
      /; labels control-plane=controller-manager of Deployment injector-controller-manager's pod template, the only workload in namespace injector-system/,
    );
  });

  it("prefers the workload the Service selects, and its controller (a StatefulSet's pods), over names", async () => {
    const workloads = [
      workload('Deployment', 'injector', { app: 'other' }),
      workload('StatefulSet', 'injector-webhook', { app: 'webhook', tier: 'admission' }),
    ];
    const excluded = await lockoutReport([injector({ app: 'webhook' }), service({ app: 'webhook' }), ...workloads]);
    expect(rejected(excluded)).toEqual([]);
    expect(selfTitle(excluded)).toMatch(
      /; labels app=webhook, tier=admission of StatefulSet injector-webhook's pod template, whose pods Service injector-svc selects\)$/,
    );
    const request = criticalRequests([injector({ app: 'webhook' }), service({ app: 'webhook' }), ...workloads]).at(-1)!.request;
    expect(request).toMatchObject({ name: 'injector-webhook-0', userInfo: { username: 'system:serviceaccount:kube-system:statefulset-controller' } });
    // the pods another workload carries are not its own: excluding them leaves its own rejected
    expect(rejected(await lockoutReport([injector({ app: 'other' }), service({ app: 'webhook' }), ...workloads]))).toEqual([self]);
    // a Service whose selector matches no workload: its pods carry at least the selector's labels
    const bare = await lockoutReport([injector({ app: 'webhook' }), service({ app: 'webhook' })]);
    expect(rejected(bare)).toEqual([]);
    expect(selfTitle(bare)).toMatch(/; labels app=webhook of Service injector-svc's selector \(no workload in the workspace matches it\)\)$/);
  });
});
