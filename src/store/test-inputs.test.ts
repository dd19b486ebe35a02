import { describe, expect, test } from 'vitest';
import { CEL_TESTS_V1_KEY, POLICY_TESTS_V1_KEY, newId, type TestInputDraft } from '../request';
import {
  createTestInputs,
  getTestsData,
  loadTestInputs,
  restoreTestInputs,
  serializeTestInputs,
  setTestsData,
  startTestInputsAutosave,
  TEST_INPUTS_STORAGE_KEY,
} from './test-inputs';
import { storageBackend } from './persist';
import { defaultDraftFor } from '../request';
import { TEMPLATES } from '../k8s/templates';

const memory = (init: Record<string, string> = {}) => {
  const items = new Map(Object.entries(init));
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
};

const CEL_V1 = {
  version: 1,
  docs: {
    d1: {
      inputs: {
        object: 'kind: Pod\n# kept\n',
        oldObject: '',
        params: '',
        namespaceObject: '',
        request: {
          operation: 'CREATE',
          group: '',
          version: 'v1',
          kind: 'Pod',
          resource: 'pods',
          subResource: '',
          name: '',
          namespace: 'default',
          username: 'alice',
          groups: [],
          dryRun: false,
        },
        authorizer: [],
      },
      cases: { 'webhooks[0].matchConditions[0].expression': [{ id: 'c1', name: 'alice', inputs: {}, expect: { error: false, value: 'true' } }] },
      open: [],
    },
  },
};
const POLICY_V1 = {
  byDoc: {},
  cases: { d2: [{ name: 'too many', request: { operation: 'CREATE' }, object: { kind: 'Deployment' }, expect: { outcome: 'deny' } }] },
};

describe('test-inputs store', () => {
  test('migrates both v1 keys when there is no v2 data; v2 wins afterwards', () => {
    const storage = memory({ [CEL_TESTS_V1_KEY]: JSON.stringify(CEL_V1), [POLICY_TESTS_V1_KEY]: JSON.stringify(POLICY_V1) });
    const loaded = loadTestInputs(storage)!;
    expect(loaded.migrated).toBe(true);
    expect(loaded.data.docs.d1.draft!.object).toBe('kind: Pod\n# kept\n');
    expect(loaded.data.docs.d1.celCases['webhooks[0].matchConditions[0].expression'][0].name).toBe('alice');
    expect(loaded.data.docs.d2.policyCases[0].name).toBe('too many');
    storage.setItem(TEST_INPUTS_STORAGE_KEY, JSON.stringify({ version: 2, docs: {}, scenarios: [] }));
    expect(loadTestInputs(storage)).toEqual({ data: { docs: {}, scenarios: [] }, migrated: false });
    expect(loadTestInputs(memory())).toBeUndefined();
    expect(loadTestInputs({ getItem: () => '{not json' })).toBeUndefined();
  });

  test('cases of both kinds and scenarios, saved to the backend and restored', async () => {
    const store = createTestInputs();
    const storage = memory();
    const stop = startTestInputsAutosave(store, storageBackend(storage, 'db'), 10_000);
    const draft: TestInputDraft = { ...defaultDraftFor(TEMPLATES.ValidatingWebhookConfiguration()), object: 'kind: Pod\n# my comment\n' };
    const s = store.getState();
    s.setDraft('d1', draft);
    s.addCelCase('d1', 'p', { id: newId(), name: 'alice', input: draft, expect: { error: false, value: 'true' } });
    s.setOpen('d1', 'p', true);
    const pods = { resource: { group: '', version: 'v1', resource: 'pods' }, kind: { group: '', version: 'v1', kind: 'Pod' } };
    s.savePolicyCase('d2', { name: 'x', input: { request: { operation: 'CREATE', ...pods } }, expect: { outcome: 'admit' } });
    s.savePolicyCase('d2', { name: 'x', input: { request: { operation: 'DELETE', ...pods } }, expect: { outcome: 'deny' } });
    s.saveScenario({
      id: 's1',
      name: 'pods',
      input: draft,
      webhooks: { 'a.example.com': { response: 'unavailable', patch: '[]', warnings: '' } },
      expect: { allowed: false },
    });
    stop();
    await Promise.resolve();
    const restored = (await restoreTestInputs(storageBackend(storage, 'db'), memory()))!;
    expect(restored).toEqual(getTestsData(store));
    expect(restored.docs.d1.draft!.object).toBe('kind: Pod\n# my comment\n');
    expect(restored.docs.d2.policyCases).toEqual([{ name: 'x', input: { request: { operation: 'DELETE', ...pods } }, expect: { outcome: 'deny' } }]);
    expect(restored.scenarios[0].webhooks['a.example.com'].response).toBe('unavailable');
    store.getState().resetDraft('d1');
    expect(store.getState().docs.d1.draft).toBeUndefined();
    store.getState().prune(new Set(['d2']));
    expect(Object.keys(store.getState().docs)).toEqual(['d2']);
  });

  test('what earlier versions kept in localStorage moves to the backend (the IndexedDB store) once written', async () => {
    const local = memory({ [CEL_TESTS_V1_KEY]: JSON.stringify(CEL_V1), [POLICY_TESTS_V1_KEY]: JSON.stringify(POLICY_V1) });
    const db = memory();
    const first = (await restoreTestInputs(storageBackend(db, 'db'), local))!;
    expect(first.docs.d2.policyCases[0].name).toBe('too many');
    expect([...local.items.keys()]).toEqual([]);
    expect(db.items.get('db')).toBe(serializeTestInputs(first));
    expect(await restoreTestInputs(storageBackend(db, 'db'), local)).toEqual(first);
    // The v2 key too; and a failing write keeps it where it is.
    const v2 = memory({ [TEST_INPUTS_STORAGE_KEY]: serializeTestInputs(first) });
    const full = { read: async () => undefined, write: async () => Promise.reject(new DOMException('full', 'QuotaExceededError')) };
    expect(await restoreTestInputs(full, v2)).toEqual(first);
    expect(v2.items.has(TEST_INPUTS_STORAGE_KEY)).toBe(true);
    expect(await restoreTestInputs(storageBackend(memory(), 'db'), memory())).toBeUndefined();
  });

  test('a failing async write is reported once', async () => {
    const store = createTestInputs();
    const errors: string[] = [];
    const stop = startTestInputsAutosave(
      store,
      { read: async () => undefined, write: () => Promise.reject(new DOMException('full', 'QuotaExceededError')) },
      0,
      (e) => errors.push(e.name),
    );
    store.getState().setOpen('d', 'p', true);
    await new Promise((r) => setTimeout(r, 5));
    store.getState().setOpen('d', 'q', true);
    await new Promise((r) => setTimeout(r, 5));
    stop();
    expect(errors).toEqual(['QuotaExceededError']);
  });

  test('plain data in and out', () => {
    const store = createTestInputs();
    const data = { docs: { d: { celCases: {}, policyCases: [], open: ['p'] } }, scenarios: [] };
    setTestsData(data, store);
    expect(getTestsData(store)).toEqual(data);
  });
});
