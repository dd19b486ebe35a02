/**
 * The object a denied patch request would have produced (the log then has no `responseObject`):
 * the request's patch applied to the old object, its type inferred from the body (JSON Patch,
 * strategic merge patch on built-in resources, merge patch on custom resources). README.md
 * ("What a log holds, and what the replay makes of it").
 */
import { applyJsonPatch, type JsonPatchOp } from '../base/jsonpatch';
import { cloneJson, isObject, type Obj } from '../base/json';

/** `patchMergeKey` of the built-in types' lists that merge (k8s.io/api, `patchStrategy:"merge"`). */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  ports: 'containerPort',
  hostAliases: 'ip',
  conditions: 'type',
  ownerReferences: 'uid',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
};

/** Primitive lists with `patchStrategy:"merge"`: the patch's items are added (a set union). */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

export type PatchKind = 'json-patch' | 'strategic-merge-patch' | 'merge-patch';

export type PatchResult = { ok: true; object: unknown; kind: PatchKind } | { ok: false; error: string; kind: PatchKind };

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const out: Obj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function mergeList(field: string, live: unknown, patch: unknown[]): unknown[] {
  const key = MERGE_KEYS[field];
  const liveList = Array.isArray(live) ? live : [];
  if (patch.some((p) => isObject(p) && p.$patch === 'replace'))
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace')).map((p) => strategicMerge(undefined, p));
  if (key && patch.every(isObject)) {
    const out = liveList.map((x) => x);
    for (const p of patch as Obj[]) {
      const at = out.findIndex((x) => isObject(x) && x[key] === p[key]);
      if (p.$patch === 'delete') {
        if (at >= 0) out.splice(at, 1);
      } else if (at >= 0) out[at] = strategicMerge(out[at], p);
      else out.push(strategicMerge(undefined, p));
    }
    return out;
  }
  if (MERGED_PRIMITIVE_LISTS.has(field)) return [...liveList, ...patch.filter((p) => !liveList.includes(p))];
  return patch.map((p) => strategicMerge(undefined, p));
}

/** A strategic merge patch on a built-in object (see the module comment for what is covered). */
export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _, ...rest } = patch;
    return strategicMerge(undefined, rest);
  }
  const out: Obj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.includes(x));
      continue;
    }
    if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = mergeList(k, out[k], v);
    else out[k] = strategicMerge(out[k], v);
  }
  return out;
}

/** Applies a patch request's body to the old object, inferring its type (module comment). */
export function applyPatchBody(oldObject: unknown, body: unknown, builtIn: boolean): PatchResult {
  if (Array.isArray(body)) {
    const r = applyJsonPatch(oldObject, body as JsonPatchOp[], { json: true });
    // the patch handler fails on a failed test as on any other error (handlers/patch.go)
    if (r.ok && r.testFailed) return { ok: false, error: `testing value ${r.testFailed.path} failed: test failed`, kind: 'json-patch' };
    return r.ok ? { ok: true, object: r.value, kind: 'json-patch' } : { ok: false, error: r.error, kind: 'json-patch' };
  }
  if (!isObject(body)) return { ok: false, error: 'the patch is neither a JSON object nor a JSON array', kind: 'merge-patch' };
  return builtIn
    ? { ok: true, object: strategicMerge(oldObject, body), kind: 'strategic-merge-patch' }
    : { ok: true, object: mergePatch(oldObject, body), kind: 'merge-patch' };
}
