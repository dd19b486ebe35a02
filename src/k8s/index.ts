/**
 * The domain: field registry, decoding, defaulting and validation of the six
 * admission kinds. Pure TypeScript; runs in Node and in the browser.
 */
export * from './registry';
export * from './errors';
export { getIn, setIn, insertAt, removeAt, moveAt, clone } from './edit';
export { TEMPLATES, sampleWorkspace } from './templates';
export { validate, type ValidateOptions } from './validate-all';
export { withDefaults } from './defaults';
export { lint, LINT_RULES, type Lint } from './lints';
export { isClusterScoped, kindForResource, minimalObject } from './resources';
export { lintCaBundles, caBundleLints, caBundleSites, type LintOptions } from './lints';
export { inspectCaBundle, relativeTime, type CaBundleInspection, type CertificateInfo, type CaBundleProblem } from './ca-bundle';
export { fixesForError, paramValue, type Fix, type FixInput, type FixParam, type FixResult } from './fixes';
export { convertToV1, canConvertToV1, type Conversion } from './convert';
export {
  DEFAULT_FIELD_VALIDATION,
  FIELD_VALIDATIONS,
  FIELD_VALIDATION_HELP,
  duplicateKeyFindings,
  duplicateKeyText,
  isFieldValidation,
  inBodyOrder,
  strictDecodingError,
  strictDuplicateError,
  type BodyOrder,
  type DuplicateKeyFinding,
  type FieldValidation,
} from './field-validation';
