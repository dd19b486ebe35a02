/**
 * caBundle inspections for the form and the caBundle lints: inspected in the background
 * (WebCrypto; the X.509 parser loads on first use) and kept by bundle text. When one
 * arrives, derived problems are computed again (the workspace's problemsRevision; the caBundle
 * lints are not memoised, so nothing to drop).
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { inspectCaBundle, type CaBundleInspection } from '../k8s/ca-bundle';
import { workspace } from './workspace';

const MAX_KEPT = 200;
const results = appStore(createStore<{ done: ReadonlyMap<string, CaBundleInspection> }>()(() => ({ done: new Map() })));
const pending = new Set<string>();

function start(caBundle: string): void {
  if (pending.has(caBundle)) return;
  pending.add(caBundle);
  void inspectCaBundle(caBundle)
    .catch((e: unknown): CaBundleInspection => ({ certificates: [], problems: [{ message: `could not inspect: ${String(e)}` }] }))
    .then((r) => {
      pending.delete(caBundle);
      const done = new Map(results.getState().done);
      done.set(caBundle, r);
      while (done.size > MAX_KEPT) done.delete(done.keys().next().value as string);
      results.setState({ done });
      workspace.setState((s) => ({ problemsRevision: s.problemsRevision + 1 }));
    });
}

/** The inspection of a bundle if it is done; starts it otherwise (the caller re-renders when it arrives). */
export function caInspection(caBundle: string): CaBundleInspection | undefined {
  const hit = results.getState().done.get(caBundle);
  if (!hit && caBundle.trim()) start(caBundle);
  return hit;
}

/** The inspection of a bundle, for a component (undefined while it runs). */
export function useCaInspection(caBundle: string): CaBundleInspection | undefined {
  const hit = useStore(results, (s) => s.done.get(caBundle));
  if (!hit && caBundle.trim()) start(caBundle);
  return hit;
}
