/**
 * Field descriptions shared by several kinds: object metadata, label selectors,
 * rules and match conditions. Each is a small function so the same description
 * can be placed under different names and paths.
 */
import type { CelContext } from '../../cel/types';
import { NAMESPACE_NAME_LABEL } from '../resources';
import type { Field, ListField, ObjectField, StringField } from './types';

const str = (name: string, label: string, help: string, extra: Partial<StringField> = {}): StringField => ({
  type: 'string',
  name,
  label,
  help,
  ...extra,
});

/** ObjectMeta as far as a cluster-scoped object uses it; server-populated fields are known but hidden. */
export const metadata: ObjectField = {
  type: 'object',
  name: 'metadata',
  label: 'Metadata',
  help: 'Standard object metadata. Admission configuration is cluster-scoped, so the name must be unique in the cluster.',
  required: true,
  fields: [
    str(
      'name',
      'Name',
      'The object name: a DNS subdomain (lowercase letters, digits, "-" and "."; at most 253 characters). Required unless generateName is set.',
      {
        placeholder: 'my-policy.example.com',
      },
    ),
    str(
      'generateName',
      'Generate name',
      'A prefix from which the server generates a unique name when name is empty. Only useful with kubectl create, not apply.',
    ),
    {
      type: 'stringMap',
      name: 'labels',
      label: 'Labels',
      help: 'Key/value pairs for selecting this object. Keys are qualified names (optional DNS prefix and "/"); values at most 63 characters.',
      keyLabel: 'Key',
      valueLabel: 'Value',
    },
    {
      type: 'stringMap',
      name: 'annotations',
      label: 'Annotations',
      help: 'Arbitrary non-identifying metadata for tools (e.g. cert-manager.io/inject-ca-from). All keys and values together may not exceed 256 KiB.',
      keyLabel: 'Key',
      valueLabel: 'Value',
    },
    str('namespace', 'Namespace', 'Ignored: admission configuration is cluster-scoped and the server clears this field.', { hidden: true }),
    { type: 'stringList', name: 'finalizers', label: 'Finalizers', help: 'Keys the server waits on before deleting the object.', hidden: true },
    {
      type: 'list',
      name: 'ownerReferences',
      label: 'Owner references',
      help: 'Objects this one belongs to; it is garbage-collected with them.',
      hidden: true,
      item: {
        type: 'object',
        name: 'ownerReference',
        label: 'Owner reference',
        help: 'An owning object.',
        fields: [
          str('apiVersion', 'API version', 'API version of the owner.', { required: true }),
          str('kind', 'Kind', 'Kind of the owner.', { required: true }),
          str('name', 'Name', 'Name of the owner.', { required: true }),
          str('uid', 'UID', 'UID of the owner.', { required: true }),
          { type: 'boolean', name: 'controller', label: 'Controller', help: 'The owner is the managing controller.' },
          { type: 'boolean', name: 'blockOwnerDeletion', label: 'Block owner deletion', help: 'Foreground deletion of the owner waits for this object.' },
        ],
      },
    },
    str('uid', 'UID', 'Set by the server.', { server: true }),
    str('resourceVersion', 'Resource version', 'Set by the server.', { server: true }),
    { type: 'integer', name: 'generation', label: 'Generation', help: 'Set by the server.', server: true },
    str('creationTimestamp', 'Creation timestamp', 'Set by the server.', { server: true }),
    str('deletionTimestamp', 'Deletion timestamp', 'Set by the server.', { server: true }),
    { type: 'integer', name: 'deletionGracePeriodSeconds', label: 'Deletion grace period', help: 'Set by the server.', server: true },
    str('selfLink', 'Self link', 'Deprecated; set by old servers.', { server: true }),
    {
      type: 'list',
      name: 'managedFields',
      label: 'Managed fields',
      help: 'Server-side apply bookkeeping, set by the server.',
      server: true,
      item: { type: 'object', name: 'managedFieldsEntry', label: 'Entry', help: 'One manager.', fields: [], open: true },
    },
  ],
};

