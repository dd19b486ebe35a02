/** mutationBreaks() (M06): validators that reject only what the mutating phase made (real CEL engine). */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { mutationBreaks, simulate } from './index';
import { binding, hook, mutating, podRequest, policy, validating } from './test-helpers';

useEngine();

const noDebugLabel = [
  policy('ValidatingAdmissionPolicy', 'no-debug', {
    validations: [{ expression: "!has(object.metadata.labels) || !('debug' in object.metadata.labels)", message: 'debug pods are not allowed' }],
  }),
  binding('ValidatingAdmissionPolicyBinding', 'no-debug-b', 'no-debug'),
];
const addDebugLabel = [
  policy('MutatingAdmissionPolicy', 'add-debug', {
    reinvocationPolicy: 'Never',
    mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/debug', value: 'true'}]" } }],
  }),
  binding('MutatingAdmissionPolicyBinding', 'add-debug-b', 'add-debug'),
];

describe('mutation-breaks-validation (M06)', () => {
  it('a MutatingAdmissionPolicy adds what a ValidatingAdmissionPolicy forbids: the validator, its field and the mutator', async () => {
    const breaks = await mutationBreaks([...addDebugLabel, ...noDebugLabel], podRequest());
    expect(breaks).toHaveLength(1);
    expect(breaks[0]!.validator).toMatchObject({
      kind: 'ValidatingAdmissionPolicy',
      name: 'no-debug',
      binding: 'no-debug-b',
      path: 'spec.validations[0].expression',
    });
    expect(breaks[0]!.mutators.map((s) => [s.kind, s.name])).toEqual([['MutatingAdmissionPolicy', 'add-debug']]);
    expect(breaks[0]!.message).toMatch(
      /^ValidatingAdmissionPolicy "no-debug" \(binding "no-debug-b"\) rejects the object as mutated by MutatingAdmissionPolicy "add-debug" \(binding "add-debug-b"\), but admits it as sent: .*debug pods are not allowed/,
    );
  });

  it("a mutating webhook's assumed patch counts too; a simulate() result that admits or patched nothing answers at once", async () => {
    const ws = [mutating('m', hook('labeler')), ...noDebugLabel];
    const options = { webhooks: { labeler: { patch: [{ op: 'add' as const, path: '/metadata/labels/debug', value: '1' }] } } };
    const simulated = await simulate(ws, podRequest(), options);
    expect(simulated.allowed).toBe(false);
    const breaks = await mutationBreaks(ws, podRequest(), options, undefined, simulated);
    expect(breaks.map((b) => [b.validator.name, b.mutators.map((m) => m.webhook)])).toEqual([['no-debug', ['labeler']]]);
    const admitted = await simulate(ws, podRequest());
    expect(await mutationBreaks(ws, podRequest(), options, undefined, admitted)).toEqual([]); // trusts the result given
  });

  it('nothing when the object as sent is rejected anyway, when nothing mutated, or when the result passes', async () => {
    const debugPod = podRequest({ object: { ...(podRequest().object as object), metadata: { name: 'web-0', namespace: 'team-a', labels: { debug: 'yes' } } } });
    expect(await mutationBreaks([...addDebugLabel, ...noDebugLabel], debugPod)).toEqual([]);
    expect(await mutationBreaks(noDebugLabel, podRequest())).toEqual([]);
    expect(await mutationBreaks(addDebugLabel, podRequest())).toEqual([]);
    // a validating webhook's verdict is assumed, not computed from the object: never broken by a mutation
    expect(await mutationBreaks([...addDebugLabel, validating('v', hook('guard'))], podRequest(), { webhooks: { guard: 'deny' } })).toEqual([]);
  });
});
