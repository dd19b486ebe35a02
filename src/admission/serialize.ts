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

/** A copy without nulls (every request's object goes through here: loops, not Object.entries' pairs; a third of the time). */
function dropNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = dropNulls(v[i]);
    return out;
  }
  const o = v as Obj;
  const out: Obj = {};
  for (const k in o) {
    const x = o[k];
    if (x !== null && x !== undefined) out[k] = dropNulls(x);
  }
  return out;
}

const isEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/**
 * The review kinds' struct fields that encoding/json always writes (structs, and fields without
 * omitempty), as the object reaches admission (k8s.io/api v0.37 authentication/v1,
 * authorization/v1 types.go): the apiserver does not fill `status` before admission (the REST
 * handlers compute it after `createValidation`), so a webhook sees the empty status below plus
 * whatever the client posted. By `group/Kind`.
 */
const TYPED_SKELETONS: Readonly<Record<string, Obj>> = {
  'authentication.k8s.io/TokenReview': { spec: {}, status: { user: {} } },
  'authentication.k8s.io/SelfSubjectReview': { status: { userInfo: {} } },
  'authorization.k8s.io/SubjectAccessReview': { spec: {}, status: { allowed: false } },
  'authorization.k8s.io/LocalSubjectAccessReview': { spec: {}, status: { allowed: false } },
  'authorization.k8s.io/SelfSubjectAccessReview': { spec: {}, status: { allowed: false } },
  'authorization.k8s.io/SelfSubjectRulesReview': { spec: {}, status: { resourceRules: null, nonResourceRules: null, incomplete: false } },
};

/** The skeleton's fields the object lacks, added (the object's own values win). */
function withSkeleton(o: Obj, skeleton: Obj): Obj {
  const out: Obj = { ...o };
  for (const [k, v] of Object.entries(skeleton)) {
    if (!(k in out)) out[k] = cloneJson(v);
    else if (isObject(v) && isObject(out[k])) out[k] = withSkeleton(out[k] as Obj, v);
  }
  return out;
}

const groupOf = (apiVersion: unknown): string =>
  typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

/** The object as the apiserver serializes a typed (built-in) object; a copy, the input is unchanged. */
export function serializeTyped(object: unknown): unknown {
  if (!isObject(object)) return cloneJson(object);
  let out = dropNulls(object) as Obj;
  // ObjectMeta is a struct, never omitted: a built-in object always reaches admission with metadata
  const md: Obj = { ...obj(out.metadata) };
  for (const k of METADATA_OMITEMPTY) if (isEmpty(md[k])) delete md[k];
  out.metadata = md;
  const skeleton = TYPED_SKELETONS[`${groupOf(out.apiVersion)}/${String(out.kind)}`];
  if (skeleton) out = withSkeleton(out, skeleton);
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
