import { describe, expect, it } from 'vitest';
import { kindSpecOf } from './kinds';
import { configMap, paramSpecOf } from './params';

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'p' },
  spec: { paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' } },
};

describe('param objects', () => {
  it('a ConfigMap has a form: metadata with its namespace, data and immutable; it is not admission configuration', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
    expect(paramSpecOf(cm, [])).toBe(configMap);
    expect(kindSpecOf(cm)).toBeUndefined();
    expect(configMap.fields.map((f) => f.name)).toEqual(['metadata', 'data', 'immutable']);
    const meta = configMap.fields[0]!;
    expect(meta.type === 'object' && meta.fields.find((f) => f.name === 'namespace')?.hidden).toBe(false);
  });

  it('an object of a kind a policy of the workspace names as paramKind has a metadata form; other kinds none', () => {
    const limit = { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit', metadata: { name: 'l' }, maxReplicas: 3 };
    const spec = paramSpecOf(limit, [policy, limit]);
    expect(spec).toMatchObject({ group: 'rules.example.com', kind: 'ReplicaLimit', versions: [{ name: 'v1' }] });
    expect(spec!.fields.map((f) => f.name)).toEqual(['metadata']);
    expect(paramSpecOf(limit, [limit])).toBeUndefined();
    expect(paramSpecOf({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } }, [policy])).toBeUndefined();
  });
});
