/**
 * Render path segments in the one path language (./path.ts): the exact inverse of
 * parsePath. A string segment is a map key (`[key]`) when its parent is a map field
 * of the field registry (labels, annotations, matchLabels: every `stringMap` field)
 * or when it could not be read back as a field name (it is empty or holds `.`, `[`
 * or `]`); otherwise it is a field (`.name`). Numbers are list indexes.
 */
import { fieldPath, type FieldPath, type PathSegment } from './path';

/**
 * Names of the map fields of the field registry: their entries are map keys. Kept here as data
 * so that the bottom layer needs no registry; `src/k8s/path-format.test.ts` checks it equals
 * every `stringMap` field of the registry.
 */
export const MAP_FIELD_NAMES: ReadonlySet<string> = new Set(['labels', 'annotations', 'matchLabels']);

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
