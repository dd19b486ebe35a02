/**
 * The one store of test inputs (src/request's model): per workspace document its test input
 * draft (shared by the CEL editor's Test areas, the matchConditions view and the policy run),
 * its saved CEL cases (per expression path) and policy cases; the simulator's draft and its
 * saved scenarios. Saved under one key; the two v1 stores are migrated once on first load.
 *
 * For share links and the CLI: `getTestsData()` / `setTestsData(data)` give and take all of
 * it as plain JSON (src/request/saved.ts `TestsData`; `readSavedTests` normalises input).
 */
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { CelInputs } from '../cel/types';
import type { PolicyTestCase } from '../policy/cases';
import {
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
import { workspace } from './workspace';

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
export const testInputs: TestInputsStore = createTestInputs();

export function useTestInputs<T>(selector: (s: TestInputs) => T): T {
  return useStore(testInputs, selector);
}

// ---------------------------------------------------------------------------
// Plain data in and out (share links, CLI)

/** Everything saved, as plain JSON-able data. */
export function getTestsData(store: TestInputsStore = testInputs): TestsData {
  if (store === testInputs) ensureTestInputs();
  const { docs, scenarios, simulator } = store.getState();
  return { docs, scenarios, ...(simulator ? { simulator } : {}) };
}

/** Replace everything (e.g. from a share link); pass it through `readSavedTests` first when it comes from outside. */
export function setTestsData(data: TestsData, store: TestInputsStore = testInputs): void {
  // The saved data is read first, so that it is replaced (not merged in later).
  if (store === testInputs) ensureTestInputs();
  store.setState({ docs: data.docs, scenarios: data.scenarios, simulator: data.simulator });
}

// ---------------------------------------------------------------------------
// Persistence

/** The saved data: the v2 key, or else what the two v1 stores held (migrated); undefined when there is none. */
export function loadTestInputs(storage: Pick<Storage, 'getItem'>): { data: TestsData; migrated: boolean } | undefined {
  const v2 = readSavedTests(readJSON(storage, TEST_INPUTS_STORAGE_KEY));
  if (v2) return { data: v2, migrated: false };
  const cel = readJSON(storage, CEL_TESTS_V1_KEY);
  const policy = readJSON(storage, POLICY_TESTS_V1_KEY);
  if (cel === undefined && policy === undefined) return undefined;
  return { data: { docs: migrateV1(cel, policy), scenarios: [] }, migrated: true };
}

export const serializeTestInputs = (data: TestsData): string => JSON.stringify(toSaved(data));

/** Save after every change (debounced). Returns a function that stops autosaving and flushes. */
export function startTestInputsAutosave(store: TestInputsStore, storage: Pick<Storage, 'setItem'>, delayMs = 250, onError?: (e: Error) => void): () => void {
  return autosave(
    store,
    (s) => storage.setItem(TEST_INPUTS_STORAGE_KEY, serializeTestInputs(getTestsData(store))),
    (s, prev) => s.docs !== prev.docs || s.scenarios !== prev.scenarios || s.simulator !== prev.simulator,
    { delayMs, onError },
  );
}

let persisting = false;
/**
 * Restore the saved test inputs (migrating the v1 stores the first time) and autosave from
 * now on. Browser only; idempotent; called by the views that read test inputs on first use.
 * Data of documents that no longer exist is dropped.
 */
export function ensureTestInputs(): void {
  if (persisting || typeof localStorage === 'undefined') return;
  persisting = true;
  const notify = (e: Error) => workspace.getState().notify({ level: 'error', text: `Saving test inputs failed (${e.name}): browser storage is full.` });
  const saved = loadTestInputs(localStorage);
  if (saved) {
    const s = testInputs.getState();
    testInputs.setState({ docs: { ...saved.data.docs, ...s.docs }, scenarios: [...saved.data.scenarios, ...s.scenarios], simulator: s.simulator ?? saved.data.simulator });
    testInputs.getState().prune(new Set(workspace.getState().docs.map((d) => d.id)));
    if (saved.migrated) {
      try {
        localStorage.setItem(TEST_INPUTS_STORAGE_KEY, serializeTestInputs(getTestsData()));
      } catch (e) {
        notify(e as Error);
      }
    }
  }
  const stop = startTestInputsAutosave(testInputs, localStorage, 250, notify);
  if (typeof window !== 'undefined') window.addEventListener('pagehide', stop);
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
  ensureTestInputs();
  const saved = useTestInputs((s) => s.docs[docId]?.draft);
  const object = useStore(workspace, (s) => s.docs.find((d) => d.id === docId)?.object);
  return { draft: saved ?? defaultDraftFor(object), edited: !!saved };
}

const NO_CEL_CASES: CelCase[] = [];
const NO_POLICY_CASES: PolicyTestCase[] = [];

export const useCelCases = (docId: string, path: string): CelCase[] => useTestInputs((s) => s.docs[docId]?.celCases[path] ?? NO_CEL_CASES);
export const useTestOpen = (docId: string, path: string): boolean => useTestInputs((s) => s.docs[docId]?.open.includes(path) ?? false);
export function usePolicyCases(docId: string): PolicyTestCase[] {
  ensureTestInputs();
  return useTestInputs((s) => s.docs[docId]?.policyCases ?? NO_POLICY_CASES);
}

/** A draft as the engine and the runs read it: the TestInput, its CEL inputs (one object per draft) and what did not parse. */
export function convertDraft(draft: TestInputDraft): { input: TestInput; cel: CelInputs; errors: DraftError[] } {
  const { input, errors } = toTestInput(draft);
  return { input, cel: toCelInputs(input), errors };
}
