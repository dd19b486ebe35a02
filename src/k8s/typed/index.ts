/**
 * The object the kube-apiserver hands to admission (object.ts `apiserverObject`), from generated
 * per-release type data (data.ts). The decoder and each release's data are chunks of their own,
 * loaded by `loadTypedData` (the first load of the app carries only this file and kinds.ts);
 * the functions that need them throw until then.
 */
import type { KubernetesVersion } from '../../base/releases';
import { loadTypedData as loadData, typedDataLoaded as dataLoaded } from './data';
import type { ApiserverObject, GroupVersionKind } from './kinds';
import type * as Decoder from './object';

export { isAdmitted, kindOfObject, markAdmitted, type ApiserverObject, type GroupVersionKind } from './kinds';

let decoder: typeof Decoder | undefined;

/** Loads the decoder and a release's data (once; later calls answer at once). */
export async function loadTypedData(release: KubernetesVersion): Promise<void> {
  if (decoder && dataLoaded(release)) return;
  const [m] = await Promise.all([import('./object'), loadData(release)]);
  decoder = m;
}

export const typedDataLoaded = (release: KubernetesVersion): boolean => !!decoder && dataLoaded(release);

function loaded(): typeof Decoder {
  if (!decoder) throw new Error('the apiserver decoder is not loaded (await loadTypedData(release) first)');
  return decoder;
}

/** `object` as the apiserver of `release` hands it to admission (object.ts; `from`: the admitted object it was patched from). */
export const apiserverObject = (object: unknown, release: KubernetesVersion, gvk?: GroupVersionKind, from?: unknown): ApiserverObject =>
  loaded().apiserverObject(object, release, gvk, from);

/** Whether the release has `kind` built in (its objects are decoded into a Go type). */
export const isBuiltInKind = (gvk: GroupVersionKind, release: KubernetesVersion): boolean => loaded().isBuiltInKind(gvk, release);

/** Whether two built-in kinds have the same Go shape, so that converting between them changes only the apiVersion (object.ts). */
export const sameShape = (a: GroupVersionKind, b: GroupVersionKind, release: KubernetesVersion): boolean => loaded().sameShape(a, b, release);
