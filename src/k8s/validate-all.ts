/**
 * validate(object): everything the apiserver would say about an object on
 * create — the decoder's complaints first (wrong JSON types, unknown fields by the
 * field validation directive: options.fieldValidation), then defaulting and the kind's validation rules (validateRules).
 */
import type { FieldError } from './errors';
import { decodeErrors } from './registry';
import { validateRules, type ValidateOptions } from './validate';

export type { ValidateOptions };

export function validate(object: unknown, options?: ValidateOptions): FieldError[] {
  return [...decodeErrors(object, options?.fieldValidation), ...validateRules(object, options)];
}
