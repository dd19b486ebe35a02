/**
 * Collect, then decide: the validating phase's expressions go to the engine in one batch, the runs
 * decide from the answers. Same results as asking one expression at a time (the real engine
 * either way), including where the batch evaluates what the runs never read: a false
 * matchCondition before a failing validation, a policy out of budget, unused variables.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateBatch } from '../cel';
import { useEngine } from '../cel/test-helpers';
import type { PolicyCel } from '../policy';
import { prepareChain, probePrepared, requestCel, simulate, simulatePrepared } from './index';
import { binding, hook, podRequest, policy, validating } from './test-helpers';

useEngine();

/** The real engine, one call at a time (no evaluateBatch: nothing is collected). */
const oneByOne: PolicyCel = { evaluate: (e, c, i, o) => evaluate(e, c, i, o) };

/** The real engine with batches, counting what reaches it. */
function counting() {
  const n = { evaluate: 0, batches: 0, items: 0 };
  const cel: PolicyCel = {
    evaluate: (e, c, i, o) => (n.evaluate++, evaluate(e, c, i, o)),
    evaluateBatch: (items, inputs) => {
      n.batches++;
      n.items += items.length;
      return evaluateBatch(items, inputs);
    },
  };
  return { cel, n };
}

const heavy = "authorizer.path('/x').check('get').allowed() || true";

async function workspace() {
  const one = await evaluate(heavy, 'vap-validation', {});
  const fits = Math.floor(10_000_000 / (one.ok ? one.cost : 1));
  const vap = (name: string, spec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}) => [
    policy('ValidatingAdmissionPolicy', name, spec),
    binding('ValidatingAdmissionPolicyBinding', name, name, bindingSpec),
  ];
  return [
    ...vap('labels', {
      variables: [
        { name: 'app', expression: "object.metadata.labels['app']" },
        { name: 'unused', expression: 'object.spec.nope' }, // errors, and nothing reads it
      ],
      validations: [
        { expression: "variables.app == 'api'", messageExpression: "'app is ' + variables.app" },
        { expression: 'object.spec.containers.all(c, c.image.startsWith("registry.example.com/"))', message: 'registry' },
      ],
      auditAnnotations: [{ key: 'app', valueExpression: 'string(variables.app)' }],
    }),
    // a false matchCondition: the failing validation is never run by the apiserver (nor read here)
    ...vap('skipped', {
      matchConditions: [{ name: 'never', expression: 'false' }],
      validations: [{ expression: 'object.spec.nope == 1', messageExpression: 'object.spec.nope' }],
    }),
    ...vap('errors', { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.nope == 1' }] }, { validationActions: ['Warn'] }),
    ...vap('failing-message', { validations: [{ expression: 'false', messageExpression: 'object.spec.nope' }] }, { validationActions: ['Audit', 'Warn'] }),
    // past the policy's budget after `fits` validations: the rest are evaluated in the batch, never read
    ...vap(
      'budget',
      { validations: [...Array.from({ length: fits + 1 }, () => ({ expression: heavy })), { expression: 'object.spec.nope == 1' }] },
      { validationActions: ['Warn'] },
    ),
    // params: collected on the param each binding resolves (a batch of its own inputs)
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team-a' }, data: { max: '1' } },
    ...vap(
      'params',
      { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.spec.containers.size() <= int(params.data.max)' }] },
      { paramRef: { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Deny' } },
    ),
    validating(
      'hooks',
      hook('called', { matchConditions: [{ name: 'user', expression: "request.userInfo.username.endsWith('@example.com')" }] }),
      hook('skipped', {
        matchConditions: [
          { name: 'no', expression: 'false' },
          { name: 'err', expression: 'object.spec.nope == 1' },
        ],
      }),
      hook('erroring', { failurePolicy: 'Ignore', matchConditions: [{ name: 'err', expression: 'object.spec.nope == 1' }] }),
      hook('other-resources', {
        rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
        matchConditions: [{ name: 'x', expression: 'object.spec.nope == 1' }],
      }),
    ),
  ];
}

describe('collect, then decide', () => {
  it('the same SimResult as one expression at a time, for simulate and probe, allowed and denied', async () => {
    const ws = await workspace();
    for (const request of [
      podRequest(),
      podRequest({ object: { ...(podRequest().object as object), metadata: { name: 'web-0', namespace: 'team-a', labels: { app: 'api' } } } }),
    ]) {
      const { cel, n } = counting();
      const batched = await simulate(ws, request, {}, cel);
      expect(n.batches).toBe(2); // the whole validating phase: one batch per distinct inputs (the policies', the param policy's with its param)
      expect(batched).toEqual(await simulate(ws, request, {}, oneByOne));
      const chain = prepareChain(ws);
      expect(await probePrepared(chain, request, {}, requestCel(undefined, counting().cel))).toEqual(await probePrepared(chain, request, {}, oneByOne));
    }
  }, 60_000);

  it('the param policy is collected too, on its param: every answer comes from a batch', async () => {
    const ws = await workspace();
    const { cel, n } = counting();
    const r = await simulatePrepared(prepareChain(ws), podRequest(), {}, cel);
    expect(r.steps.find((s) => s.name === 'params')?.outcome).toBe('admitted');
    expect(n.evaluate).toBe(0);
    expect(n.batches).toBe(2);
    // the webhook whose rules do not match the request is not collected
    expect(n.items).toBeGreaterThan(10);
    const other = await simulate(
      ws.filter((d) => (d as { kind: string }).kind === 'ValidatingWebhookConfiguration'),
      podRequest(),
      {},
      counting().cel,
    );
    expect(other.steps.find((s) => s.webhook === 'other-resources')?.outcome).toBe('skipped');
  }, 60_000);

  it('decides as the apiserver does where the batch ran more than it would', async () => {
    const r = await simulate(await workspace(), podRequest(), {}, counting().cel);
    const step = (name: string) => r.steps.find((s) => s.name === name || s.webhook === name);
    expect(step('skipped')).toMatchObject({ outcome: 'skipped' });
    expect(step('budget')).toMatchObject({ outcome: 'warned' });
    expect(r.warnings.some((w) => w.includes("'budget'") && w.includes('running out of cost budget'))).toBe(true);
    expect(step('labels')).toMatchObject({ outcome: 'denied' });
    expect(r.deniedBy?.message).toContain('app is web');
    expect(step('called')).toBeUndefined(); // a VAP denied: the webhooks collected are not called, their answers not read
    const api = await simulate(
      await workspace(),
      podRequest({ object: { ...(podRequest().object as object), metadata: { name: 'web-0', namespace: 'team-a', labels: { app: 'api' } } } }),
      {},
      counting().cel,
    );
    expect(Object.fromEntries(api.steps.filter((s) => s.webhook).map((s) => [s.webhook, s.outcome]))).toEqual({
      called: 'admitted',
      skipped: 'skipped',
      erroring: 'error-ignored',
      'other-resources': 'skipped',
    });
  }, 60_000);
});
