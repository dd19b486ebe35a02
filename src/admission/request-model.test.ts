/**
 * One request, one CEL view of it: the same test input through a policy test run, through the
 * simulator's policy plugin and through a webhook's matchConditions gives CEL the same `request`
 * (requestKind, requestResource, …), where the adapters used to disagree (real CEL engine).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../cel/index';
import { useEngine } from '../cel/test-helpers';
import { runValidatingPolicy } from '../policy';
import { celInputs, type TestInput } from '../request';
import { simulate } from './index';
import { binding, hook, namespace, podRequest, policy, policyStep, validating, webhookStep } from './test-helpers';

useEngine();

/** True only when CEL sees the attributes the apiserver fills (CEL's request type has no uid). */
const FILLED = "has(request.requestKind) && request.requestKind == request.kind && request.requestResource == request.resource && request.name == 'web-0'";

describe('the one request model', () => {
  const input: TestInput = { request: podRequest(), namespaceObject: namespace('team-a') };
  const vap = policy('ValidatingAdmissionPolicy', 'filled', { validations: [{ expression: FILLED }] });
  const vapb = binding('ValidatingAdmissionPolicyBinding', 'filled-binding', 'filled');

  it('celInputs: what every consumer hands the engine', async () => {
    const r = await evaluate(FILLED, 'vap-validation', celInputs(input));
    expect(r).toMatchObject({ ok: true, value: true });
  });
  it('a policy test run and the simulator see the same request', async () => {
    const run = await runValidatingPolicy({ ...input, policy: vap, bindings: [vapb] }, { evaluate });
    expect(run.outcome).toBe('admit');
    const sim = await simulate([vap, vapb, namespace('team-a')], input.request);
    expect(policyStep(sim, 'filled', 'filled-binding').outcome).toBe('admitted');
  });
  it('so do a webhook’s matchConditions', async () => {
    const sim = await simulate([validating('v', hook('guard', { matchConditions: [{ name: 'filled', expression: FILLED }] }))], input.request, {
      webhooks: { guard: 'deny' },
    });
    // every condition true: the webhook is called (and denies as told)
    expect(webhookStep(sim, 'guard').outcome).toBe('denied');
  });
});
