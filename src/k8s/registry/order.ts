/**
 * kubectl-like key order for export: apiVersion, kind, metadata, then fields in
 * API order; keys the registry does not know keep their place after the known ones.
 */
import type { Field } from './types';
import { kindSpecOf } from './kinds';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function orderBy(value: unknown, fields: readonly Field[] | undefined): unknown {
  if (Array.isArray(value)) return value;
  if (!isRecord(value) || !fields) return value;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (!(f.name in value)) continue;
    out[f.name] = orderField(value[f.name], f);
  }
  for (const [k, v] of Object.entries(value)) if (!(k in out)) out[k] = v;
  return out;
}

function orderField(value: unknown, field: Field): unknown {
  if (field.type === 'object' && !field.open) return orderBy(value, field.fields);
  if (field.type === 'list' && Array.isArray(value)) return value.map((v) => orderBy(v, field.item.fields));
  return value;
}

/** A copy of the object with keys in API order; unknown kinds are returned as they are. */
export function orderFields(object: unknown): unknown {
  const spec = kindSpecOf(object);
  if (!spec || !isRecord(object)) return object;
  const { apiVersion, kind, ...rest } = object;
  return { apiVersion, kind, ...(orderBy(rest, spec.fields) as Record<string, unknown>) };
}
