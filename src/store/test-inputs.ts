/**
 * The one store of test inputs (src/request's model): per workspace document its test input
 * draft (shared by the CEL editor's Test areas, the matchConditions view and the policy run),
 * its saved CEL cases (per expression path) and policy cases; the simulator's draft and its
 * saved scenarios. Saved under one key; the two v1 stores are migrated once on first load.
 *
 * For share links and the CLI: `getTestsData()` / `setTestsData(data)` give and take all of
 * it as plain JSON (src/request/saved.ts `TestsData`; `readSavedTests` normalises input).
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { CelInputs } from '../cel/types';
import type { PolicyTestCase } from '../policy/cases';
import {
  admittedInputNow,
  CEL_TESTS_V1_KEY,
  POLICY_TESTS_V1_KEY,
  defaultDraftFor,
  emptyDocTests,
  migrateV1,
  readSavedTests,
  toCelInputs,
  toSaved,
  toTestInput,
  type CelCase,
  type DraftError,
  type TestInput,
  type DocTests,
  type Scenario,
  type SimulatorDraft,
  type TestInputDraft,
  type TestsData,
} from '../request';
import { autosave, readJSON } from './autosave';
import type { WorkspaceBackend } from './persist';
import { workspace } from './workspace';
import { typedDataLoaded } from '../k8s/typed';

export const TEST_INPUTS_STORAGE_KEY = 'admission-workbench/test-inputs/v2';

export interface TestInputsActions {
  setDraft(docId: string, draft: TestInputDraft): void;
  resetDraft(docId: string): void;
  addCelCase(docId: string, path: string, c: CelCase): void;
  updateCelCase(docId: string, path: string, id: string, patch: Partial<Omit<CelCase, 'id'>>): void;
  removeCelCase(docId: string, path: string, id: string): void;
  setOpen(docId: string, path: string, open: boolean): void;
  /** Add a policy case (one with the same name is replaced). */
  savePolicyCase(docId: string, c: PolicyTestCase): void;
  deletePolicyCase(docId: string, name: string): void;
  setSimulator(draft: SimulatorDraft): void;
  /** Add a scenario (one with the same name is replaced). */
  saveScenario(s: Scenario): void;
  updateScenario(id: string, patch: Partial<Omit<Scenario, 'id'>>): void;
  removeScenario(id: string): void;
  /** Forget the documents that no longer exist. */
  prune(docIds: ReadonlySet<string>): void;
}

export type TestInputs = TestsData & TestInputsActions;

export function createTestInputs(initial: TestsData = { docs: {}, scenarios: [] }) {
  return createStore<TestInputs>()((set) => {
    const mapDoc = (docId: string, f: (d: DocTests) => DocTests) => set((s) => ({ docs: { ...s.docs, [docId]: f(s.docs[docId] ?? emptyDocTests()) } }));
    const mapCases = (docId: string, path: string, f: (cs: CelCase[]) => CelCase[]) =>
      mapDoc(docId, (d) => ({ ...d, celCases: { ...d.celCases, [path]: f(d.celCases[path] ?? []) } }));
    return {
      ...initial,
      setDraft: (docId, draft) => mapDoc(docId, (d) => ({ ...d, draft })),
      resetDraft: (docId) =>
        mapDoc(docId, (d) => {
          const { draft: _dropped, ...rest } = d;
          return rest;
        }),
      addCelCase: (docId, path, c) => mapCases(docId, path, (cs) => [...cs, c]),
      updateCelCase: (docId, path, id, patch) => mapCases(docId, path, (cs) => cs.map((c) => (c.id === id ? { ...c, ...patch } : c))),
      removeCelCase: (docId, path, id) => mapCases(docId, path, (cs) => cs.filter((c) => c.id !== id)),
      setOpen: (docId, path, open) =>
        mapDoc(docId, (d) => ({ ...d, open: open ? (d.open.includes(path) ? d.open : [...d.open, path]) : d.open.filter((p) => p !== path) })),
      savePolicyCase: (docId, c) => mapDoc(docId, (d) => ({ ...d, policyCases: [...d.policyCases.filter((x) => x.name !== c.name), c] })),
      deletePolicyCase: (docId, name) => mapDoc(docId, (d) => ({ ...d, policyCases: d.policyCases.filter((x) => x.name !== name) })),
      setSimulator: (simulator) => set({ simulator }),
      saveScenario: (sc) => set((s) => ({ scenarios: [...s.scenarios.filter((x) => x.name !== sc.name), sc] })),
      updateScenario: (id, patch) => set((s) => ({ scenarios: s.scenarios.map((x) => (x.id === id ? { ...x, ...patch } : x)) })),
      removeScenario: (id) => set((s) => ({ scenarios: s.scenarios.filter((x) => x.id !== id) })),
      prune: (ids) =>
        set((s) => {
          const gone = Object.keys(s.docs).filter((id) => !ids.has(id));
          if (!gone.length) return s;
          const docs = { ...s.docs };
          for (const id of gone) delete docs[id];
          return { docs };
        }),
    };
  });
}

