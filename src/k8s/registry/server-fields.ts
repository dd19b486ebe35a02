/** Fields the server populates (status, managedFields, uid, …), found through the registry. */
import { LAST_APPLIED_ANNOTATION } from './common';
import { kindSpecOf } from './kinds';
import type { Field } from './types';
import { isObject } from '../../base/json';

function serverNames(fields: readonly Field[]): string[] {
  return fields.filter((f) => f.server).map((f) => f.name);
}

/** Paths of server-populated fields present in the object (top level and metadata), plus the last-applied annotation. */
export function serverFieldsOf(object: unknown): string[] {
  const spec = kindSpecOf(object);
  if (!spec || !isObject(object)) return [];
  const found = serverNames(spec.fields).filter((n) => n in object);
  const meta = object.metadata;
  const metaField = spec.fields.find((f) => f.name === 'metadata');
  if (isObject(meta) && metaField?.type === 'object') {
    found.push(
      ...serverNames(metaField.fields)
        .filter((n) => n in meta)
        .map((n) => `metadata.${n}`),
    );
    if (isObject(meta.annotations) && LAST_APPLIED_ANNOTATION in meta.annotations) {
      found.push(`metadata.annotations[${LAST_APPLIED_ANNOTATION}]`);
    }
  }
  return found;
}

/** A copy without server-populated fields (an empty annotations map left behind is removed too). */
export function stripServerFields(object: unknown): unknown {
  const spec = kindSpecOf(object);
  if (!spec || !isObject(object)) return object;
  const top = new Set(serverNames(spec.fields));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) if (!top.has(k)) out[k] = v;
  const metaField = spec.fields.find((f) => f.name === 'metadata');
  if (isObject(object.metadata) && metaField?.type === 'object') {
    const drop = new Set(serverNames(metaField.fields));
    const meta: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(object.metadata)) if (!drop.has(k)) meta[k] = v;
    if (isObject(meta.annotations) && LAST_APPLIED_ANNOTATION in meta.annotations) {
      const { [LAST_APPLIED_ANNOTATION]: _dropped, ...annotations } = meta.annotations;
      if (Object.keys(annotations).length) meta.annotations = annotations;
      else delete meta.annotations;
    }
    out.metadata = meta;
  }
  return out;
}
