/**
 * ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings
 * (admissionregistration.k8s.io/v1; v1beta1 and v1alpha1 accepted on import).
 */
import { FAILURE_POLICIES, MATCH_POLICIES, labelSelector, matchConditions, metadata, rulesList } from './common';
import type { Field, KindSpec, ListField, ObjectField } from './types';
import { MUTATING_POLICY_VERSIONS, VALIDATING_POLICY_VERSIONS } from './served';

const GROUP = 'admissionregistration.k8s.io';

const resourceNames: Field = {
  type: 'stringList',
  name: 'resourceNames',
  label: 'Resource names',
  help: 'Object names the rule is limited to; empty means every name.',
};

function matchResources(name: string, label: string, help: string, required: boolean): ObjectField {
  return {
    type: 'object',
    name,
    label,
    help,
    required,
    fields: [
      labelSelector('namespaceSelector', 'Namespace selector', 'Only objects in namespaces whose labels match. Empty matches everything.', { default: {} }),
      labelSelector('objectSelector', 'Object selector', 'Only objects whose labels match. Empty matches everything.', { default: {} }),
      rulesList('resourceRules', 'Resource rules', 'Operations and resources that the policy applies to; it applies if any rule matches.', [resourceNames]),
      rulesList('excludeResourceRules', 'Exclude resource rules', 'Operations and resources excluded even when a resource rule matches.', [resourceNames]),
      {
        type: 'string',
        name: 'matchPolicy',
        label: 'Match policy',
        help: 'Exact matches only the listed group/versions; Equivalent also matches the same resource through another API version.',
        enum: MATCH_POLICIES,
        default: 'Equivalent',
      },
    ],
  };
}

const paramKind: ObjectField = {
  type: 'object',
  name: 'paramKind',
  label: 'Param kind',
  help: 'The kind of the parameter resource a binding supplies as `params`. Without it, `params` is not declared and the policy takes no parameters.',
  fields: [
    {
      type: 'string',
      name: 'apiVersion',
      label: 'API version',
      help: 'group/version of the parameter resource, e.g. rules.example.com/v1, or v1 for the core group.',
      required: true,
      placeholder: 'v1',
    },
    { type: 'string', name: 'kind', label: 'Kind', help: 'Kind of the parameter resource, e.g. ConfigMap.', required: true, placeholder: 'ConfigMap' },
  ],
};

const variables: ListField = {
  type: 'list',
  name: 'variables',
  label: 'Variables',
  help: 'Named CEL expressions, available to later variables and to validations/mutations as variables.<name>. Each is evaluated lazily, at most once per request.',
  itemKey: 'name',
  ordered: true,
  item: {
    type: 'object',
    name: 'variable',
    label: 'Variable',
    help: 'A named CEL expression.',
    fields: [
      { type: 'string', name: 'name', label: 'Name', help: 'A CEL identifier, unique within the policy.', required: true },
      {
        type: 'string',
        name: 'expression',
        label: 'Expression',
        help: "Any CEL expression; its type becomes the variable's type.",
        required: true,
        cel: 'vap-variable',
        multiline: true,
      },
    ],
  },
};

const failurePolicy: Field = {
  type: 'string',
  name: 'failurePolicy',
  label: 'Failure policy',
  help: 'What happens when an expression errors or params are misconfigured: Fail rejects the request, Ignore lets it through.',
  enum: FAILURE_POLICIES,
  default: 'Fail',
};

const matchConstraints = matchResources(
  'matchConstraints',
  'Match constraints',
  'The resources the policy cares about. A binding can only narrow them. Required: resourceRules must name something.',
  true,
);

const policyMatchConditions = (mutating: boolean): ListField =>
  matchConditions(
    mutating ? 'map-matchCondition' : 'vap-matchCondition',
    'CEL conditions that must all be true for the policy to be evaluated (at most 64). Any false skips the policy.',
  );

