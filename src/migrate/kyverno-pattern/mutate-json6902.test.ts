/** patchesJson6902 through a list index: what the produced policy does where Kyverno pads a short list (mutate-json6902.ts). */
import { describe, expect, it } from 'vitest';
import { prepareChain } from '../../admission';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';

useEngine();

const policy = (rule: Obj): Obj => ({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [rule] } });
const rule = (path: string): Obj => ({
  name: 'r',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  mutate: { patchesJson6902: `- op: add\n  path: ${path}\n  value: {mountPath: /s, name: s}` },
});
const pod = (containers: unknown): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default' }, spec: { containers } });

describe('an add through a list index', () => {
  it("adds through a pod spec's containers; where the index is past them, an element without a name (Kyverno pads the list: rejected on both sides)", async () => {
    const c = convertPatternRule(policy(rule('/spec/containers/0/volumeMounts/-')), rule('/spec/containers/0/volumeMounts/-'));
    expect(c.status, c.reason).toBe('exact');
    const chain = prepareChain(c.objects);
    const added = JSON.parse((await workbenchMutation(chain, pod([{ name: 'a', image: 'i' }]), 'CREATE')).outcome) as Obj;
    expect(((added.spec as Obj).containers as Obj[])[0]!.volumeMounts).toEqual([{ mountPath: '/s', name: 's' }]);
    expect((await workbenchMutation(chain, pod([]), 'CREATE')).outcome).toBe('rejected');
  });

  it('stays different through the index of a list whose elements need no name (Kyverno keeps the nulls it pads with)', () => {
    const r = rule('/spec/tolerations/0/x');
    expect(convertPatternRule(policy(r), r).status).toBe('different');
  });
});
