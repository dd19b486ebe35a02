/**
 * The object the kube-apiserver hands to admission (object.ts `apiserverObject`), from
 * generated per-release type data (data.ts, loaded per release with `loadTypedData`).
 */
export { apiserverObject, isAdmitted, isBuiltInKind, kindOfObject, markAdmitted, type ApiserverObject, type GroupVersionKind } from './object';
export { loadTypedData, typedDataLoaded } from './data';
export { canonicalQuantity } from './quantity';
