/**
 * ObjectMeta on create for the six cluster-scoped admission kinds:
 * genericvalidation.ValidateObjectMeta(meta, false, NameIsDNSSubdomain, "metadata")
 * (k8s.io/apimachinery/pkg/api/validation/objectmeta.go).
 *
 * Before validation the apiserver generates a name from generateName (cut to 58
 * bytes + 5 random characters) and clears metadata.namespace (cluster-scoped), so
 * a namespace is never an error here. managedFields are not checked (see README notes in index.ts).
 */
import { append, invalid, required, tooLong, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { isQualifiedName, nameIsDNSSubdomain } from './names';
import { validateLabels } from './selectors';
import { byteLength, goList, goObject, goString, goStruct, isObject } from './values';
import { invalidSlice } from './go-print';

export const TotalAnnotationSizeLimitB = 256 * (1 << 10);

/** The 5 random characters the apiserver appends (its alphabet contains 'x'). */
const GENERATED_SUFFIX = 'xxxxx';
const maxGeneratedNameLength = 63 - GENERATED_SUFFIX.length;

/** The name the object will have when validated: metadata.name, or one generated from metadata.generateName. */
export function effectiveName(meta: unknown): string {
  const m = goObject(meta);
  const name = goString(m?.name) ?? '';
  if (name !== '') return name;
  const generateName = goString(m?.generateName) ?? '';
  if (generateName === '') return '';
  return generateName.slice(0, maxGeneratedNameLength) + GENERATED_SUFFIX;
}

/** ValidateAnnotations: keys are qualified names once lower-cased; total size ≤ 256 KiB. */
export function validateAnnotations(annotations: unknown, path: FieldPath): FieldError[] {
  if (!isObject(annotations)) return [];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += byteLength(k) + (typeof v === 'string' ? byteLength(v) : 0);
  }
  if (total > TotalAnnotationSizeLimitB) errs.push(tooLong(path, TotalAnnotationSizeLimitB));
  return errs;
}

/** schema.ParseGroupVersion, as FromAPIVersionAndKind uses it (an unparsable apiVersion yields an empty version). */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/** validateOwnerReference (apimachinery v0.37; older words: validation/releases.ts). */
function validateOwnerReference(ref: unknown, path: FieldPath): FieldError[] {
  const r = goStruct(ref);
  if (!r) return [];
  const errs: FieldError[] = [];
  const apiVersion = goString(r.apiVersion);
  const kind = goString(r.kind);
  const gv = apiVersion === undefined ? undefined : parseGroupVersion(apiVersion);
  if (apiVersion === '') errs.push(required(path.child('apiVersion'), 'must not be empty'));
  else if (gv && gv.version === '') errs.push(invalid(path.child('apiVersion'), apiVersion, 'must be <group>/<version> or <version>'));
  if (kind === '') errs.push(required(path.child('kind'), 'must not be empty'));
  if (goString(r.name) === '') errs.push(required(path.child('name'), 'must not be empty'));
  if (goString(r.uid) === '') errs.push(required(path.child('uid'), 'must not be empty'));
  if (gv && gv.group === '' && gv.version === 'v1' && kind === 'Event') errs.push(invalid(path, r, '/v1, Kind=Event is disallowed from being an owner'));
  return errs;
}

/** ValidateOwnerReferences */
export function validateOwnerReferences(refs: unknown, path: FieldPath): FieldError[] {
  const list = goList(refs);
  if (!list) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const [i, ref] of list.entries()) {
    append(errs, validateOwnerReference(ref, path.index(i)));
    const r = goObject(ref);
    if (r?.controller === true) {
      const current = `${goString(r.kind) ?? ''}/${goString(r.name) ?? ''}`;
      if (firstController !== '')
        errs.push(invalid(path, list, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      else firstController = current;
    }
  }
  return errs;
}

/** ValidateFinalizers: each a qualified name (path without index); not both orphan and foregroundDeletion. */
export function validateFinalizers(finalizers: unknown, path: FieldPath): FieldError[] {
  const list = goList(finalizers);
  if (!list) return [];
  const errs: FieldError[] = [];
  for (const f of list) if (typeof f === 'string') for (const msg of isQualifiedName(f)) errs.push(invalid(path, f, msg));
  if (list.includes('orphan') && list.includes('foregroundDeletion'))
    errs.push(invalidSlice(path, 'string', list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  return errs;
}

/** ValidateObjectMeta(meta, requiresNamespace=false, NameIsDNSSubdomain) after name generation. */
export function validateObjectMeta(meta: unknown, path: FieldPath): FieldError[] {
  const m = goStruct(meta);
  if (!m) return []; // a decode error, not ours
  const errs: FieldError[] = [];
  const generateName = goString(m.generateName);
  if (generateName) for (const msg of nameIsDNSSubdomain(generateName, true)) errs.push(invalid(path.child('generateName'), generateName, msg));
  if (goString(m.name) !== undefined) {
    const name = effectiveName(m);
    if (name === '') errs.push(required(path.child('name'), 'name or generateName is required'));
    else for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(path.child('name'), name, msg));
  }
  append(errs, validateLabels(m.labels, path.child('labels')));
  append(errs, validateAnnotations(m.annotations, path.child('annotations')));
  append(errs, validateOwnerReferences(m.ownerReferences, path.child('ownerReferences')));
  append(errs, validateFinalizers(m.finalizers, path.child('finalizers')));
  return errs;
}
