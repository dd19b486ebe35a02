/**
 * The document checks (./problems: the apiserver's validation, the lints and their fixes, the
 * static manifest set, Gatekeeper's and Kyverno's structure) as a chunk of their own. The first
 * form needs none of them (its first render shows no problems, DocumentView), so they load after
 * it instead of with the first scripts: main.tsx asks for them right after the first paint, and
 * the views that show problems re-render when they are in (problemsRevision).
 */
import { workspace } from './workspace';

type Checks = typeof import('./problems');

let loaded: Checks | undefined;
let loading: Promise<Checks> | undefined;

/** Load the checks (once; a failed load is tried again by the next call). */
export function loadChecks(): Promise<Checks> {
  loading ??= import('./problems').then(
    (m) => {
      loaded = m;
      workspace.setState((s) => ({ problemsRevision: s.problemsRevision + 1 }));
      return m;
    },
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/** The checks once loaded; undefined before (a view then shows its problems as still to come). */
export const checks = (): Checks | undefined => loaded;
