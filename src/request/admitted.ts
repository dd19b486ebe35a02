/**
 * A test input with its objects as the apiserver hands them to admission (src/k8s/typed
 * `apiserverObject`): the request's object and old object decoded as the request's kind, a
 * param and the Namespace as their own kinds, at the input's release (`kubernetesVersion`,
 * else the default one). Objects already built that way are kept (the simulator decodes once).
 * The policy runs, the CEL editor's test inputs and the CEL cases go through here; the simulator
 * decodes in its context (src/admission/simulate.ts contextOf) with the same function.
 */
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { apiserverObject, isAdmitted, kindOfObject, loadTypedData, type GroupVersionKind } from '../k8s/typed';
import type { TestInput } from './model';

const cache = new WeakMap<TestInput, Map<KubernetesVersion, TestInput>>();

const decoded = (v: unknown, release: KubernetesVersion, gvk?: GroupVersionKind): unknown =>
  v === undefined || v === null || isAdmitted(v) ? v : apiserverObject(v, release, gvk ?? kindOfObject(v)).object;

const NAMESPACE: GroupVersionKind = { group: '', version: 'v1', kind: 'Namespace' };

const requestKind = (input: TestInput): GroupVersionKind | undefined => {
  const k = input.request.kind;
  return k?.kind && k.version ? { group: k.group ?? '', version: k.version, kind: k.kind } : undefined;
};

/**
 * An object of the input's request kind as the apiserver decodes it (a mutation's result: the
 * mutating plugins decode and default the patched object again), at the input's release; its
 * data must be loaded (admittedInput loads it).
 */
export const admittedObject = (
  object: unknown,
  input: TestInput,
  release: KubernetesVersion = input.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION,
): unknown => decoded(object, release, requestKind(input));

/** The input with its objects decoded (the data of `release` must be loaded: see admittedInput). */
export function admittedInputNow<T extends TestInput>(input: T, release: KubernetesVersion = input.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION): T {
  let byRelease = cache.get(input);
  const hit = byRelease?.get(release);
  if (hit) return hit as T;
  const r = input.request;
  const kind = requestKind(input);
  const object = decoded(r.object, release, kind);
  const oldObject = decoded(r.oldObject, release, kind);
  const params = decoded(input.params, release);
  const namespaceObject = decoded(input.namespaceObject, release, NAMESPACE);
  let out: T = input;
  if (object !== r.object || oldObject !== r.oldObject || params !== input.params || namespaceObject !== input.namespaceObject) {
    const request = { ...r };
    if (r.object !== undefined) request.object = object;
    if (r.oldObject !== undefined) request.oldObject = oldObject;
    out = { ...input, request };
    if (input.params !== undefined) out.params = params;
    if (input.namespaceObject !== undefined) out.namespaceObject = namespaceObject;
  }
  if (!byRelease) cache.set(input, (byRelease = new Map()));
  byRelease.set(release, out);
  return out;
}

/** The input with its objects as the apiserver of its release hands them to admission. */
export async function admittedInput<T extends TestInput>(
  input: T,
  release: KubernetesVersion = input.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION,
): Promise<T> {
  await loadTypedData(release);
  return admittedInputNow(input, release);
}
