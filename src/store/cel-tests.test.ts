import { describe, expect, test } from 'vitest';
import { kindForResource } from '../k8s/resources';
import {
  createCelTests,
  defaultInputs,
  expectedValue,
  loadCelTests,
  newCaseId,
  passes,
  serializeCelTests,
  startCelTestsAutosave,
  toCelInputs,
  CEL_TESTS_STORAGE_KEY,
} from './cel-tests';
import { TEMPLATES } from '../k8s/templates';

describe('defaults from the rules', () => {
  test('a webhook: CREATE of its first resource with a minimal object of that kind', () => {
    const d = defaultInputs(TEMPLATES.ValidatingWebhookConfiguration());
    expect(d.request).toMatchObject({ operation: 'CREATE', group: '', version: 'v1', resource: 'pods', kind: 'Pod' });
    const { inputs, errors } = toCelInputs(d);
    expect(errors).toEqual([]);
    expect(inputs.object).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'example', namespace: 'default' } });
    expect(inputs.oldObject).toBeNull();
    expect(inputs.request).toMatchObject({ operation: 'CREATE', kind: { kind: 'Pod' }, userInfo: { username: 'alice@example.com' } });
  });
  test('a policy with paramKind: params with the keys its expressions read', () => {
    const d = defaultInputs(TEMPLATES.ValidatingAdmissionPolicy());
    expect(d.request).toMatchObject({ group: 'apps', resource: 'deployments', kind: 'Deployment' });
    const { inputs } = toCelInputs(d);
    expect(inputs.params).toMatchObject({ kind: 'ConfigMap', data: { maxReplicas: '5' } });
    expect(inputs.object).toMatchObject({ apiVersion: 'apps/v1', spec: { replicas: 3 } });
  });
  test('stable while the rules are the same', () => {
    expect(defaultInputs(TEMPLATES.ValidatingWebhookConfiguration())).toBe(defaultInputs(TEMPLATES.ValidatingWebhookConfiguration()));
  });
  test('resource plurals', () => {
    expect(kindForResource('ingresses')).toBe('Ingress');
    expect(kindForResource('widgets')).toBe('Widget');
    expect(kindForResource('policies')).toBe('Policy');
  });
});

describe('inputs', () => {
  test('a YAML error is reported and the text kept; the same draft gives the same inputs object', () => {
    const d = { ...defaultInputs(TEMPLATES.ValidatingWebhookConfiguration()), object: 'a: [oops' };
    const r = toCelInputs(d);
    expect(r.errors[0]).toMatchObject({ field: 'object', line: 1 });
    expect(r.inputs.object).toBeNull();
    expect(toCelInputs(d)).toBe(r);
    expect(d.object).toBe('a: [oops');
  });
});

describe('expectations', () => {
  test('values and errors', () => {
    expect(expectedValue('true')).toEqual({ value: true });
    expect(passes({ error: false, value: 'true' }, { ok: true, value: true })).toBe(true);
    expect(passes({ error: false, value: 'true' }, { ok: true, value: false })).toBe(false);
    expect(passes({ error: false, value: '{"a": [1, "x"]}' }, { ok: true, value: { a: [1, 'x'] } })).toBe(true);
    expect(passes({ error: false, value: 'hello' }, { ok: true, value: 'hello' })).toBe(true);
    expect(passes({ error: true }, { ok: false })).toBe(true);
    expect(passes({ error: true }, { ok: true, value: true })).toBe(false);
    expect(passes({ error: false, value: '9007199254740993' }, { ok: true, value: '9007199254740993' })).toBe(true);
  });
});

describe('store and persistence', () => {
  test('cases per expression, saved and restored', () => {
    const store = createCelTests();
    const items = new Map<string, string>();
    const stop = startCelTestsAutosave(store, { setItem: (k, v) => items.set(k, v) }, 10_000);
    const inputs = defaultInputs(TEMPLATES.ValidatingWebhookConfiguration());
    store.getState().setInputs('d1', { ...inputs, object: 'kind: Pod\n# my comment\n' });
    store.getState().addCase('d1', 'webhooks[0].matchConditions[0].expression', { id: newCaseId(), name: 'alice', inputs, expect: { error: false, value: 'true' } });
    store.getState().setOpen('d1', 'webhooks[0].matchConditions[0].expression', true);
    stop();
    const restored = loadCelTests({ getItem: (k) => items.get(k) ?? null });
    expect(restored).toEqual(JSON.parse(serializeCelTests(store.getState())).docs ? { docs: store.getState().docs } : undefined);
    expect(restored!.docs.d1.inputs!.object).toBe('kind: Pod\n# my comment\n');
    expect(restored!.docs.d1.cases['webhooks[0].matchConditions[0].expression'][0].name).toBe('alice');
    expect(items.has(CEL_TESTS_STORAGE_KEY)).toBe(true);
    store.getState().prune(new Set());
    expect(store.getState().docs).toEqual({});
  });
  test('unreadable storage is no saved state', () => {
    expect(loadCelTests({ getItem: () => '{not json' })).toBeUndefined();
    expect(loadCelTests({ getItem: () => { throw new Error('denied'); } })).toBeUndefined();
  });
});
