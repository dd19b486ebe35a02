/**
 * A mutation whose result does not decode into the request's Go type (a number where the type has
 * a string) fails the request as the apiserver fails it (checked against a real kube-apiserver
 * 1.37, the admission oracle): a webhook's patch and a MutatingAdmissionPolicy's JSON patch with
 * an internal error (500) whatever failurePolicy says; an apply configuration as the policy's
 * error, under its failurePolicy. The lean verdicts leave such a request to the full run.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateBatchOnce } from '../cel';
import { useEngine } from '../cel/test-helpers';
import { leanChain, leanSet, leanVerdicts, prepareChain, requestCel, simulatePrepared } from './index';
import { binding, hook, mutating, namespace, podRequest, policy } from './test-helpers';

useEngine();

const opts = { namespaces: [namespace('team-a')] };
const run = async (objects: unknown[], webhooks: Record<string, unknown> = {}) => {
  const chain = prepareChain(objects);
  const o = { ...opts, webhooks: webhooks as never };
  const full = await simulatePrepared(chain, podRequest(), o, requestCel(chain.kubernetesVersion));
  const [lean] = await leanVerdicts(leanSet([leanChain(chain)]), podRequest(), o, { evaluate, evaluateBatch: evaluateBatchOnce });
  return { full, lean };
};
const map = (patch: Record<string, unknown>, failurePolicy: 'Fail' | 'Ignore') => [
  policy('MutatingAdmissionPolicy', 'm', { failurePolicy, reinvocationPolicy: 'Never', mutations: [patch] }),
  binding('MutatingAdmissionPolicyBinding', 'm', 'm'),
];
const jsonPatch = { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/n', value: 1}]" } };
const apply = { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'n': 1}}}" } };

describe('a mutation whose result does not decode', () => {
  it("a webhook's patch: 500 whatever failurePolicy says", async () => {
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const { full, lean } = await run([mutating('m', hook('m.example.com', { failurePolicy }))], {
        'm.example.com': { patch: [{ op: 'add', path: '/metadata/labels/n', value: 1 }] },
      });
      expect(full.allowed, failurePolicy).toBe(false);
      expect(full.deniedBy).toMatchObject({
        code: 500,
        reason: 'InternalError',
        message: expect.stringMatching(/^Internal error occurred: .*cannot decode number into a string/),
      });
      expect(lean?.allowed ?? full.allowed).toBe(false);
    }
  });

  it("a MutatingAdmissionPolicy's JSON patch: 500 whatever failurePolicy says; an apply configuration: its failurePolicy", async () => {
    for (const failurePolicy of ['Fail', 'Ignore'] as const) {
      const { full } = await run(map(jsonPatch, failurePolicy));
      expect(full.allowed, `JSONPatch ${failurePolicy}`).toBe(false);
      expect(full.deniedBy, `JSONPatch ${failurePolicy}`).toMatchObject({ code: 500, message: expect.stringMatching(/^Internal error occurred: /) });
    }
    const fail = await run(map(apply, 'Fail'));
    expect(fail.full.allowed).toBe(false);
    expect(fail.full.deniedBy?.message).toMatch(
      /^policy 'm' with binding 'm' denied request: error applying patch: failed to convert patch object to typed object: /,
    );
    const ignore = await run(map(apply, 'Ignore'));
    expect(ignore.full.allowed).toBe(true);
    expect(ignore.full.patches).toEqual([]);
    // the lean verdicts agree where they decide
    for (const r of [fail, ignore]) if (r.lean) expect(r.lean.allowed).toBe(r.full.allowed);
  });
});

describe("a webhook's patch whose test fails", () => {
  it('fails the request with an internal error (the policy plugin alone applies nothing instead)', async () => {
    const { full } = await run([mutating('m', hook('m.example.com', { failurePolicy: 'Ignore' }))], {
      'm.example.com': { patch: [{ op: 'test', path: '/metadata/name', value: 'other' }] },
    });
    expect(full.allowed).toBe(false);
    expect(full.deniedBy).toMatchObject({ code: 500, message: 'Internal error occurred: testing value /metadata/name failed: test failed' });
  });
});

describe('an object that did not decode before the mutation', () => {
  it("is the apiserver's 400 before admission (noted), not the mutation's failure", async () => {
    const chain = prepareChain(
      map({ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/ok', value: 'yes'}]" } }, 'Fail'),
    );
    const request = podRequest({
      object: { ...(podRequest().object as Record<string, unknown>), metadata: { name: 'web', namespace: 'team-a', labels: { n: 1 } } },
    });
    const full = await simulatePrepared(chain, request, opts, requestCel(chain.kubernetesVersion));
    expect(full.notes.join(' ')).toContain('the apiserver would refuse to decode the object (400 Bad Request before admission)');
    expect(full.allowed).toBe(true);
  });
});
