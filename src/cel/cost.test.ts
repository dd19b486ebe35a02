/** Runtime cost: Kubernetes' cost model, the per-expression limit and the per-policy budgets. */
import { describe, expect, test } from 'vitest';
import { celStatus, evaluate } from './index';
import { CEL_LIMITS } from './types';
import { useEngine } from './test-helpers';

useEngine();

async function cost(expression: string, inputs = {}, context: Parameters<typeof evaluate>[1] = 'vap-validation') {
  const r = await evaluate(expression, context, inputs);
  if (!r.ok) throw new Error(r.message);
  return r.cost;
}

describe('limits', () => {
  test('the exported constants are the engine’s (k8s.io/apiserver/pkg/apis/cel/config.go)', () => {
    const info = celStatus().info!;
    expect(info.perCallLimit).toBe(CEL_LIMITS.perCallLimit);
    expect(info.runtimeCelCostBudget).toBe(CEL_LIMITS.runtimeCelCostBudget);
    expect(info.runtimeCelCostBudgetMatchConditions).toBe(CEL_LIMITS.runtimeCelCostBudgetMatchConditions);
    expect(info.maxEvaluatedMessageExpressionSizeBytes).toBe(CEL_LIMITS.maxEvaluatedMessageExpressionSizeBytes);
    expect(info.checkFrequency).toBe(CEL_LIMITS.checkFrequency);
    expect(info.kubernetesVersion).toMatch(/^1\.37\./);
    expect(info.celGoModule).toBe('v0.29.2');
  });
});

describe('cost model', () => {
  test('values measured in Kubernetes’ own library tests', async () => {
    // k8s.io/apiserver/pkg/cel/library cost tests
    expect(await cost('[1,2,3,4].isSorted()')).toBe(4);
    expect(await cost("size('abc 123 def 123'.split(' ')) > 0")).toBe(5);
    expect(await cost('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")')).toBe(6);
  });
  test('an authorizer check costs 350 000', async () => {
    const c = await cost("!authorizer.group('').resource('endpoints').check('create').allowed()");
    expect(c).toBeGreaterThanOrEqual(350_000);
    expect(c).toBeLessThan(350_100);
  });
  test('comprehension cost grows with the input', async () => {
    const small = await cost('object.items.all(x, x > 0)', { object: { items: [1, 2] } });
    const large = await cost('object.items.all(x, x > 0)', { object: { items: Array.from({ length: 200 }, (_, i) => i + 1) } });
    expect(large).toBeGreaterThan(small * 50);
  });
});

describe('the per-expression limit', () => {
  test('a runaway comprehension is cancelled with the apiserver’s error', async () => {
    const e = 'lists.range(1000).all(i, lists.range(1000).all(j, i + j >= 0))';
    const r = await evaluate(e, 'vap-validation', {});
    expect(r).toMatchObject({ ok: false, kind: 'cost-exceeded', limit: 'per-expression', stage: 'runtime' });
    expect(r.ok ? '' : r.message).toBe(`expression '${e}' resulted in error: operation cancelled: actual cost limit exceeded`);
  }, 60_000);
  test('three authorizer checks exceed it', async () => {
    const check = "authorizer.path('/x').check('get').allowed()";
    const r = await evaluate(`${check} || ${check} || ${check}`, 'vap-validation', {
      authorizer: { rules: [{ decision: 'deny' }] },
    });
    expect(r).toMatchObject({ ok: false, kind: 'cost-exceeded', limit: 'per-expression' });
    expect(r.ok ? '' : r.message).toContain('operation cancelled: actual cost limit exceeded');
    const two = await evaluate(`${check} || ${check}`, 'vap-validation', { authorizer: { rules: [{ decision: 'deny' }] } });
    expect(two.ok).toBe(true);
  });
});

describe('the budgets', () => {
  // Each variable costs ~700 000 (two authorizer checks); the match-condition budget is 2 500 000.
  const check = "authorizer.path('/x').check('get').allowed()";
  const variables = ['a', 'b', 'c', 'd'].map((name) => ({ name, expression: `${check} || ${check}` }));
  const inputs = { authorizer: { rules: [{ decision: 'deny' as const }] } };
  const useAll = 'variables.a || variables.b || variables.c || variables.d';
  test('variables pulled in by an expression are charged to it', async () => {
    const r = await evaluate('variables.a || variables.b', 'vap-validation', inputs, { variables });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.cost).toBeGreaterThan(2 * 700_000);
  });
  test('match conditions run out of their 2.5M budget where validations (10M) do not', async () => {
    const m = await evaluate(useAll, 'vap-matchCondition', inputs, { variables });
    expect(m).toMatchObject({ ok: false, kind: 'cost-exceeded', limit: 'budget' });
    expect(m.ok ? '' : m.message).toBe('validation failed due to running out of cost budget, no further validation rules will be run');
    const v = await evaluate(useAll, 'vap-validation', inputs, { variables });
    expect(v.ok).toBe(true);
  });
});
