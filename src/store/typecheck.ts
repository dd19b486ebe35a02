/**
 * Type checking of the workspace's ValidatingAdmissionPolicies (what kube-controller-manager
 * writes into status.typeChecking), for the problems list and the CEL editor's markers: done
 * in the background and kept per policy object, release and the workspace's
 * CustomResourceDefinition schemas. The checker (src/check/typecheck.ts) and a release's
 * schema asset load on the first check, not with the page. When a result arrives, derived
 * problems are computed again (problemsRevision), as for caBundle inspections.
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { KubernetesVersion } from '../base';
import { isObject, str } from '../base/json';
import type { TypeCheckProblem } from '../check/typecheck';
import { workspace } from './workspace';

interface Kept {
  key: string;
  problems: readonly TypeCheckProblem[];
}

const done = new WeakMap<object, Kept>();
const pending = new WeakMap<object, string>();
/** Bumped when a result arrives (components that show the warnings of one policy subscribe). */
const revision = appStore(createStore<{ n: number }>()(() => ({ n: 0 })));

const isPolicy = (o: unknown): o is Record<string, unknown> =>
  isObject(o) && o.kind === 'ValidatingAdmissionPolicy' && str(o.apiVersion).startsWith('admissionregistration.k8s.io/');

/** What a result depends on besides the policy: the release and the CRDs' schemas (one key per workspace objects array). */
const crdKeys = new WeakMap<readonly unknown[], string>();
function contextKey(objects: readonly unknown[], release: KubernetesVersion): string {
  let k = crdKeys.get(objects);
  if (k === undefined) {
    k = JSON.stringify(objects.filter((o) => isObject(o) && o.kind === 'CustomResourceDefinition').map((o) => (o as Record<string, unknown>).spec));
    crdKeys.set(objects, k);
  }
  return `${release}\n${k}`;
}

function start(policy: Record<string, unknown>, objects: readonly unknown[], release: KubernetesVersion, key: string): void {
  if (pending.get(policy) === key) return;
  pending.set(policy, key);
  void import('../check/typecheck')
    .then(({ typeCheckWorkspace }) =>
      typeCheckWorkspace([policy, ...objects.filter((o) => isObject(o) && o.kind === 'CustomResourceDefinition')], { kubernetesVersion: release }),
    )
    .then(
      (r) => r[0] ?? [],
      () => [],
    )
    .then((problems) => {
      if (pending.get(policy) !== key) return;
      pending.delete(policy);
      const before = done.get(policy);
      done.set(policy, { key, problems });
      if (before?.key === key && JSON.stringify(before.problems) === JSON.stringify(problems)) return;
      revision.setState((s) => ({ n: s.n + 1 }));
      workspace.setState((s) => ({ problemsRevision: s.problemsRevision + 1 }));
    });
}

const NONE: readonly TypeCheckProblem[] = [];

/** The last result of a document, shown while the next one runs (no flicker while typing). */
const lastOf = new Map<string, readonly TypeCheckProblem[]>();
const MAX_LAST = 500;

/**
 * The type-checking warnings of a policy at a release if they are known. `start` (the document
 * is open) starts the check otherwise, and the problems are computed again when it arrives:
 * the schemas load when a policy is first opened, not with the page and its sidebar counts.
 * Until then the document's previous result stands.
 */
export function typeCheckProblems(
  docId: string,
  object: unknown,
  objects: readonly unknown[],
  release: KubernetesVersion,
  startIt: boolean,
): readonly TypeCheckProblem[] {
  if (!isPolicy(object)) return NONE;
  const key = contextKey(objects, release);
  const hit = done.get(object);
  if (hit?.key === key) {
    lastOf.delete(docId);
    lastOf.set(docId, hit.problems);
    while (lastOf.size > MAX_LAST) lastOf.delete(lastOf.keys().next().value as string);
    return hit.problems;
  }
  if (startIt) start(object, objects, release, key);
  return lastOf.get(docId) ?? NONE;
}

/** For components: re-render when any type check arrives. */
export const useTypeCheckRevision = (): number => useStore(revision, (s) => s.n);
