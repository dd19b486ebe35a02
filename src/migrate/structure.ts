/**
 * The structural check of a custom resource, as the apiserver applies its CRD's openAPIV3Schema:
 * wrong JSON types and missing required fields are errors (the object is rejected), unknown
 * fields warnings (the apiserver prunes them; kubectl's strict field validation rejects them),
 * values outside an enum errors. The schema is data (a CRD's schema, or a template's parameter
 * schema a user wrote), so anything malformed in it is read as "no constraint here".
 */
import { isObject } from '../base/json';
import type { FieldPath } from '../base/path';
import { asWarning, invalid, notSupported, required, type FieldError } from '../k8s/errors';

export type Schema = Record<string, unknown>;

const jsonType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

/** The schema's errors for `value` at `path`, appended to `out`. */
export function checkStructure(value: unknown, schema: unknown, path: FieldPath, out: FieldError[]): void {
  if (!isObject(schema) || value === undefined) return;
  if (value === null) {
    if (schema.nullable === true || typeof schema.type !== 'string') return;
    out.push(invalid(path, null, `must be of type ${schema.type}, not null`));
    return;
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value)))
      out.push(invalid(path, value, `must be an integer or a string, not ${jsonType(value)}`));
    return;
  }
  const type = typeof schema.type === 'string' ? schema.type : undefined;
  if (type && !hasType(value, type)) {
    out.push(invalid(path, value, `must be of type ${type}, not ${jsonType(value)}`));
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) {
    out.push(notSupported(path, value, schema.enum.map(String)));
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkStructure(v, schema.items, path.index(i), out));
    return;
  }
  if (!isObject(value) || schema['x-kubernetes-embedded-resource'] === true) return;
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof name === 'string' && value[name] === undefined) out.push(required(path.child(name)));
  }
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  const open = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(value)) {
    const child = properties?.[key];
    if (child !== undefined) checkStructure(value[key], child, path.child(key), out);
    else if (isObject(additional)) checkStructure(value[key], additional, path.key(key), out);
    else if (additional === true || open || (!properties && additional === undefined)) continue;
    else {
      const p = path.child(key);
      out.push({
        ...asWarning(invalid(p, value[key], '')),
        message: `unknown field "${String(p)}"`,
        hint: 'The apiserver drops fields its CRD does not define, and kubectl apply (strict field validation) rejects them. Check the spelling and the indentation.',
      });
    }
  }
}

/**
 * `value` with what the schema does not define left out, as the apiserver prunes a custom
 * resource (the fields checkStructure calls unknown); the rest as it is.
 */
export function pruned(value: unknown, schema: unknown): unknown {
  if (!isObject(schema) || value === null || value === undefined || schema['x-kubernetes-int-or-string'] === true) return value;
  if (Array.isArray(value)) return value.map((v) => pruned(v, schema.items));
  if (!isObject(value) || schema['x-kubernetes-embedded-resource'] === true) return value;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  const open = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const child = properties?.[key];
    if (child !== undefined) out[key] = pruned(v, child);
    else if (isObject(additional)) out[key] = pruned(v, additional);
    else if (additional === true || open || (!properties && additional === undefined)) out[key] = v;
  }
  return out;
}
