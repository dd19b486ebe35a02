export type * from './types';
export { KINDS, apiVersionOf, claimsAdmissionKind, fieldAt, kindSpecOf, servingOfObject, typeMeta, type TypeMeta } from './kinds';
export { LAST_APPLIED_ANNOTATION, RULE_OPERATIONS } from './common';
export { decodeErrors, decoded } from './decode';
export { firstServedIn, servingOf, versionsIn, WEBHOOK_CONFIGURATION_VERSIONS, VALIDATING_POLICY_VERSIONS, MUTATING_POLICY_VERSIONS } from './served';
export { orderFields } from './order';
export { jsonSchemaFor, type JsonSchema } from './schema';
export { serverFieldsOf, stripServerFields } from './server-fields';
export { validatingWebhookConfiguration, mutatingWebhookConfiguration } from './webhooks';
export {
  validatingAdmissionPolicy,
  validatingAdmissionPolicyBinding,
  mutatingAdmissionPolicy,
  mutatingAdmissionPolicyBinding,
} from './policies';
export { configMap, paramSpecOf } from './params';
