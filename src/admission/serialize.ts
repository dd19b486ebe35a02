/**
 * Objects as the apiserver hands them to a webhook's JSON patch: decoded into the typed Go
 * object and encoded again, so `omitempty` fields that are empty are gone (an empty
 * `metadata.labels: {}` is dropped, so a patch adding `/metadata/labels/x` fails exactly as it
 * does on a cluster) and `null`s are dropped; `metadata` itself is always there (a struct: a
 * TokenReview posted without it reaches a webhook with `metadata: {}`). Built-in kinds only: custom resources are
 * unstructured and kept as they are. And the JSON Patch that turns one object into another
 * (for the changes a MutatingAdmissionPolicy made).
 */
import { cloneJson, isObject, obj, type Obj } from '../base/json';
import { diffJson, formatPointer, parsePointer, type JsonPatchOp } from '../policy';

/** ObjectMeta fields that are maps or lists with omitempty. */
const METADATA_OMITEMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'];

function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
  return out;
}

const isEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/** The object as the apiserver serializes a typed (built-in) object; a copy, the input is unchanged. */
export function serializeTyped(object: unknown): unknown {
  if (!isObject(object)) return cloneJson(object);
  const out = dropNulls(object) as Obj;
  // ObjectMeta is a struct, never omitted: a built-in object always reaches admission with metadata
  const md: Obj = { ...obj(out.metadata) };
  for (const k of METADATA_OMITEMPTY) if (isEmpty(md[k])) delete md[k];
  out.metadata = md;
  return out;
}

/** A JSON Patch (add / remove / replace) from `before` to `after`. */
export function patchBetween(before: unknown, after: unknown): JsonPatchOp[] {
  return diffJson(before, after).map((d) => {
    // keep pointers canonical (diffJson already escapes; re-format defensively)
    const path = formatPointer(parsePointer(d.path) ?? []);
    return d.op === 'remove' ? { op: 'remove', path } : { op: d.op, path, value: d.after };
  });
}