const validations: ListField = {
  type: 'list',
  name: 'validations',
  label: 'Validations',
  help: 'CEL expressions that must all be true for the request to be admitted.',
  ordered: true,
  item: {
    type: 'object',
    name: 'validation',
    label: 'Validation',
    help: 'A CEL check and the message shown when it fails.',
    fields: [
      {
        type: 'string',
        name: 'expression',
        label: 'Expression',
        help: 'A CEL expression that must evaluate to bool; false rejects the request.',
        required: true,
        cel: 'vap-validation',
        multiline: true,
      },
      {
        type: 'string',
        name: 'message',
        label: 'Message',
        help: 'The message returned when the expression is false. Without it: "failed expression: <expression>".',
      },
      {
        type: 'string',
        name: 'messageExpression',
        label: 'Message expression',
        help: 'A CEL expression returning the message (string). If it errors, is empty or multi-line, message is used instead. No authorizer here.',
        cel: 'vap-messageExpression',
        multiline: true,
      },
      {
        type: 'string',
        name: 'reason',
        label: 'Reason',
        help: 'The status reason returned to the client when the validation fails (HTTP 401, 403, 422 or 413). Unset means Invalid.',
        enum: ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'],
      },
    ],
  },
};

const auditAnnotations: ListField = {
  type: 'list',
  name: 'auditAnnotations',
  label: 'Audit annotations',
  help: "Annotations added to the audit event of the request (only when the binding's validationActions include Audit for failures; always recorded here).",
  itemKey: 'key',
  item: {
    type: 'object',
    name: 'auditAnnotation',
    label: 'Audit annotation',
    help: 'A key and a CEL expression for its value.',
    fields: [
      {
        type: 'string',
        name: 'key',
        label: 'Key',
        help: 'Unique within the policy; combined with the policy name into "<policy>/<key>" (a qualified name, at most 63 characters).',
        required: true,
      },
      {
        type: 'string',
        name: 'valueExpression',
        label: 'Value expression',
        help: 'A CEL expression returning a string (the value, truncated to 10 KB) or null (no annotation).',
        required: true,
        cel: 'vap-auditAnnotation',
        multiline: true,
      },
    ],
  },
};

const policyStatus: ObjectField = {
  type: 'object',
  name: 'status',
  label: 'Status',
  help: 'Type-checking results, set by the server.',
  server: true,
  open: true,
  fields: [],
};

export const validatingAdmissionPolicy: KindSpec = {
  group: GROUP,
  versions: VALIDATING_POLICY_VERSIONS,
  kind: 'ValidatingAdmissionPolicy',
  summary: 'Validate requests in the apiserver with CEL, no webhook needed.',
  docUrl: 'https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/validating-admission-policy-v1/',
  fields: [
    metadata,
    {
      type: 'object',
      name: 'spec',
      label: 'Spec',
      help: 'What the policy matches and checks.',
      required: true,
      fields: [paramKind, matchConstraints, validations, failurePolicy, auditAnnotations, policyMatchConditions(false), variables],
    },
    policyStatus,
  ],
};

const mutations: ListField = {
  type: 'list',
  name: 'mutations',
  label: 'Mutations',
  help: 'Changes applied in order to the object; each sees the result of the previous ones.',
  ordered: true,
  item: {
    type: 'object',
    name: 'mutation',
    label: 'Mutation',
    help: 'An apply configuration or a JSON patch computed by CEL.',
    oneOf: [['applyConfiguration', 'jsonPatch']],
    fields: [
      {
        type: 'string',
        name: 'patchType',
        label: 'Patch type',
        help: 'ApplyConfiguration merges an Object{…} with server-side-apply rules; JSONPatch applies a list of RFC 6902 operations.',
        enum: ['ApplyConfiguration', 'JSONPatch'],
        required: true,
      },
      {
        type: 'object',
        name: 'applyConfiguration',
        label: 'Apply configuration',
        help: 'Used when patchType is ApplyConfiguration.',
        hideIf: { sibling: 'patchType', oneOf: ['JSONPatch'] },
        fields: [
          {
            type: 'string',
            name: 'expression',
            label: 'Expression',
            help: 'A CEL expression returning Object{…}, e.g. Object{spec: Object.spec{replicas: 3}}. Atomic lists and maps cannot be set this way.',
            cel: 'map-applyConfiguration',
            multiline: true,
          },
        ],
      },
      {
        type: 'object',
        name: 'jsonPatch',
        label: 'JSON patch',
        help: 'Used when patchType is JSONPatch.',
        hideIf: { sibling: 'patchType', oneOf: ['ApplyConfiguration'] },
        fields: [
          {
            type: 'string',
            name: 'expression',
            label: 'Expression',
            help: 'A CEL expression returning a list of JSONPatch{op, path, value}; escape keys with jsonpatch.escapeKey.',
            cel: 'map-jsonPatch',
            multiline: true,
          },
        ],
      },
    ],
  },
};