/** Annotation the kubectl client writes; recognised as server-populated for the strip-on-export option. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** A metav1.LabelSelector under the given name. */
export function labelSelector(name: string, label: string, help: string, extra: Partial<ObjectField> = {}): ObjectField {
  return {
    type: 'object',
    name,
    label,
    help,
    ...extra,
    fields: [
      {
        type: 'stringMap',
        name: 'matchLabels',
        label: 'Match labels',
        help: 'Labels that must all be present with exactly these values.',
        keyLabel: 'Label key',
        valueLabel: 'Value',
      },
      {
        type: 'list',
        name: 'matchExpressions',
        label: 'Match expressions',
        help: 'Requirements that must all hold. In/NotIn need values; Exists/DoesNotExist take none.',
        itemKey: 'key',
        item: {
          type: 'object',
          name: 'requirement',
          label: 'Requirement',
          help: 'A label key, an operator and values.',
          fields: [
            str('key', 'Key', 'The label key the requirement applies to.', {
              required: true,
              suggestions: [NAMESPACE_NAME_LABEL, 'control-plane', 'app.kubernetes.io/name'],
            }),
            str('operator', 'Operator', 'How the key relates to the values.', { required: true, enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }),
            {
              type: 'stringList',
              name: 'values',
              label: 'Values',
              help: 'Label values; required for In and NotIn, forbidden for Exists and DoesNotExist.',
              hideIf: { sibling: 'operator', oneOf: ['Exists', 'DoesNotExist'] },
            },
          ],
        },
      },
    ],
  };
}

/** The operations of a rule: a request's (request/model.ts REQUEST_OPERATIONS) and the wildcard '*'. */
export const RULE_OPERATIONS = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

/** The fields of RuleWithOperations (inlined into NamedRuleWithOperations too). */
export const ruleFields: readonly Field[] = [
  {
    type: 'stringList',
    name: 'operations',
    label: 'Operations',
    help: 'Which operations the rule matches. "*" means all, including operations added in future releases; it may not be combined with others.',
    enum: RULE_OPERATIONS,
    required: true,
  },
  {
    type: 'stringList',
    name: 'apiGroups',
    label: 'API groups',
    help: 'API groups of the resources. "" is the core group (pods, configmaps, …); "*" is every group.',
    suggestions: ['', '*', 'apps', 'batch', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'policy', 'admissionregistration.k8s.io', 'apiextensions.k8s.io'],
    required: true,
  },
  {
    type: 'stringList',
    name: 'apiVersions',
    label: 'API versions',
    help: 'API versions of the resources; "*" is every version.',
    suggestions: ['*', 'v1', 'v1beta1', 'v1alpha1'],
    required: true,
  },
  {
    type: 'stringList',
    name: 'resources',
    label: 'Resources',
    help: 'Plural resource names, optionally with a subresource: "pods", "pods/status", "pods/*" (pods and all its subresources), "*" (all resources, no subresources), "*/*" (everything).',
    suggestions: [
      '*',
      '*/*',
      'pods',
      'pods/exec',
      'pods/status',
      'deployments',
      'deployments/scale',
      'services',
      'configmaps',
      'secrets',
      'namespaces',
      'ingresses',
      'jobs',
      'cronjobs',
      'statefulsets',
      'daemonsets',
      'replicasets',
      'serviceaccounts',
      'roles',
      'rolebindings',
      'clusterroles',
      'clusterrolebindings',
      'customresourcedefinitions',
      'validatingwebhookconfigurations',
      'mutatingwebhookconfigurations',
    ],
    required: true,
  },
  str('scope', 'Scope', 'Cluster matches only cluster-scoped resources, Namespaced only namespaced ones, "*" both.', {
    enum: ['*', 'Cluster', 'Namespaced'],
    default: '*',
  }),
];

/** A list of RuleWithOperations (webhook rules). */
export function rulesList(name: string, label: string, help: string, extraItemFields: readonly Field[] = []): ListField {
  return {
    type: 'list',
    name,
    label,
    help,
    item: {
      type: 'object',
      name: 'rule',
      label: 'Rule',
      help: 'Operations on resources of API groups and versions.',
      fields: [...extraItemFields, ...ruleFields],
    },
  };
}

/** A list of MatchCondition, compiled in the given CEL context. */
export function matchConditions(context: CelContext, help: string): ListField {
  return {
    type: 'list',
    name: 'matchConditions',
    label: 'Match conditions',
    help,
    itemKey: 'name',
    ordered: true,
    item: {
      type: 'object',
      name: 'matchCondition',
      label: 'Match condition',
      help: 'A named CEL condition that must be true for the request to be sent on.',
      fields: [
        str('name', 'Name', 'A qualified name, unique within the list; shown in errors and metrics.', { required: true }),
        str('expression', 'Expression', 'A CEL expression that must evaluate to bool. An error follows the failurePolicy.', {
          required: true,
          cel: context,
          multiline: true,
          placeholder: "request.resource.group != 'rbac.authorization.k8s.io'",
        }),
      ],
    },
  };
}

export const FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
export const MATCH_POLICIES = ['Exact', 'Equivalent'] as const;
