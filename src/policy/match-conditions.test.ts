import { describe, expect, test } from 'vitest';
import { withDefaults } from '../k8s/defaults';
import { OUT_OF_BUDGET } from './expressions';
import { decideMatchConditions, failurePolicyOf, type MatchConditionsTrace } from './match-conditions';

const cond = (name: string, r: { ok: true; value: unknown } | { ok: false; error: string }) =>
  ({
    name,
    expression: name,
    cost: 1,
    ...(r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error }),
  }) as unknown as MatchConditionsTrace['conditions'][number];

describe('decideMatchConditions: the one matchConditions decision', () => {
  const err = cond('a', { ok: false, error: 'no such key: x' });
  const f = cond('b', { ok: true, value: false });
  test('no conditions or all true: match', () => {
    expect(decideMatchConditions(undefined, 'Fail').action).toBe('match');
    expect(decideMatchConditions({ conditions: [cond('a', { ok: true, value: true })], outcome: 'match', cost: 1 }, 'Fail')).toMatchObject({
      action: 'match',
      cause: 'true',
    });
  });
  test('a false skips, even after an error, whatever failurePolicy', () => {
    const t: MatchConditionsTrace = { conditions: [err, f], outcome: 'skip', failedCondition: 'b', cost: 2 };
    expect(decideMatchConditions(t, 'Fail')).toEqual({ action: 'skip', cause: 'false', index: 1, failurePolicy: 'Fail' });
  });
  test('errors: Fail rejects, Ignore skips; the budget cut-off is an error of its own cause', () => {
    const t: MatchConditionsTrace = { conditions: [err], outcome: 'error', error: 'x', cost: 1 };
    expect(decideMatchConditions(t, 'Fail')).toEqual({ action: 'reject', cause: 'error', index: 0, failurePolicy: 'Fail' });
    expect(decideMatchConditions(t, 'Ignore').action).toBe('skip');
    const b: MatchConditionsTrace = { conditions: [cond('a', { ok: true, value: true })], outcome: 'error', error: OUT_OF_BUDGET, cost: 9e9 };
    expect(decideMatchConditions(b, 'Fail')).toMatchObject({ action: 'reject', cause: 'budget' });
  });
  test('failurePolicy is the defaulted one: Ignore for a v1beta1 webhook without one, Fail in v1', () => {
    const config = (apiVersion: string) => ({
      apiVersion,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'c' },
      webhooks: [{ name: 'w.example.com' }],
    });
    const hook = (apiVersion: string) => (withDefaults(config(apiVersion)) as { webhooks: unknown[] }).webhooks[0];
    expect(failurePolicyOf(hook('admissionregistration.k8s.io/v1beta1'))).toBe('Ignore');
    expect(failurePolicyOf(hook('admissionregistration.k8s.io/v1'))).toBe('Fail');
  });
});
