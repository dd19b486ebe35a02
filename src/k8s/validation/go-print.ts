/**
 * Invalid values printed as the apiserver prints them. field.Error prints a bad value that
 * is not a plain string, number or boolean as JSON since Kubernetes 1.34 (k8s.io/apimachinery
 * v0.34 `ErrorBody`: json.Marshal), and with Go's `%#v` before: a list as
 * `[]string{"*", "CREATE"}`, a typed list with its Go type (`[]admissionregistration.OperationType{...}`).
 * These helpers give the JSON message and remember the `%#v` one for older targets
 * (`olderPrinting`, used by releases.ts).
 */
import { goJSON, invalid, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';

/** Go's %q for the values seen here (JSON quoting agrees for printable text). */
const quote = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? 'nil'));

/** `%#v` of a slice of strings (or of a named string type). */
export const goSlice = (goType: string, list: readonly unknown[]): string => `[]${goType}{${list.map(quote).join(', ')}}`;

/** `%#v` of a flat struct with string fields, e.g. `admissionregistration.AuditAnnotation{Key:"a", ValueExpression:"b"}`. */
export const goStruct = (goType: string, fields: readonly (readonly [string, unknown])[]): string =>
  `${goType}{${fields.map(([k, v]) => `${k}:${quote(v ?? '')}`).join(', ')}}`;

/** The message of an error as releases before 1.34 print it (bad value in `%#v`), when it differs. */
const before134 = new WeakMap<FieldError, string>();
export const olderPrinting = (e: FieldError): string | undefined => before134.get(e);

/**
 * field.Invalid(path, value, detail): the value printed as JSON (1.34 on; `json` is what
 * json.Marshal sees, e.g. an internal struct with Go field names) and as `printed` (`%#v`) before.
 */
export function invalidPrinted(path: FieldPath, value: unknown, printed: string, detail: string, json: unknown = value): FieldError {
  const tail = detail ? `: ${detail}` : '';
  const e = { ...invalid(path, value, detail), message: `Invalid value: ${goJSON(json)}${tail}` };
  const old = `Invalid value: ${printed}${tail}`;
  if (old !== e.message) before134.set(e, old);
  return e;
}

/** field.Invalid for a string slice of Go type `[]goType`. */
export const invalidSlice = (path: FieldPath, goType: string, list: readonly unknown[], detail: string): FieldError =>
  invalidPrinted(path, list, goSlice(goType, list), detail);
