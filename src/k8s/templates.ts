/**
 * A starting document for each kind (the "new document" menu) and the sample
 * workspace a first-time visitor sees: realistic, valid configurations.
 */
import { NAMESPACE_NAME_LABEL } from './resources';

export const TEMPLATES: Record<string, () => Record<string, unknown>> = {
  ValidatingWebhookConfiguration: () => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'pod-policy.example.com' },
    webhooks: [
      {
        name: 'pod-policy.example.com',
        clientConfig: { service: { namespace: 'policy-system', name: 'pod-policy-webhook', path: '/validate' } },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
        failurePolicy: 'Fail',
        namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system'] }] },
        sideEffects: 'None',
        timeoutSeconds: 5,
        admissionReviewVersions: ['v1'],
      },
    ],
  }),
  MutatingWebhookConfiguration: () => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'sidecar-injector.example.com' },
    webhooks: [
      {
        name: 'sidecar-injector.example.com',
        clientConfig: { service: { namespace: 'injector-system', name: 'sidecar-injector', path: '/mutate' } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
        failurePolicy: 'Ignore',
        namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system'] }] },
        objectSelector: { matchLabels: { 'sidecar.example.com/inject': 'true' } },
        sideEffects: 'None',
        timeoutSeconds: 5,
        admissionReviewVersions: ['v1'],
        reinvocationPolicy: 'IfNeeded',
      },
    ],
  }),
  ValidatingAdmissionPolicy: () => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'replica-limit.example.com' },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }],
      },
      validations: [
        {
          expression: 'object.spec.replicas <= int(params.data.maxReplicas)',
          messageExpression: "'replicas must be at most ' + params.data.maxReplicas",
          reason: 'Invalid',
        },
      ],
    },
  }),
  ValidatingAdmissionPolicyBinding: () => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'replica-limit-binding.example.com' },
    spec: {
      policyName: 'replica-limit.example.com',
      validationActions: ['Deny'],
      paramRef: { name: 'replica-limit', namespace: 'default', parameterNotFoundAction: 'Deny' },
      matchResources: {
        namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system'] }] },
      },
    },
  }),
  MutatingAdmissionPolicy: () => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'default-owner-label.example.com' },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'IfNeeded',
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      },
      matchConditions: [{ name: 'no-owner-label', expression: "!has(object.metadata.labels) || !('owner' in object.metadata.labels)" }],
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'owner': request.userInfo.username}}}" },
        },
      ],
    },
  }),
  MutatingAdmissionPolicyBinding: () => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: 'default-owner-label-binding.example.com' },
    spec: { policyName: 'default-owner-label.example.com' },
  }),
};

/** The first-visit workspace: a realistic mix that shows the product working. */
export function sampleWorkspace(): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'policy-guard.example.com', labels: { 'app.kubernetes.io/name': 'policy-guard' } },
      webhooks: [
        {
          name: 'pods.policy-guard.example.com',
          clientConfig: { service: { namespace: 'policy-guard', name: 'policy-guard-webhook', path: '/validate-pods', port: 443 } },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          namespaceSelector: {
            matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system', 'policy-guard'] }],
          },
          sideEffects: 'None',
          timeoutSeconds: 5,
          admissionReviewVersions: ['v1'],
          matchConditions: [{ name: 'exclude-system-users', expression: "!request.userInfo.username.startsWith('system:')" }],
        },
        {
          name: 'deployments.policy-guard.example.com',
          clientConfig: { url: 'https://policy-guard.example.com/validate-deployments' },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'deployments/scale'] }],
          failurePolicy: 'Ignore',
          namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system'] }] },
          sideEffects: 'NoneOnDryRun',
          timeoutSeconds: 3,
          admissionReviewVersions: ['v1', 'v1beta1'],
        },
      ],
    },
    TEMPLATES.MutatingWebhookConfiguration(),
    TEMPLATES.ValidatingAdmissionPolicy(),
    TEMPLATES.ValidatingAdmissionPolicyBinding(),
    // The binding's paramRef: kept read-only (the Workbench does not edit ConfigMaps) and used by test runs.
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'replica-limit', namespace: 'default' }, data: { maxReplicas: '5' } },
  ];
}
