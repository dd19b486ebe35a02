/** evaluateBatch: many expressions against one input in one call, the shapes of evaluate(). */
import { describe, expect, test } from 'vitest';
import { evaluate, evaluateBatch } from './index';
import type { CelBatchItem, CelInputs } from './types';
import { useEngine } from './test-helpers';

useEngine();

const inputs: CelInputs = {
  object: { metadata: { name: 'web', labels: { team: 'a' } }, spec: { replicas: 3, containers: [{ image: 'r/a' }, { image: 'r/b' }] } },
  params: { max: 5 },
  request: { operation: 'CREATE', userInfo: { username: 'alice' } },
};
const options = { hasParams: true, variables: [{ name: 'n', expression: 'object.spec.containers.size()' }] };

describe('evaluateBatch', () => {
  test('each item gets what evaluate() gives it, in order, errors included', async () => {
    const items: CelBatchItem[] = [
      { expression: 'object.spec.replicas <= params.max', context: 'vap-validation', options },
      { expression: 'object.nope == 1', context: 'vap-validation', options },
      { expression: 'object.spec.replicas +', context: 'vap-validation', options },
      { expression: "request.operation == 'CREATE'", context: 'webhook-matchCondition' },
      { expression: 'variables.n', context: 'vap-variable', options },
      { expression: "'x' + object.metadata.name", context: 'vap-messageExpression', options },
      { expression: 'object.spec.replicas <= params.max', context: 'vap-validation', options: { ...options, kubernetesVersion: '1.30' } },
    ];
    const batch = await evaluateBatch(items, inputs);
    expect(batch).toHaveLength(items.length);
    for (const [i, it] of items.entries()) {
      expect(batch[i], it.expression).toEqual(await evaluate(it.expression, it.context, inputs, it.options));
    }
    expect(batch[0]).toMatchObject({ ok: true, value: true });
    expect(batch[1]).toMatchObject({ ok: false, stage: 'runtime' });
    expect(batch[2]).toMatchObject({ ok: false, stage: 'compile' });
    expect(batch[4]).toMatchObject({ ok: true, value: 2 });
  }, 60_000); // the 1.30 item builds that release's environments (its own env sets, the older quantity overloads)

  test('a group shares one budget, as a policy does: over it, the whole group fails with the apiserver message', async () => {
    // An authorizer check is charged a large fixed cost: a cheap way to spend a budget.
    const heavy = "authorizer.path('/x').check('get').allowed() || true";
    const one = await evaluate(heavy, 'vap-validation', {});
    expect(one.ok).toBe(true);
    const fits = Math.floor(10_000_000 / (one.ok ? one.cost : 1));
    const group = (n: number, g?: string): CelBatchItem[] => Array.from({ length: n }, () => ({ expression: heavy, context: 'vap-validation', group: g }));
    const within = await evaluateBatch(group(fits, 'p'), {});
    expect(within.every((r) => r.ok && r.cost === (one.ok ? one.cost : 0))).toBe(true);
    const over = await evaluateBatch([...group(fits + 1, 'p'), ...group(1, 'q')], {});
    for (const r of over.slice(0, fits + 1)) {
      expect(r).toEqual({
        ok: false,
        kind: 'cost-exceeded',
        limit: 'budget',
        stage: 'runtime',
        message: 'validation failed due to running out of cost budget, no further validation rules will be run',
      });
    }
    expect(over[fits + 1]!.ok).toBe(true);
    // without a group each item has its own budget
    expect((await evaluateBatch(group(fits + 1), {})).every((r) => r.ok)).toBe(true);
  });

  test('variables are computed once per group and charged to the expression that first reads them', async () => {
    const items: CelBatchItem[] = ['variables.n == 2', 'variables.n + 1 == 3'].map((expression) => ({
      expression,
      context: 'vap-validation',
      options,
      group: 'p',
    }));
    const [a, b] = await evaluateBatch(items, inputs);
    const alone = await evaluate('variables.n + 1 == 3', 'vap-validation', inputs, options);
    expect(a).toMatchObject({ ok: true, value: true });
    expect(b).toMatchObject({ ok: true, value: true });
    expect(alone.ok && b!.ok && b!.cost! < alone.cost).toBe(true);
  });

  test('an expression with a NUL character (sent as JSON instead of the packed form)', async () => {
    const items: CelBatchItem[] = [
      { expression: "'a\u0000' == 'a'", context: 'vap-validation', group: 'x\u0000y' },
      { expression: 'true', context: 'vap-validation' },
    ];
    const batch = await evaluateBatch(items, inputs);
    expect(batch[0]).toEqual(await evaluate(items[0]!.expression, 'vap-validation', inputs));
    expect(batch[1]).toMatchObject({ ok: true, value: true });
  });

  test('bad input: an unknown inputs id, an empty batch', async () => {
    expect(await evaluateBatch([], inputs)).toEqual([]);
    const [r] = await evaluateBatch([{ expression: 'true', context: 'vap-validation' }], 'no-such-id');
    expect(r).toEqual({ ok: false, kind: 'inputs', stage: 'runtime', message: 'unknown inputs id "no-such-id"' });
  });
});
