/** simulate(…, { trace: true }): each policy step carries its expressions with their values; nothing else changes (real CEL engine). */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { binding, hook, namespace, podRequest, policy, policyStep, validating, webhookStep } from './test-helpers';
import type { SimResult } from './types';

useEngine();

const withoutExpressions = (r: SimResult) => ({ ...r, steps: r.steps.map(({ expressions: _e, ...s }) => s) });

describe('traced simulation', () => {
  it('a denying policy step shows the deciding validation, its matchCondition and messageExpression traced; the result is the same', async () => {
    const ws = [
      policy('ValidatingAdmissionPolicy', 'small', {
        matchConditions: [{ name: 'named', expression: "has(object.metadata.name) && object.metadata.name != ''" }],
        validations: [
          { expression: "object.metadata.name.size() < 3 || object.metadata.name.startsWith('ok-')", messageExpression: "'too long: ' + object.metadata.name" },
        ],
      }),
      binding('ValidatingAdmissionPolicyBinding', 'small-b', 'small'),
      namespace('team-a'),
    ];
    const plain = await simulate(ws, podRequest());
    const traced = await simulate(ws, podRequest(), { trace: true });
    expect(withoutExpressions(traced)).toEqual(plain);
    const step = policyStep(traced, 'small', 'small-b');
    expect(step).toMatchObject({ outcome: 'denied', path: 'spec.validations[0].expression' });
    expect(step.expressions!.map((e) => e.field)).toEqual([
      'spec.matchConditions[0].expression',
      'spec.validations[0].expression',
      'spec.validations[0].messageExpression',
    ]);
    const v = step.expressions![1]!;
    const startsWith = v.trace.find((n) => v.expression.slice(n.from, n.to) === "object.metadata.name.startsWith('ok-')");
    expect(startsWith).toMatchObject({ ran: true, value: false });
    expect(policyStep(plain, 'small', 'small-b').expressions).toBeUndefined();
  });

  it("a webhook's step shows its matchConditions traced", async () => {
    const mc = [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:') || request.userInfo.username == 'system:ok'" }];
    const ws = [validating('v', hook('w', { matchConditions: mc })), namespace('team-a')];
    const plain = await simulate(ws, podRequest());
    const traced = await simulate(ws, podRequest(), { trace: true });
    expect(withoutExpressions(traced)).toEqual(plain);
    const [e] = webhookStep(traced, 'w').expressions!;
    expect(e!.field).toBe('webhooks[0].matchConditions[0].expression');
    const right = e!.trace.find((n) => e!.expression.slice(n.from, n.to) === "request.userInfo.username == 'system:ok'");
    expect(right).toMatchObject({ ran: false });
  });
});
