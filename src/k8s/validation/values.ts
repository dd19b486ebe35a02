/**
 * Reading untyped (decoded YAML/JSON) values the way Go's decoder would see them,
 * without ever throwing. A value of the wrong JSON type is a decode error that the
 * registry-driven decode check reports; validation skips it instead of guessing.
 *
 * Conventions used throughout this folder:
 * - absent (`undefined` or `null`) is Go's zero value / nil pointer;
 * - `typeof v === 'string'` etc. guards every semantic check;
 * - anything else is skipped silently (never a second, duplicate type error).
 */

import { isObject, type Obj } from '../../base/json';

export { byteLength, isObject, trimSpace, type Obj } from '../../base/json';

/** JSON `null` or a missing key: Go's nil pointer / zero value. */
export const isAbsent = (v: unknown): v is null | undefined => v === undefined || v === null;

/** A Go `string` field: absent → "", a string → itself, another type → undefined (not ours to check). */
export const goString = (v: unknown): string | undefined => (isAbsent(v) ? '' : typeof v === 'string' ? v : undefined);

/** A Go slice field: absent → [], an array → itself, another type → undefined (not ours to check). */
export const goList = (v: unknown): readonly unknown[] | undefined => (isAbsent(v) ? [] : Array.isArray(v) ? v : undefined);

/** A Go struct pointer: an object, or undefined for absent and for wrong types alike (check `isAbsent` to tell them apart). */
export const goObject = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);

/**
 * A Go struct value (a list element, a non-pointer field): JSON null leaves the
 * zero struct in place, so absent reads as `{}`; another type is undefined.
 */
export const goStruct = (v: unknown): Obj | undefined => (isObject(v) ? v : isAbsent(v) ? {} : undefined);

/** A Go int32 field: an integral number in range, else undefined (a decode error). */
export const goInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : undefined);
