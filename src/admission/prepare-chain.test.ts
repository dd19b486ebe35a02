/** prepareChain reuses a recent chain's workspace where only params differ: in place, or created at the end (the impact replay's chain changes). */
import { describe, expect, it } from 'vitest';
import { noteSplice } from '../base/splice';
import { useEngine } from '../cel/test-helpers';
import { prepareChain, simulate, simulatePrepared } from './index';
import { binding, podRequest, policy } from './test-helpers';

useEngine();

const paramPolicy = policy('ValidatingAdmissionPolicy', 'allowed-apps', {
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  validations: [{ expression: 'object.metadata.labels.app == params.data.app', message: 'not an allowed app' }],
});
const paramBinding = binding('ValidatingAdmissionPolicyBinding', 'allowed-apps', 'allowed-apps', {
  paramRef: { name: 'apps', parameterNotFoundAction: 'Deny' },
});
const param = (namespace: string, app: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'apps', namespace }, data: { app } });

describe('prepareChain', () => {
  it('a param added at the end: the workspace kept, the new param read, the same verdicts as a chain prepared afresh', async () => {
    const before = [paramPolicy, paramBinding, param('team-b', 'web')];
    const first = prepareChain(before);
    const after = [...before, param('team-a', 'db')];
    const second = prepareChain(after);
    expect(second.ws.policies).toBe(first.ws.policies);
    expect(second.ws.documents).toBe(after);
    const request = podRequest();
    const fresh = await simulate(after, request);
    const reused = await simulatePrepared(second, request);
    expect(reused.allowed).toBe(false);
    expect(reused.deniedBy?.message).toContain('not an allowed app');
    expect(reused).toEqual(fresh);
    // in the chain before, team-a has no param: Deny denies for that reason instead
    expect((await simulatePrepared(first, request)).deniedBy?.message).not.toContain('not an allowed app');
  }, 60_000);

  it('an admission object added at the end: the workspace collected again', () => {
    const before = [paramPolicy, paramBinding, param('team-b', 'web')];
    const first = prepareChain(before);
    const other = policy('ValidatingAdmissionPolicy', 'other', { validations: [{ expression: 'true' }] });
    const second = prepareChain([...before, other]);
    expect(second.ws.policies).not.toBe(first.ws.policies);
    expect(second.ws.policies.validating.map((p) => p.name)).toEqual(['allowed-apps', 'other']);
  });

  it('a chain noted as a change to the last (base/splice.ts): only the change is read, an admission object in it still collects again', () => {
    const params = Array.from({ length: 50 }, (_, i) => param(`team-${i}`, 'web'));
    const first = prepareChain([paramPolicy, paramBinding, ...params]);
    // a param written in place, noted: the workspace kept, and the next chain compares with this one
    const second = [...first.objects];
    second[20] = param('team-18', 'db');
    noteSplice(second, first.objects, 20, second.length - 21);
    const two = prepareChain(second);
    expect(two.ws.policies).toBe(first.ws.policies);
    // noted as a change to the second: a policy in the change is collected, as without a note
    const other = policy('ValidatingAdmissionPolicy', 'other', { validations: [{ expression: 'true' }] });
    const third = [...second];
    third[30] = other;
    noteSplice(third, second, 30, third.length - 31);
    const three = prepareChain(third);
    expect(three.ws.policies).not.toBe(first.ws.policies);
    expect(three.ws.policies.validating.map((p) => p.name)).toEqual(['allowed-apps', 'other']);
    // the binding replaced by another object in a noted change at the start
    const fourth = [...third];
    fourth[1] = param('team-x', 'web');
    noteSplice(fourth, third, 1, fourth.length - 2);
    expect(prepareChain(fourth).ws.policies.validating[0]!.bindings).toEqual([]);
  });
});
