import { describe, expect, test } from 'vitest';
import { BUILTIN_RESOURCES, groupForResource, isClusterScoped, kindForResource, resourceForKind, servedIn } from './resources';

describe('the one resource table', () => {
  test('lookups prefer the group/version a current release serves', () => {
    expect(groupForResource('ingresses')).toBe('networking.k8s.io');
    expect(groupForResource('leases')).toBe('coordination.k8s.io');
    expect(groupForResource('pods')).toBe('');
    expect(kindForResource('storageclasses')).toBe('StorageClass');
    expect(kindForResource('widgets')).toBe('Widget');
    expect(resourceForKind('NetworkPolicy')).toBe('networkpolicies');
    expect(resourceForKind('Gadget')).toBe('gadgets');
  });
  test('scope from the table, not a hand list', () => {
    expect(isClusterScoped('StorageClass')).toBe(true);
    expect(isClusterScoped('Namespace')).toBe(true);
    expect(isClusterScoped('Lease')).toBe(false);
    expect(isClusterScoped('Widget')).toBe(false);
  });
  test('served ranges', () => {
    const mapv1 = BUILTIN_RESOURCES.find((r) => r.resource === 'mutatingadmissionpolicies' && r.version === 'v1')!;
    expect(servedIn(mapv1, 35)).toBe(false);
    expect(servedIn(mapv1, 36)).toBe(true);
  });
});
