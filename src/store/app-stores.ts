/**
 * The app's module-level stores, one of each per page. A test run that shares one module graph
 * across test files (vitest.config.ts, the "shared" project) starts each file from their first
 * state (`resetAppStores`, vitest.shared-setup.ts), so that no file passes or fails on what the
 * files before it left: a release picked, a document opened, a report kept.
 */
/** What a zustand store offers for it (methods, so that a store of any state is one). */
interface Resettable {
  setState(state: unknown, replace: true): void;
  getInitialState(): unknown;
}

const stores = new Set<Resettable>();

/** Registers a module-level store (a store made per component or per test is not registered). */
export function appStore<S extends Resettable>(store: S): S {
  stores.add(store);
  return store;
}

/** Puts every registered store back to its first state. */
export function resetAppStores(): void {
  for (const s of stores) s.setState(s.getInitialState(), true);
}
