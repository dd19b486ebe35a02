/**
 * Engine generations: a 1.38 target is answered by the 1.38 engine (cel-1.38.wasm, k8s.io/apiserver
 * v0.38.0-beta.0), every other by cel.wasm; stored inputs reach the 1.38 engine, and a batch with
 * items of both is answered in order.
 */
import { describe, expect, test } from 'vitest';
import { compile, createSyncCompiler, evaluate, evaluateBatch, evaluateBatchOnce, loadCelFor, setInputs } from './index';
import { engineOfOp, engineOfRelease } from './generations';
import { useEngine } from './test-helpers';

useEngine();

describe('routing by the target release', () => {
  test('the generation of an operation is read from its options (a batch item by item)', () => {
    expect(engineOfRelease('1.38')).toBe('1.38');
    expect(engineOfRelease('1.30')).toBe('1.37');
    expect(engineOfRelease(undefined)).toBe('1.37');
    expect(engineOfOp('compile', ['x', 'vap-validation', { kubernetesVersion: '1.38' }])).toBe('1.38');
    expect(engineOfOp('setInputs', ['id', '{}'])).toBe('1.37');
    const items = [
      { expression: '1', context: 'vap-variable' as const, options: { kubernetesVersion: '1.37' as const } },
      { expression: '1', context: 'vap-variable' as const, options: { kubernetesVersion: '1.38' as const } },
    ];
    expect(engineOfOp('evaluateBatch', ['id', items])).toEqual(['1.37', '1.38']);
  });
});

describe('the 1.38 engine', () => {
  test('includes() is written at 1.38 (not at 1.37); isMask() is evaluated in stored expressions at 1.38 only', async () => {
    expect((await compile('[1, 2].includes(2)', 'vap-validation', { kubernetesVersion: '1.38' })).ok).toBe(true);
    expect((await compile('[1, 2].includes(2)', 'vap-validation', { kubernetesVersion: '1.37' })).ok).toBe(false);
    const written = await compile("cidr('10.0.0.0/8').isMask()", 'vap-validation', { kubernetesVersion: '1.38' });
    expect(written.ok ? '' : written.message).toMatch(/undeclared reference to 'isMask'|found no matching overload for 'isMask'/);
    const stored = await evaluate("cidr('10.0.0.0/8').isMask() && !cidr('10.0.0.1/8').isMask()", 'vap-validation', {}, { kubernetesVersion: '1.38' });
    expect(stored.ok && stored.value).toBe(true);
    expect((await evaluate("cidr('10.0.0.0/8').isMask()", 'vap-validation', {}, { kubernetesVersion: '1.37' })).ok).toBe(false);
  }, 120_000);

  test('a 1.38 evaluation reads inputs stored before the engine was asked', async () => {
    expect((await setInputs('gen-in', { object: { metadata: { name: 'abc' } } })).ok).toBe(true);
    const r = await evaluate('object.metadata.name', 'vap-variable', 'gen-in', { kubernetesVersion: '1.38' });
    expect(r.ok && r.value).toBe('abc');
  }, 120_000);

  test('a batch with items of both generations is answered item by item, in order', async () => {
    const items = ['1.37', '1.38', '1.37'].map((v) => ({
      expression: '[1, 2].includes(2)',
      context: 'vap-variable' as const,
      options: { kubernetesVersion: v as '1.37' | '1.38' },
    }));
    const inputs = { object: {} };
    for (const results of [await evaluateBatch(items, inputs), await evaluateBatchOnce(items, inputs)]) {
      // a stored expression: includes() (1.37) is evaluated by both
      expect(results.map((r) => r.ok && r.value)).toEqual([true, true, true]);
    }
    const writes = items.map((i) => ({ ...i, expression: 'object.x.orValue(1)' }));
    expect((await evaluateBatch(writes, inputs)).length).toBe(3);
  }, 120_000);

  test('the synchronous compiler answers at 1.38 once its generation is loaded', async () => {
    await loadCelFor('1.38');
    const cel = createSyncCompiler();
    expect(cel.compile('[1].includes(1)', 'vap-validation', { kubernetesVersion: '1.38' })?.ok).toBe(true);
    expect(cel.compile('[1].includes(1)', 'vap-validation', { kubernetesVersion: '1.37' })?.ok).toBe(false);
  }, 120_000);
});
