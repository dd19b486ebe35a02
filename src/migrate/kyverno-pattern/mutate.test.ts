/** The mutate converter: which constructs convert, and what the produced JSONPatch writes (the Workbench's MAP evaluation). */
import { describe, expect, it } from 'vitest';
import { prepareChain } from '../../admission';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { canonical, workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';

useEngine();

const policy = (rule: Obj): Obj => ({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [rule] } });
const podRule = (mutate: Obj, extra: Obj = {}): Obj => ({ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate, ...extra });
const pod = (spec: Obj, metadata: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec });

describe('mutate rules', () => {
  it('names what it does not convert', () => {
    const reason = (mutate: Obj, extra: Obj = {}) => {
      const c = convertPatternRule(policy(podRule(mutate, extra)), podRule(mutate, extra));
      expect(c.status).toBe('unsupported');
      return c.reason;
    };
    expect(reason({ patchStrategicMerge: { metadata: { labels: { a: '{{ request.object.metadata.name }}' } } } })).toMatch(/variables/);
    expect(reason({ patchStrategicMerge: { spec: { $patch: 'replace' } } })).toMatch(/\$patch/);
    expect(reason({ patchStrategicMerge: { metadata: { labels: { a: null } } } })).toMatch(/null/);
    expect(reason({ targets: [{ kind: 'Pod' }], patchStrategicMerge: {} })).toMatch(/targets/);
    expect(reason({ foreach: [] })).toMatch(/foreach/);
    expect(reason({ patchesJson6902: '- op: add\n  path: /spec/x/-1\n  value: 1' })).toMatch(/negative index/);
    expect(reason({ patchesJson6902: '- op: move\n  from: /a\n  path: /b' })).toMatch(/move/);
  });

  it('adds where absent, merges containers by name under a conditional anchor, and skips the rule when a global anchor fails', async () => {
    const rule = podRule({
      patchStrategicMerge: {
        metadata: { annotations: { '+(a)': 'added' } },
        spec: { containers: [{ '(name)': 'c*', imagePullPolicy: 'Always' }], volumes: [{ '<(emptyDir)': {} }] },
      },
    });
    const c = convertPatternRule(policy(rule), rule);
    expect(c.status, c.reason).toBe('exact');
    expect(c.objects.map((o) => o.kind)).toEqual(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);
    const chain = prepareChain(c.objects);
    const containers = [
      { name: 'c1', image: 'i:1' },
      { name: 'd', image: 'i:1' },
    ];
    const emptyDir = [{ name: 'v', emptyDir: {} }];
    const out = async (o: Obj) => JSON.parse((await workbenchMutation(chain, o, 'CREATE')).outcome) as Obj;
    const applied = await out(pod({ containers, volumes: emptyDir }, { annotations: { b: 'kept' } }));
    expect((applied.metadata as Obj).annotations).toEqual({ a: 'added', b: 'kept' });
    expect(((applied.spec as Obj).containers as Obj[]).map((x) => x.imagePullPolicy)).toEqual(['Always', 'IfNotPresent']);
    const kept = await out(pod({ containers, volumes: emptyDir }, { annotations: { a: 'mine' } }));
    expect((kept.metadata as Obj).annotations).toEqual({ a: 'mine' });
    // no emptyDir volume: the global anchor fails, nothing is patched
    const skipped = await out(pod({ containers, volumes: [{ name: 'v', configMap: { name: 'm' } }] }));
    expect(canonical((skipped.metadata as Obj).annotations ?? {})).toBe('{}');
  });
});
