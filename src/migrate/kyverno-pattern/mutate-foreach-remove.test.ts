/** `mutate.foreach` removals per element, nested too (mutate-foreach-remove.ts): what the produced policy removes. */
import { describe, expect, it } from 'vitest';
import { prepareChain } from '../../admission';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';

useEngine();

const policy = (rule: Obj): Obj => ({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [rule] } });
// remove-hostpath-volumes (kyverno/policies): the hostPath volumes, then every container's mounts of them
const volumes = {
  list: 'request.object.spec.volumes[]',
  order: 'Descending',
  preconditions: { all: [{ key: 'hostPath', operator: 'AnyIn', value: '{{ element.keys(@) }}' }] },
  patchesJson6902: '- path: /spec/volumes/{{elementIndex}}\n  op: remove',
};
const mounts = {
  list: 'request.object.spec.containers[]',
  foreach: [
    {
      list: ' element.volumeMounts || `[]` ',
      order: 'Descending',
      preconditions: { all: [{ key: '{{element.name}}', operator: 'AnyIn', value: '{{ hostpathvolnames }}' }] },
      patchesJson6902: '- path: /spec/containers/{{elementIndex0}}/volumeMounts/{{elementIndex1}}\n  op: remove',
    },
  ],
};
const rule = (foreach: Obj[], extra: Obj = {}): Obj => ({
  name: 'r',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  context: [{ name: 'hostpathvolnames', variable: { jmesPath: 'request.object.spec.volumes[?hostPath].name' } }],
  preconditions: { all: [{ key: '{{ length(hostpathvolnames) }}', operator: 'GreaterThan', value: 0 }] },
  mutate: { foreach },
  ...extra,
});

describe('removals per element', () => {
  it('removes the matching elements last first, and the mounts of the removed volumes in every container', async () => {
    const r = rule([volumes, mounts]);
    const c = convertPatternRule(policy(r), r);
    expect(c.status, c.reason).toBe('exact');
    const pod: Obj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'x', namespace: 'default' },
      spec: {
        containers: [
          {
            name: 'a',
            image: 'i',
            volumeMounts: [
              { name: 'h1', mountPath: '/1' },
              { name: 'e', mountPath: '/e' },
              { name: 'h2', mountPath: '/2' },
            ],
          },
          { name: 'b', image: 'i' },
        ],
        volumes: [
          { name: 'h1', hostPath: { path: '/h' } },
          { name: 'e', emptyDir: {} },
          { name: 'h2', hostPath: { path: '/g' } },
        ],
      },
    };
    const out = JSON.parse((await workbenchMutation(prepareChain(c.objects), pod, 'CREATE')).outcome) as Obj;
    const spec = out.spec as Obj;
    expect((spec.volumes as Obj[]).map((v) => v.name)).toEqual(['e']);
    expect((spec.containers as Obj[])[0]!.volumeMounts).toEqual([{ name: 'e', mountPath: '/e' }]);
  });

  it('refuses removals first to last, context the first precondition does not load, and a later entry reading the list removed from', () => {
    const status = (r: Obj) => convertPatternRule(policy(r), r);
    expect(status(rule([{ ...volumes, order: 'Ascending' }])).status).toBe('unsupported');
    expect(
      status(rule([volumes, mounts], { preconditions: { all: [{ key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE' }] } })).reason,
    ).toMatch(/context a foreach would load/);
    const reads = { ...mounts, list: 'request.object.spec.volumes[]' };
    expect(status(rule([volumes, reads])).reason).toMatch(/later entry reads the list/);
  });
});
