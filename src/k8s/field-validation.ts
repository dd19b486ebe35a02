/**
 * The field validation directive of a write (`?fieldValidation=`): what the apiserver does with
 * unknown and duplicate fields. kubectl apply/create/replace send Strict (`--validate=strict`, its
 * default), so an unknown field fails the request before any validation; Warn (the apiserver's
 * own default when a client sends none, client-go's typed clients among them) turns each into a
 * warning; Ignore drops them silently. Texts are k8s.io/apimachinery's strict decoding error and
 * k8s.io/apiserver's create handler (endpoints/handlers/create.go, rest.go transformDecodeError),
 * as the apiserver answers them (tools/admission-oracle TestFieldValidation).
 */
import type { FieldError } from './errors';
import type { DuplicateKey } from '../yaml';
import { isObject } from '../base/json';
import { parsePath, type PathSegment } from '../base/path';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export const FIELD_VALIDATIONS: readonly FieldValidation[] = ['Strict', 'Warn', 'Ignore'];

/** What kubectl sends (the workspace's and the CLI's default). */
export const DEFAULT_FIELD_VALIDATION: FieldValidation = 'Strict';

export const isFieldValidation = (v: unknown): v is FieldValidation => typeof v === 'string' && (FIELD_VALIDATIONS as readonly string[]).includes(v);

/** What each mode means, for the setting's menu and the docs. */
export const FIELD_VALIDATION_HELP: Readonly<Record<FieldValidation, string>> = {
  Strict: 'kubectl (apply, create, replace): an unknown or duplicate field fails the request with "strict decoding error"',
  Warn: "the apiserver's default for clients that send no directive: each unknown or duplicate field is a warning",
  Ignore: 'kubectl --validate=false: unknown fields are dropped and the last of duplicate keys wins, silently',
};

/** Whether a decoder answer is an unknown field (the strict decoder's violations). */
export const isUnknownField = (e: FieldError): boolean => e.message.startsWith('unknown field "');

/**
 * How the body orders an object's keys, which is the order of the violations: `sorted` for what
 * kubectl sends (JSON encoded from a map, keys sorted at every level by Go's encoding/json) and for
 * YAML bodies (the apiserver converts them to JSON the same way); `document` for a JSON body sent
 * as written.
 */
export type BodyOrder = 'sorted' | 'document';

/** Go's order of map keys (byte-wise; UTF-16 order agrees on the ASCII of field names), indices by number. */
function compareSegments(a: readonly PathSegment[], b: readonly PathSegment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** The violations in the order the apiserver's strict decoder meets them in the body. */
export function inBodyOrder<T extends { field: string }>(violations: readonly T[], order: BodyOrder = 'sorted'): T[] {
  if (order === 'document') return [...violations];
  const keyed = violations.map((v) => ({ v, path: parsePath(v.field) }));
  return keyed.sort((x, y) => compareSegments(x.path, y.path)).map((k) => k.v);
}

/**
 * The apiserver's answer to a Strict write with these violations (`unknown field "x"`):
 * HTTP 400 BadRequest, nothing else checked. undefined when there are none.
 */
export function strictDecodingError(object: unknown, violations: readonly FieldError[], order: BodyOrder = 'sorted'): string | undefined {
  const list = inBodyOrder(violations.filter(isUnknownField), order);
  if (list.length === 0 || !isObject(object)) return undefined;
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${list.map((e) => e.message).join(', ')}`;
}

/** The apiserver's words for a key given twice: a YAML body's decoder names the line, a JSON body's the field path. */
export const duplicateKeyText = (d: DuplicateKey): string =>
  d.syntax === 'json' ? `duplicate field ${JSON.stringify(d.path)}` : `line ${d.line}: key ${JSON.stringify(d.key)} already set in map`;

/**
 * The apiserver's answer to a Strict write of a body with these keys given twice (HTTP 400), as
 * for unknown fields; a YAML body's are listed under `yaml: unmarshal errors:`, one a line.
 */
export function strictDuplicateError(object: unknown, duplicates: readonly DuplicateKey[]): string | undefined {
  if (duplicates.length === 0 || !isObject(object)) return undefined;
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  const yaml = duplicates.filter((d) => d.syntax === 'yaml');
  const list = yaml.length ? `yaml: unmarshal errors:\n${yaml.map((d) => `  ${duplicateKeyText(d)}`).join('\n')}` : duplicates.map(duplicateKeyText).join(', ');
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${list}`;
}

export interface DuplicateKeyFinding {
  duplicate: DuplicateKey;
  severity: 'error' | 'warning';
  message: string;
  hint: string;
}

/**
 * What the mode makes of keys given twice (the object holds the last value, as the apiserver
 * reads it): Strict refuses the object (an error each, in the apiserver's words), Warn warns as
 * the apiserver does, Ignore says nothing.
 */
export function duplicateKeyFindings(object: unknown, duplicates: readonly DuplicateKey[], mode: FieldValidation): DuplicateKeyFinding[] {
  if (mode === 'Ignore' || duplicates.length === 0) return [];
  if (mode === 'Warn') {
    return duplicates.map((d) => ({
      duplicate: d,
      severity: 'warning',
      message: duplicateKeyText(d),
      hint: `With fieldValidation=Warn the apiserver keeps the last value with this warning. ${d.message}.`,
    }));
  }
  const request = strictDuplicateError(object, duplicates);
  return duplicates.map((d) => ({
    duplicate: d,
    severity: 'error',
    message: duplicateKeyText(d),
    hint: `kubectl sends fieldValidation=Strict: the apiserver refuses the object before validating it${request ? ` (HTTP 400: "${request}")` : ''}. ${d.message}: remove one of the two.`,
  }));
}