export type TestInputsStore = ReturnType<typeof createTestInputs>;

/** The app's one store of test inputs. */
export const testInputs: TestInputsStore = appStore(createTestInputs());

export function useTestInputs<T>(selector: (s: TestInputs) => T): T {
  return useStore(testInputs, selector);
}

// ---------------------------------------------------------------------------
// Plain data in and out (share links, CLI)

/** Everything saved, as plain JSON-able data. */
export function getTestsData(store: TestInputsStore = testInputs): TestsData {
  const { docs, scenarios, simulator } = store.getState();
  return { docs, scenarios, ...(simulator ? { simulator } : {}) };
}

/** Replace everything (e.g. from a share link); pass it through `readSavedTests` first when it comes from outside. */
export function setTestsData(data: TestsData, store: TestInputsStore = testInputs): void {
  store.setState({ docs: data.docs, scenarios: data.scenarios, simulator: data.simulator });
}

// ---------------------------------------------------------------------------
// Persistence: the workspace's IndexedDB store (src/store/idb.ts, its own key), so a large case
// set cannot hit localStorage's quota. Earlier versions kept test inputs in localStorage (the v2
// key, before it the two v1 keys): moved to the backend on the first load.

/** The saved data in localStorage (earlier versions): the v2 key, or else the two v1 stores (migrated); undefined when there is none. */
export function loadTestInputs(storage: Pick<Storage, 'getItem'>): { data: TestsData; migrated: boolean } | undefined {
  const v2 = readSavedTests(readJSON(storage, TEST_INPUTS_STORAGE_KEY));
  if (v2) return { data: v2, migrated: false };
  const cel = readJSON(storage, CEL_TESTS_V1_KEY);
  const policy = readJSON(storage, POLICY_TESTS_V1_KEY);
  if (cel === undefined && policy === undefined) return undefined;
  return { data: { docs: migrateV1(cel, policy), scenarios: [] }, migrated: true };
}

export const serializeTestInputs = (data: TestsData): string => JSON.stringify(toSaved(data));

/** The localStorage key test inputs use where IndexedDB cannot be opened (not the v2 key, which is migrated away). */
export const TEST_INPUTS_FALLBACK_KEY = 'admission-workbench/test-inputs/v3';

/**
 * The saved test inputs: those an earlier version left in localStorage (moved to the backend,
 * and removed from localStorage once written), else the backend's; undefined when there are none.
 */
