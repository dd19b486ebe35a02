/**
 * What "agree" means between validate() and the apiserver's create path (the Go
 * validation oracle), for one object:
 *
 * 1. The oracle's decoder refused the object (a JSON type the Go struct cannot take,
 *    caBundle that is not base64, …): validate() must report at least one
 *    decoder-class error (an error from decodeErrors(), or the caBundle base64 error).
 *    Messages are not compared: the Go decoder's text is not a field error.
 * 2. The oracle does not know the kind in that release ("no kind … is registered",
 *    e.g. MutatingAdmissionPolicy in 1.30): validate() must report an error at `apiVersion`.
 * 3. Otherwise: the multiset of errors must be equal, each as `field|Type|message`
 *    where message is the apiserver's error body (field.Error.ErrorBody(): type
 *    string, bad value and detail, exactly as the client sees it). validate()'s
 *    errors at `apiVersion` (is this version served by default — the scheme decodes
 *    every version it knows, so the oracle cannot say) are left out, and validate()
 *    must have no decoder-class error.
 * 4. When the apiserver accepts the object, its create warnings (the strategy's
 *    WarningsOnCreate: the .static.k8s.io suffix, rules naming resources webhooks never
 *    see) must be validate()'s registry warnings, as `field: message` (the multiset; the
 *    decoder's warnings, such as unknown fields, are not the strategy's and are left out).
 */
import type { FieldError } from '../../src/k8s/errors';

export interface OracleError {
  type: string;
  typeString: string;
  field: string;
  detail: string;
  error: string;
}

export interface OracleResult {
  index: number;
  kind?: string;
  name?: string;
  decodeError?: string;
  errors: OracleError[];
  warnings?: string[];
}

/** The oracle's field.ErrorType → our ErrorType. */
const TYPES: Readonly<Record<string, string>> = {
  FieldValueRequired: 'Required',
  FieldValueInvalid: 'Invalid',
  FieldValueNotSupported: 'NotSupported',
  FieldValueDuplicate: 'Duplicate',
  FieldValueTooMany: 'TooMany',
  FieldValueTooLong: 'TooLong',
  FieldValueForbidden: 'Forbidden',
  FieldValueNotFound: 'NotFound',
  InternalError: 'Internal',
  FieldValueTypeInvalid: 'TypeInvalid',
};

export const oracleLine = (e: OracleError): string => {
  const body = e.error.startsWith(`${e.field}: `) ? e.error.slice(e.field.length + 2) : e.error;
  return `${e.field}|${TYPES[e.type] ?? e.type}|${body}`;
};

export const ourLine = (e: FieldError): string => `${e.field}|${e.type}|${e.message}`;

export interface Ours {
  /** validate()'s error-severity errors. */
  errors: FieldError[];
  /** Those of them the decoder would raise (decodeErrors(), caBundle base64). */
  decodeClass: FieldError[];
  /** validate()'s warnings that are not the decoder's, as `field: message`. */
  warnings: string[];
}

export interface Disagreement {
  why: string;
  /** In the oracle, not in ours. */
  missing: string[];
  /** In ours, not in the oracle. */
  extra: string[];
}

/** Multiset difference a − b. */
function minus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    else out.push(x);
  }
  return out;
}

/** undefined = they agree. */
export function compare(oracle: OracleResult, ours: Ours): Disagreement | undefined {
  if (oracle.decodeError !== undefined && /^no kind ".*" is registered/.test(oracle.decodeError)) {
    return ours.errors.some((e) => e.field === 'apiVersion')
      ? undefined
      : { why: `the release has no such kind (${oracle.decodeError}); validate() reports no apiVersion error`, missing: [], extra: ours.errors.map(ourLine) };
  }
  if (oracle.decodeError !== undefined) {
    return ours.decodeClass.length > 0
      ? undefined
      : { why: `the apiserver's decoder refuses it: ${oracle.decodeError}; validate() reports no decoder error`, missing: [], extra: ours.errors.map(ourLine) };
  }
  if (ours.decodeClass.length > 0)
    return {
      why: 'validate() reports a decoder error, the apiserver decodes it',
      missing: oracle.errors.map(oracleLine),
      extra: ours.decodeClass.map(ourLine),
    };
  const theirs = oracle.errors.map(oracleLine);
  const mine = ours.errors.filter((e) => e.field !== 'apiVersion').map(ourLine);
  const missing = minus(theirs, mine);
  const extra = minus(mine, theirs);
  if (missing.length || extra.length) return { why: 'different field errors', missing, extra };
  if (theirs.length > 0) return undefined;
  const theirWarnings = oracle.warnings ?? [];
  const missingWarnings = minus(theirWarnings, ours.warnings);
  const extraWarnings = minus(ours.warnings, theirWarnings);
  return missingWarnings.length || extraWarnings.length ? { why: 'different create warnings', missing: missingWarnings, extra: extraWarnings } : undefined;
}
