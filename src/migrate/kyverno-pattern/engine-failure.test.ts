/**
 * The differentials fail loudly when the CEL engine fails. Admission takes an engine that gives no
 * answer for the policy's CEL error, which failurePolicy Fail turns into a denial: a differential
 * would count it as agreeing with every request Kyverno denies. And a simulation that failed, taken
 * for an object the apiserver would not decode, would drop the request unseen. Both throw instead.
 * (A file of its own: it ends the engine.)
 */
import { expect, it } from 'vitest';
import { prepareChain, simulatePrepared } from '../../admission';
import type { Obj } from '../../base/json';
import { nativeEngines } from '../../cel/engine';
import { useEngine } from '../../cel/test-helpers';
import { workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';
import { TEST_USER } from './differential-users';
import { chainOf, enforcePolicy, vapVerdict } from './test-helpers';

useEngine('native');

const pod: Obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'a' }] } };
const match = { any: [{ resources: { kinds: ['Pod'] } }] };

it('a request the engine could not decide throws, in the validate and the mutate differential', async () => {
  const validate: Obj = { name: 'r', match, validate: { message: 'no', pattern: { spec: { hostNetwork: true } } } };
  const chain = chainOf(convertPatternRule(enforcePolicy(validate), validate).objects);
  const mutate: Obj = { name: 'm', match, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } };
  const mutating = prepareChain(convertPatternRule(enforcePolicy(mutate), mutate).objects);
  expect((await vapVerdict(chain, pod)).verdict).toBe('deny');
  expect(JSON.parse((await workbenchMutation(mutating, pod, 'CREATE')).outcome).metadata.labels).toEqual({ a: 'b' });

  nativeEngines()!.close();
  // admission's own answer: the policy errs, a denial the differential would have taken for Kyverno's
  const r = await simulatePrepared(chain, {
    operation: 'CREATE',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    name: 'x',
    namespace: 'default',
    userInfo: TEST_USER,
    object: pod,
  });
  expect(r.deniedBy?.kind).toBe('ValidatingAdmissionPolicy');
  expect(r.steps.find((s) => s.kind === 'ValidatingAdmissionPolicy')?.outcome).toBe('error-rejected');
  await expect(vapVerdict(chain, pod)).rejects.toThrow(/the CEL engine failed: engine: the native CEL engine (exited|failed)/);
  await expect(workbenchMutation(mutating, pod, 'CREATE')).rejects.toThrow(/the CEL engine failed: engine: the native CEL engine (exited|failed)/);
});
