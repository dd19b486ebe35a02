/**
 * Create-time validation of the six admissionregistration.k8s.io kinds, one
 * module per concern (names, metadata, selectors, rules, webhooks, policies,
 * bindings, CEL). Entry point for callers: ../validate.ts `validate(object)`.
 *
 * Not modelled: metadata.managedFields checks (the field manager rewrites them on
 * create), the RBAC check on paramKind/paramRef, and update-only ratcheting.
 * What the registry's strategy adds per release (the `.static.k8s.io` suffix, create warnings): strategy.ts.
 */
export {
  validateMutatingAdmissionPolicyBinding,
  validateParamRef,
  validatePolicyName,
  validateValidatingAdmissionPolicyBinding,
  validateValidationActions,
} from './bindings';
export { base64DecodeError } from './base64';
export { validateCELExpression, type CelEnv, type Variable } from './cel';
export { validateMatchConditions } from './match-conditions';
export { validateMatchResources } from './match-resources';
export { effectiveName, validateObjectMeta } from './metadata';
export { StaticConfigSuffix, strategyChecks } from './strategy';
export * from './names';
export { parseGroupVersion, validateParamKind } from './param-kind';
export {
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicySpec,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicySpec,
} from './policies';
export { validateNamedRuleWithOperations, validateResources, validateRuleWithOperations } from './rules';
export { validateLabels, validateLabelSelector } from './selectors';
export { parseGoURL, type GoURL } from './url';
export {
  isFullyQualifiedName,
  validateClientConfig,
  validateMutatingWebhookConfiguration,
  validateValidatingWebhookConfiguration,
  validateWebhookService,
  validateWebhookURL,
} from './webhooks';
