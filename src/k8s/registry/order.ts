/**
 * kubectl-like key order for export: apiVersion, kind, metadata, then fields in
 * API order; keys the registry does not know keep their place after the known ones.
 */
import type { Field } from './types';
import { kindSpecOf } from './kinds';
import { isObject } from '../../base/json';

/** Rank of each field name in API order, built once per fields array. */
const rankCache = new WeakMap<readonly Field[], Map<string, number>>();
function ranks(fields: readonly Field[]): Map<string, number> {
  let m = rankCache.get(fields);
  if (!m) rankCache.set(fields, (m = new Map(fields.map((f, i) => [f.name, i]))));
  return m;
}

/**
 * Objects known to be in API order, per fields array. Objects are immutable: after a form edit
 * of one webhook of 200, only the edited branch is walked again.
 */
const inOrderCache = new WeakMap<readonly Field[], WeakSet<object>>();

/** The value with keys in API order; the same object when nothing moves (most edits), so unchanged branches stay shared. */
function orderBy(value: unknown, fields: readonly Field[] | undefined): unknown {
  if (Array.isArray(value) || !isObject(value) || !fields) return value;
  let known = inOrderCache.get(fields);
  if (!known) inOrderCache.set(fields, (known = new WeakSet()));
  if (known.has(value)) return value;
  const ordered = orderKeys(value, fields);
  known.add(ordered);
  return ordered;
}

function orderKeys(value: Record<string, unknown>, fields: readonly Field[]): Record<string, unknown> {
  const rank = ranks(fields);
  const keys = Object.keys(value);
  let last = -1;
  let inOrder = true;
  for (const k of keys) {
    const r = rank.get(k) ?? Infinity; // unknown keys belong after the known ones
    if (r < last) {
      inOrder = false;
      break;
    }
    last = r;
  }
  const order = inOrder ? keys : [...keys].sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity)); // stable
  let out: Record<string, unknown> | undefined = inOrder ? undefined : {};
  for (let i = 0; i < order.length; i++) {
    const k = order[i];
    const f = fields[rank.get(k) ?? -1];
    const v = f ? orderField(value[k], f) : value[k];
    if (!out && v !== value[k]) {
      out = {};
      for (let j = 0; j < i; j++) out[order[j]] = value[order[j]];
    }
    if (out) out[k] = v;
  }
  return out ?? value;
}

function orderField(value: unknown, field: Field): unknown {
  if (field.type === 'object' && !field.open) return orderBy(value, field.fields);
  if (field.type === 'list' && Array.isArray(value)) {
    const next = value.map((v) => orderBy(v, field.item.fields));
    return next.some((v, i) => v !== value[i]) ? next : value;
  }
  return value;
}

/** A copy of the object with keys in API order; unknown kinds are returned as they are. */
export function orderFields(object: unknown): unknown {
  const spec = kindSpecOf(object);
  if (!spec || !isObject(object)) return object;
  const { apiVersion, kind, ...rest } = object;
  return { apiVersion, kind, ...(orderBy(rest, spec.fields) as Record<string, unknown>) };
}
