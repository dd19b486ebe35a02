/**
 * convertToV1: an old admissionregistration object (v1beta1 webhook configurations,
 * v1alpha1/v1beta1 policies and bindings) as v1, keeping its behaviour: where the old version's
 * defaults differ from v1's, the old default is written out. Pure. README.md ("Defaulting and
 * conversion").
 */
import { withDefaults } from './defaults';
import { cloneJson, deepEqual, isObject, type Obj } from '../base/json';
import { fieldPath, type FieldPath } from '../base/path';
import { kindSpecOf } from './registry/kinds';

export interface Conversion {
  /** The v1 object (the input itself when there is nothing to convert). */
  object: unknown;
  /** What changed, for the user: the apiVersion, each default made explicit, what to choose. */
  notes: string[];
}

/** Fields whose old default v1 no longer accepts: never carried over, the user chooses. */
const V1_FORBIDS_OLD_DEFAULT: Readonly<Record<string, { allowed: readonly string[] }>> = {
  sideEffects: { allowed: ['None', 'NoneOnDryRun'] },
};

const absent = (v: unknown): boolean => v === undefined || v === null;
const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

interface Walk {
  version: string;
  notes: string[];
}

/** `value` with the old defaults that v1 would not give made explicit (copy-on-write). */
function explicit(value: unknown, oldD: unknown, newD: unknown, path: FieldPath, w: Walk): unknown {
  const emptyList = Array.isArray(value) && value.length === 0 && Array.isArray(oldD) && oldD.length > 0;
  if (absent(value) || emptyList) {
    if (absent(oldD) || deepEqual(oldD, newD)) return value;
    w.notes.push(`${String(path)}: ${show(oldD)} (the ${w.version} default${absent(newD) ? '; v1 has none' : `; v1 would default to ${show(newD)}`})`);
    return cloneJson(oldD);
  }
  if (isObject(value) && isObject(oldD)) {
    let out: Obj | undefined;
    for (const key of Object.keys(oldD)) {
      if (Object.hasOwn(V1_FORBIDS_OLD_DEFAULT, key)) continue;
      const next = explicit(value[key], oldD[key], isObject(newD) ? newD[key] : undefined, path.child(key), w);
      if (next !== value[key]) (out ??= { ...value })[key] = next;
    }
    return out ?? value;
  }
  if (Array.isArray(value) && Array.isArray(oldD) && value.some(isObject)) {
    let out: unknown[] | undefined;
    value.forEach((x, i) => {
      const next = explicit(x, oldD[i], Array.isArray(newD) ? newD[i] : undefined, path.index(i), w);
      if (next !== x) (out ??= value.slice())[i] = next;
    });
    return out ?? value;
  }
  return value;
}

/** Notes for the fields v1 forbids the old value of (webhooks[i].sideEffects). */
function choicesLeft(object: Obj, oldDefaulted: Obj, version: string): string[] {
  const notes: string[] = [];
  const hooks = Array.isArray(object.webhooks) ? object.webhooks : [];
  hooks.forEach((h, i) => {
    const hook = isObject(h) ? h : {};
    const defaulted = Array.isArray(oldDefaulted.webhooks) && isObject(oldDefaulted.webhooks[i]) ? oldDefaulted.webhooks[i] : {};
    for (const [key, { allowed }] of Object.entries(V1_FORBIDS_OLD_DEFAULT)) {
      const value = hook[key] ?? defaulted[key];
      if (absent(value) || allowed.includes(String(value))) continue;
      const was = absent(hook[key]) ? `unset (${version} defaulted it to ${show(value)})` : show(value);
      notes.push(`${String(fieldPath('webhooks').index(i).child(key))}: ${was}; v1 accepts only ${allowed.join(' or ')}: choose one`);
    }
  });
  return notes;
}

/** The object as admissionregistration.k8s.io/v1, keeping its behaviour; notes say what was made explicit. */
export function convertToV1(object: unknown): Conversion {
  const spec = kindSpecOf(object);
  if (!spec || !isObject(object)) return { object, notes: [] };
  const target = spec.versions[0]!.name;
  const from = String(object.apiVersion);
  const version = from.slice(spec.group.length + 1);
  if (version === target) return { object, notes: [] };
  const v1 = { ...object, apiVersion: `${spec.group}/${target}` };
  const oldDefaulted = withDefaults(object) as Obj;
  const newDefaulted = withDefaults(v1);
  const w: Walk = { version, notes: [] };
  const converted = explicit(v1, oldDefaulted, newDefaulted, fieldPath(), w) as Obj;
  return {
    object: converted,
    notes: [`apiVersion: ${from} → ${spec.group}/${target}`, ...w.notes, ...choicesLeft(object, oldDefaulted, version)],
  };
}

/** The object's apiVersion is an old one convertToV1 would change. */
export const canConvertToV1 = (object: unknown): boolean => convertToV1(object).object !== object;