export async function restoreTestInputs(backend: WorkspaceBackend, storage: Pick<Storage, 'getItem' | 'removeItem'>): Promise<TestsData | undefined> {
  const legacy = loadTestInputs(storage);
  if (legacy) {
    try {
      await backend.write(serializeTestInputs(legacy.data));
      for (const key of [TEST_INPUTS_STORAGE_KEY, CEL_TESTS_V1_KEY, POLICY_TESTS_V1_KEY]) storage.removeItem(key);
    } catch {
      // Kept where it is; the next load tries again.
    }
    return legacy.data;
  }
  try {
    const text = await backend.read();
    return text ? readSavedTests(JSON.parse(text)) : undefined;
  } catch {
    return undefined;
  }
}

/** Save after every change (debounced). Returns a function that stops autosaving and flushes. */
export function startTestInputsAutosave(store: TestInputsStore, backend: WorkspaceBackend, delayMs = 250, onError?: (e: Error) => void): () => void {
  return autosave(
    store,
    () => backend.write(serializeTestInputs(getTestsData(store))),
    (s, prev) => s.docs !== prev.docs || s.scenarios !== prev.scenarios || s.simulator !== prev.simulator,
    { delayMs, onError },
  );
}

/**
 * Restore the saved test inputs (migrating what earlier versions left in localStorage) and
 * autosave to `backend` from now on. Called once at start-up (main.tsx), after the workspace
 * is restored: data of documents that no longer exist is dropped.
 */
export async function persistTestInputs(backend: WorkspaceBackend, storage: Pick<Storage, 'getItem' | 'removeItem'>): Promise<() => void> {
  const saved = await restoreTestInputs(backend, storage);
  if (saved) {
    const s = testInputs.getState();
    testInputs.setState({ docs: { ...saved.docs, ...s.docs }, scenarios: [...saved.scenarios, ...s.scenarios], simulator: s.simulator ?? saved.simulator });
    testInputs.getState().prune(new Set(workspace.getState().docs.map((d) => d.id)));
  }
  const notify = (e: Error) =>
    workspace.getState().notify({ level: 'error', text: `Saving test inputs failed (${e.name}): download the workspace file (Share…) to keep them.` });
  return startTestInputsAutosave(testInputs, backend, 250, notify);
}

// ---------------------------------------------------------------------------
// Reading a document's inputs

const docObject = (docId: string): unknown => workspace.getState().docs.find((d) => d.id === docId)?.object;

/** A document's test input draft: the saved one, or the defaults from its rules. */
export function draftOf(docId: string, document: unknown = docObject(docId)): TestInputDraft {
  return testInputs.getState().docs[docId]?.draft ?? defaultDraftFor(document);
}

/** The same, in React: re-renders when the draft or the document changes. */
export function useDraft(docId: string): { draft: TestInputDraft; edited: boolean } {
  const saved = useTestInputs((s) => s.docs[docId]?.draft);
  const object = useStore(workspace, (s) => s.docs.find((d) => d.id === docId)?.object);
  return { draft: saved ?? defaultDraftFor(object), edited: !!saved };
}

const NO_CEL_CASES: CelCase[] = [];
const NO_POLICY_CASES: PolicyTestCase[] = [];

export const useCelCases = (docId: string, path: string): CelCase[] => useTestInputs((s) => s.docs[docId]?.celCases[path] ?? NO_CEL_CASES);
export const useTestOpen = (docId: string, path: string): boolean => useTestInputs((s) => s.docs[docId]?.open.includes(path) ?? false);
export function usePolicyCases(docId: string): PolicyTestCase[] {
  return useTestInputs((s) => s.docs[docId]?.policyCases ?? NO_POLICY_CASES);
}

/** A draft as the engine and the runs read it: the TestInput, its CEL inputs (one object per draft) and what did not parse. */
export function convertDraft(draft: TestInputDraft): { input: TestInput; cel: CelInputs; errors: DraftError[] } {
  const { input: given, errors } = toTestInput(draft);
  // the objects as the target release's apiserver decodes them (its type data loads with the engine: src/store/cel.ts)
  const release = workspace.getState().kubernetesVersion;
  const input = typedDataLoaded(release) ? admittedInputNow(given, release) : given;
  return { input, cel: toCelInputs(input), errors };
}
