/**
 * Render path segments in the one path language (./path.ts): the exact inverse of
 * parsePath. A string segment is a map key (`[key]`) when its parent is a map field
 * of the field registry (labels, annotations, matchLabels: every `stringMap` field)
 * or when it could not be read back as a field name (it is empty or holds `.`, `[`
 * or `]`); otherwise it is a field (`.name`). Numbers are list indexes.
 */
import { fieldPath, type FieldPath, type PathSegment } from './path';
import { KINDS } from './registry/kinds';
import type { Field } from './registry/types';

function mapFieldNames(): Set<string> {
  const names = new Set<string>();
  const walk = (fields: readonly Field[]): void => {
    for (const f of fields) {
      if (f.type === 'stringMap') names.add(f.name);
      else if (f.type === 'object') walk(f.fields);
      else if (f.type === 'list') walk(f.item.fields);
    }
  };
  for (const k of KINDS) walk(k.fields);
  return names;
}

/** Names of the registry's map fields: their entries are map keys. */
export const MAP_FIELD_NAMES: ReadonlySet<string> = mapFieldNames();

const FIELD_NAME = /^[^.[\]]+$/;

/** Render segments as a path: `['metadata', 'labels', 'app']` → `metadata.labels[app]`. */
export function formatPath(segments: readonly PathSegment[]): string {
  let p: FieldPath = fieldPath();
  let parent: PathSegment | undefined;
  for (const s of segments) {
    if (typeof s === 'number') p = p.index(s);
    else p = (typeof parent === 'string' && MAP_FIELD_NAMES.has(parent)) || !FIELD_NAME.test(s) ? p.key(s) : p.child(s);
    parent = s;
  }
  return String(p);
}
