/**
 * ValidatingWebhookConfiguration and MutatingWebhookConfiguration
 * (admissionregistration.k8s.io/v1): every field of ValidatingWebhook and
 * MutatingWebhook.
 */
import { FAILURE_POLICIES, MATCH_POLICIES, labelSelector, matchConditions, metadata, rulesList } from './common';
import type { Field, KindSpec, ListField, ObjectField } from './types';
import { WEBHOOK_CONFIGURATION_VERSIONS } from './served';

const clientConfig: ObjectField = {
  type: 'object',
  name: 'clientConfig',
  label: 'Client config',
  help: 'Where the apiserver sends the AdmissionReview: exactly one of a URL or an in-cluster Service.',
  required: true,
  oneOf: [['url', 'service']],
  fields: [
    {
      type: 'string',
      name: 'url',
      label: 'URL',
      help: 'An https:// URL outside the cluster (or reachable from the apiserver host): no user info, query or fragment. Prefer service for in-cluster webhooks.',
      placeholder: 'https://webhook.example.com/validate',
    },
    {
      type: 'object',
      name: 'service',
      label: 'Service',
      help: 'An in-cluster Service the apiserver calls over TLS.',
      fields: [
        { type: 'string', name: 'namespace', label: 'Namespace', help: 'Namespace of the Service.', required: true, placeholder: 'webhook-system' },
        { type: 'string', name: 'name', label: 'Name', help: 'Name of the Service.', required: true, placeholder: 'webhook-service' },
        {
          type: 'string',
          name: 'path',
          label: 'Path',
          help: 'URL path sent in requests, e.g. /validate. Segments are lowercase DNS subdomains.',
          placeholder: '/validate',
        },
        { type: 'integer', name: 'port', label: 'Port', help: 'Service port (1–65535).', default: 443, minimum: 1, maximum: 65535 },
      ],
    },
    {
      type: 'string',
      name: 'caBundle',
      label: 'CA bundle',
      help: "Base64-encoded PEM CA bundle that signs the webhook's serving certificate. Empty means the apiserver's system trust roots. Often injected by cert-manager.",
      format: 'byte',
      multiline: true,
    },
  ],
};

function webhookFields(mutating: boolean): Field[] {
  const kind = mutating ? 'mutating' : 'validating';
  return [
    {
      type: 'string',
      name: 'name',
      label: 'Name',
      help: 'A fully qualified name with at least three segments (e.g. pod-policy.example.com), unique within the configuration. It appears in metrics and audit logs.',
      required: true,
      placeholder: `${kind}.example.com`,
    },
    clientConfig,
    rulesList(
      'rules',
      'Rules',
      'The operations and resources the webhook intercepts; the request is sent if any rule matches. No rules means the webhook is never called.',
    ),
    {
      type: 'string',
      name: 'failurePolicy',
      label: 'Failure policy',
      help: 'What happens when the webhook cannot be reached or errors: Fail rejects the request, Ignore lets it through. Fail on broad rules can lock a cluster out.',
      enum: FAILURE_POLICIES,
      default: 'Fail',
    },
    {
      type: 'string',
      name: 'matchPolicy',
      label: 'Match policy',
      help: 'Exact matches only the listed group/versions; Equivalent also sends requests for the same resource through another API version (converted to a version in the rules).',
      enum: MATCH_POLICIES,
      default: 'Equivalent',
    },
    labelSelector(
      'namespaceSelector',
      'Namespace selector',
      'Only requests for objects in namespaces whose labels match are sent (for cluster-scoped objects: the object itself if it is a Namespace). Empty matches everything. Exclude kube-system to avoid lock-outs.',
      { default: {} },
    ),
    labelSelector('objectSelector', 'Object selector', 'Only requests whose object (or old object) labels match are sent. Empty matches everything.', {
      default: {},
    }),
    {
      type: 'string',
      name: 'sideEffects',
      label: 'Side effects',
      help: 'Whether the webhook changes anything outside the AdmissionReview. None: no side effects. NoneOnDryRun: side effects are skipped for dryRun requests. Required in v1.',
      enum: ['None', 'NoneOnDryRun'],
      required: true,
    },
    {
      type: 'integer',
      name: 'timeoutSeconds',
      label: 'Timeout (seconds)',
      help: 'How long the apiserver waits for the webhook (1–30). On timeout the failurePolicy applies. Keep it short: it adds to every matching request.',
      default: 10,
      minimum: 1,
      maximum: 30,
    },
    {
      type: 'stringList',
      name: 'admissionReviewVersions',
      label: 'AdmissionReview versions',
      help: 'AdmissionReview versions the webhook accepts, in order of preference; the apiserver uses the first it supports. Must include v1 or v1beta1.',
      suggestions: ['v1', 'v1beta1'],
      required: true,
    },
    ...(mutating
      ? [
          {
            type: 'string',
            name: 'reinvocationPolicy',
            label: 'Reinvocation policy',
            help: 'IfNeeded calls the webhook again (at most once) when a later mutating webhook or policy changed the object; Never calls it once.',
            enum: ['Never', 'IfNeeded'],
            default: 'Never',
          } satisfies Field,
        ]
      : []),
    matchConditions(
      'webhook-matchCondition',
      'CEL conditions that must all be true for the request to be sent (at most 64). Filter cheaply before the network call; any false skips the webhook.',
    ),
  ];
}

function webhooksList(mutating: boolean): ListField {
  return {
    type: 'list',
    name: 'webhooks',
    label: 'Webhooks',
    help: mutating ? "The webhooks, called in order; order matters because each sees the previous ones' changes." : 'The webhooks, all called in parallel.',
    itemKey: 'name',
    ordered: mutating,
    item: {
      type: 'object',
      name: 'webhook',
      label: 'Webhook',
      help: mutating ? 'A MutatingWebhook.' : 'A ValidatingWebhook.',
      fields: webhookFields(mutating),
    },
  };
}

export const validatingWebhookConfiguration: KindSpec = {
  group: 'admissionregistration.k8s.io',
  versions: WEBHOOK_CONFIGURATION_VERSIONS,
  kind: 'ValidatingWebhookConfiguration',
  summary: 'Send matching requests to HTTPS webhooks that may reject them.',
  docUrl: 'https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/validating-webhook-configuration-v1/',
  fields: [metadata, webhooksList(false)],
};

export const mutatingWebhookConfiguration: KindSpec = {
  group: 'admissionregistration.k8s.io',
  versions: WEBHOOK_CONFIGURATION_VERSIONS,
  kind: 'MutatingWebhookConfiguration',
  summary: 'Send matching requests to HTTPS webhooks that may change or reject them.',
  docUrl: 'https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/mutating-webhook-configuration-v1/',
  fields: [metadata, webhooksList(true)],
};