export const mutatingAdmissionPolicy: KindSpec = {
  group: GROUP,
  versions: MUTATING_POLICY_VERSIONS,
  kind: 'MutatingAdmissionPolicy',
  summary: 'Mutate requests in the apiserver with CEL, no webhook needed.',
  docUrl: 'https://kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy/',
  fields: [
    metadata,
    {
      type: 'object',
      name: 'spec',
      label: 'Spec',
      help: 'What the policy matches and how it mutates.',
      required: true,
      fields: [
        paramKind,
        matchConstraints,
        variables,
        mutations,
        failurePolicy,
        policyMatchConditions(true),
        {
          type: 'string',
          name: 'reinvocationPolicy',
          label: 'Reinvocation policy',
          help: 'IfNeeded applies the mutations again (at most once) when a later mutation changed the object; Never applies them once. Required.',
          enum: ['Never', 'IfNeeded'],
          required: true,
        },
      ],
    },
  ],
};

const paramRef: ObjectField = {
  type: 'object',
  name: 'paramRef',
  label: 'Param ref',
  help: 'Which parameter resource(s) to use: one by name, or all matching a selector (the policy is evaluated once per param).',
  oneOf: [['name', 'selector']],
  fields: [
    { type: 'string', name: 'name', label: 'Name', help: 'Name of the parameter resource.' },
    {
      type: 'string',
      name: 'namespace',
      label: 'Namespace',
      help: 'Namespace of namespaced params. Unset: the namespace of the request (or cluster-scoped params).',
    },
    labelSelector('selector', 'Selector', 'Params matching these labels, each evaluated. {} matches all params of the kind.'),
    {
      type: 'string',
      name: 'parameterNotFoundAction',
      label: 'Parameter not found action',
      help: 'What happens when no param is found: Deny rejects the request, Allow skips the binding. Required.',
      enum: ['Deny', 'Allow'],
      required: true,
    },
  ],
};

function bindingSpec(validating: boolean): ObjectField {
  return {
    type: 'object',
    name: 'spec',
    label: 'Spec',
    help: 'Which policy applies where, with which params.',
    required: true,
    fields: [
      {
        type: 'string',
        name: 'policyName',
        label: 'Policy name',
        help: 'The name of the policy to bind. Required. A binding to a policy that does not exist does nothing.',
        required: true,
        suggestNamesOf: validating ? 'ValidatingAdmissionPolicy' : 'MutatingAdmissionPolicy',
      },
      paramRef,
      matchResources(
        'matchResources',
        'Match resources',
        "Narrows the policy's matchConstraints for this binding. Unset: everything the policy matches.",
        false,
      ),
      ...(validating
        ? [
            {
              type: 'stringList',
              name: 'validationActions',
              label: 'Validation actions',
              help: 'What a failed validation does: Deny rejects, Warn returns a warning, Audit records it in the audit log. Deny and Warn together are not allowed.',
              enum: ['Deny', 'Warn', 'Audit'],
              required: true,
            } satisfies Field,
          ]
        : []),
    ],
  };
}

export const validatingAdmissionPolicyBinding: KindSpec = {
  group: GROUP,
  versions: VALIDATING_POLICY_VERSIONS,
  kind: 'ValidatingAdmissionPolicyBinding',
  summary: 'Put a ValidatingAdmissionPolicy into effect, with params and scope.',
  docUrl: 'https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/validating-admission-policy-binding-v1/',
  fields: [metadata, bindingSpec(true)],
};

export const mutatingAdmissionPolicyBinding: KindSpec = {
  group: GROUP,
  versions: MUTATING_POLICY_VERSIONS,
  kind: 'MutatingAdmissionPolicyBinding',
  summary: 'Put a MutatingAdmissionPolicy into effect, with params and scope.',
  docUrl: 'https://kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy/',
  fields: [metadata, bindingSpec(false)],
};
