/** The notes of a simulation on a request the real apiserver changes in ways the simulator does not (not-modelled.ts). */
import { expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { binding, podRequest, policy } from './test-helpers';

useEngine();

const noTolerations = [
  policy('ValidatingAdmissionPolicy', 'no-tol', { validations: [{ expression: '!has(object.spec.tolerations)', message: 'tolerations are not allowed' }] }),
  binding('ValidatingAdmissionPolicyBinding', 'no-tol', 'no-tol', { validationActions: ['Deny'] }),
];
const notModelled = (notes: readonly string[]) => notes.filter((n) => n.startsWith('not modelled:'));

it("a Pod create through a policy says what a real apiserver adds that the simulator does not: the built-in plugins' tolerations, the registry's status", async () => {
  // a 1.37 kube-apiserver denies this Pod (DefaultTolerationSeconds adds two tolerations); the simulator allows it, and says why it may differ
  const r = await simulate(noTolerations, podRequest());
  expect(r.allowed).toBe(true);
  const notes = notModelled(r.notes);
  expect(notes).toHaveLength(2);
  expect(notes[0]).toContain('DefaultTolerationSeconds adds the node.kubernetes.io/not-ready and unreachable tolerations');
  expect(notes[1]).toContain('status.phase (Pending) and status.qosClass');
});

it('no note where nothing ran, and none for a subresource or a delete', async () => {
  expect(notModelled((await simulate([], podRequest())).notes)).toEqual([]);
  expect(notModelled((await simulate(noTolerations, podRequest({ operation: 'DELETE', oldObject: podRequest().object, object: null }))).notes)).toEqual([]);
  expect(notModelled((await simulate(noTolerations, podRequest({ subResource: 'status' }))).notes)).toEqual([]);
});
