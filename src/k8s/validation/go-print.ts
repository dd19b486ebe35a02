/**
 * Invalid values printed as the apiserver prints them. field.Error falls back to
 * Go's `%#v` for values that are not strings, numbers or booleans, so a list
 * shows as `[]string{"*", "CREATE"}` and a typed list with its Go type
 * (`[]admissionregistration.OperationType{...}`). The shared `invalid` helper
 * prints JSON instead; these wrappers keep its type and path and fix the text.
 */
import { invalid, type FieldError } from '../errors';
import type { FieldPath } from '../path';

/** Go's %q for the values seen here (JSON quoting agrees for printable text). */
const quote = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'nil');

/** `%#v` of a slice of strings (or of a named string type). */
export const goSlice = (goType: string, list: readonly unknown[]): string => `[]${goType}{${list.map(quote).join(', ')}}`;

/** `%#v` of a flat struct with string fields, e.g. `admissionregistration.AuditAnnotation{Key:"a", ValueExpression:"b"}`. */
export const goStruct = (goType: string, fields: readonly (readonly [string, unknown])[]): string =>
  `${goType}{${fields.map(([k, v]) => `${k}:${quote(v ?? '')}`).join(', ')}}`;

/** field.Invalid(path, value, detail) where `value` is printed with `%#v` as `printed`. */
export function invalidPrinted(path: FieldPath, value: unknown, printed: string, detail: string): FieldError {
  return { ...invalid(path, value, detail), message: `Invalid value: ${printed}${detail ? `: ${detail}` : ''}` };
}

/** field.Invalid for a string slice of Go type `[]goType`. */
export const invalidSlice = (path: FieldPath, goType: string, list: readonly unknown[], detail: string): FieldError =>
  invalidPrinted(path, list, goSlice(goType, list), detail);
