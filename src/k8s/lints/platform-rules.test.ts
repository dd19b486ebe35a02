import { describe, expect, it } from 'vitest';
import { targetRelease } from '../../base/platforms';
import { lint } from './index';

const NOT_IN = (values: string[]) => ({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values }] });

const guard = (webhook: Record<string, unknown> = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'pod-guard' },
  webhooks: [
    {
      name: 'pods.guard.example.com',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { url: 'https://guard.example.com/validate' },
      namespaceSelector: NOT_IN(['kube-system', 'kube-node-lease']),
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      ...webhook,
    },
  ],
});

const openshift = { kubernetesVersion: '1.32', criticalNamespaces: targetRelease('1.32', 'openshift-4.19').criticalNamespaces } as const;
const w27 = (object: unknown, options: Parameters<typeof lint>[2] = openshift) =>
  lint(object, [object], options)
    .filter((l) => l.id === 'W27')
    .map((l) => `${l.field}: ${l.message}`);

describe('W27 platform-namespace-unexcluded', () => {
  it("on OpenShift, a fail-closed pod webhook that spares only kube-system reaches the platform's critical namespaces; upstream it does not", () => {
    expect(w27(guard())).toEqual([
      'webhooks[0].namespaceSelector: pods created in openshift-* (e.g. openshift-ingress) and default (e.g. default) are sent to this webhook, which fails closed',
    ]);
    expect(w27(guard(), { kubernetesVersion: '1.32' })).toEqual([]);
    expect(w27(guard(), { kubernetesVersion: '1.32', criticalNamespaces: targetRelease('1.32').criticalNamespaces })).toEqual([]);
  });

  it('names only what is still reached; nothing once excluded, failing open, scoped to the cluster or keeping system users (service accounts among them) away', () => {
    expect(w27(guard({ namespaceSelector: NOT_IN(['kube-system', 'default']) }))).toEqual([
      'webhooks[0].namespaceSelector: pods created in openshift-* (e.g. openshift-ingress) are sent to this webhook, which fails closed',
    ]);
    expect(w27(guard({ namespaceSelector: NOT_IN(['openshift-ingress', 'default']) }))).toEqual([]);
    expect(w27(guard({ failurePolicy: 'Ignore' }))).toEqual([]);
    expect(w27(guard({ rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }))).toEqual([]);
    expect(w27(guard({ rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }))).toEqual([]);
    expect(w27(guard({ matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }] }))).toEqual([]);
    // wildcards match pods too
    expect(w27(guard({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }))).toHaveLength(1);
  });
});
