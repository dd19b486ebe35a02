/**
 * Field errors as the apiserver reports them (k8s.io/apimachinery field.Error):
 * a type, the field path and a message. Made by small helpers so validation
 * code reads like the spec: `required(p.child('name'))`, `notSupported(p, v, [...])`.
 */
import type { FieldPath } from '../base/path';

export type ErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'Duplicate' | 'TooMany' | 'TooLong' | 'Forbidden';

export interface FieldError {
  type: ErrorType;
  /** The field path in apiserver form: `webhooks[0].clientConfig.url`. */
  field: string;
  /** The message as the apiserver words it, without the leading path. */
  message: string;
  /** Absent means 'error'. Warnings are what the apiserver would accept with a warning (or strict decoding would reject, e.g. unknown fields). */
  severity?: 'error' | 'warning';
  /** Our own plain-language hint, shown under the message. */
  hint?: string;
}

/** How the apiserver prints a value inside a message: strings quoted, everything else as JSON-ish Go %v. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * Go's json.Marshal of a value, as the apiserver prints bad values that are not plain strings,
 * numbers or booleans since Kubernetes 1.34 (lists, structs, named string types such as
 * OperationType): compact, with <, >, & and U+2028/U+2029 escaped.
 */
export const goJSON = (value: unknown): string =>
  (JSON.stringify(value) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const err = (type: ErrorType, path: FieldPath | string, message: string): FieldError => ({
  type,
  field: String(path),
  message,
});

export const required = (path: FieldPath | string, detail = ''): FieldError => err('Required', path, detail ? `Required value: ${detail}` : 'Required value');

export const invalid = (path: FieldPath | string, value: unknown, detail: string): FieldError =>
  err('Invalid', path, `Invalid value: ${formatValue(value)}${detail ? `: ${detail}` : ''}`);

/**
 * `supported` is printed in the order given (the apiserver sorts most lists; pass them sorted).
 * The values are of named string types (OperationType, FailurePolicyType, …), printed as JSON.
 */
export const notSupported = (path: FieldPath | string, value: unknown, supported: readonly string[]): FieldError =>
  err(
    'NotSupported',
    path,
    `Unsupported value: ${typeof value === 'string' ? goJSON(value) : formatValue(value)}${supported.length ? `: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : ''}`,
  );

export const duplicate = (path: FieldPath | string, value: unknown): FieldError => err('Duplicate', path, `Duplicate value: ${formatValue(value)}`);

export const tooMany = (path: FieldPath | string, actual: number, max: number): FieldError =>
  err('TooMany', path, `Too many: ${actual}: must have at most ${max} items`);

export const tooLong = (path: FieldPath | string, max: number): FieldError => err('TooLong', path, `Too long: may not be more than ${max} bytes`);

export const forbidden = (path: FieldPath | string, detail: string): FieldError => err('Forbidden', path, `Forbidden: ${detail}`);

/** The same error as a warning. */
export const asWarning = (e: FieldError): FieldError => ({ ...e, severity: 'warning' });

/**
 * Go's `allErrs = append(allErrs, more...)`. A loop rather than `errs.push(...more)`: V8 runs
 * a spread call through its generic builtins even when `more` is empty, as most lists
 * validation appends are (about 20 per webhook; 8–10 % of the instructions of a never-seen
 * 1,000-webhook workspace's validation, counted with valgrind).
 */
export function append(errs: FieldError[], more: readonly FieldError[]): void {
  for (let i = 0; i < more.length; i++) errs.push(more[i]!);
}
