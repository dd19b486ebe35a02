/**
 * What the callers of src/k8s/typed need before a release's decoder is loaded: the types, a
 * kind from an object's apiVersion/kind, and the mark on objects apiserverObject built.
 */
export interface GroupVersionKind {
  group?: string;
  version: string;
  kind: string;
}

export interface ApiserverObject {
  /** The object as admission sees it (a copy; the input is never changed). */
  object: unknown;
  /** Whether the kind is built in (decoded into its Go type). */
  typed: boolean;
  /** Why the apiserver would refuse to decode the object (each with its field path); empty when it decodes. */
  problems: string[];
}

/** The group/version/kind an object names (`apiVersion`, `kind`), or undefined. */
export function kindOfObject(object: unknown): GroupVersionKind | undefined {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const { apiVersion, kind } = object as Record<string, unknown>;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1), kind };
}

const admitted = new WeakSet<object>();

/**
 * Whether `o` is an object apiserverObject built (or one marked so): passed through again, it
 * is kept as it is (the chain's objects are decoded once; a webhook's patch result again).
 */
export const isAdmitted = (o: unknown): boolean => typeof o === 'object' && o !== null && admitted.has(o);

/** Marks an object derived from an admitted one as admitted (the simulator's version-converted copies). */
export function markAdmitted<T>(o: T): T {
  if (typeof o === 'object' && o !== null) admitted.add(o);
  return o;
}
