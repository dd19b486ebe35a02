/**
 * The domain: field registry, decoding, defaulting and validation of the six
 * admission kinds. Pure TypeScript; runs in Node and in the browser.
 */
export * from './registry';
export * from './errors';
export * from './path';
export { getIn, setIn, insertAt, removeAt, moveAt, clone } from './edit';
export { TEMPLATES, sampleWorkspace } from './templates';
export { validate, type ValidateOptions } from './validate-all';
export { withDefaults } from './defaults';
export { lint, LINT_RULES, type Lint } from './lints';
export { isClusterScoped, kindForResource, minimalObject } from './resources';
