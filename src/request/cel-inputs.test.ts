import { describe, expect, test } from 'vitest';
import { celInputs, REQUEST_UID, requestAttributes, toCelInputs } from './cel-inputs';
import type { AdmissionRequest, TestInput } from './model';

const pods = { group: '', version: 'v1', resource: 'pods' };
const pod = { group: '', version: 'v1', kind: 'Pod' };
const req: AdmissionRequest = { operation: 'CREATE', resource: pods, kind: pod, subResource: 'status', name: 'p', namespace: 'a', object: { kind: 'Pod' } };
const ns = { kind: 'Namespace', metadata: { name: 'a' } };

describe('what CEL sees of a request', () => {
  test('requestAttributes fills uid and request* from the request, keeping what it names', () => {
    expect(requestAttributes(req)).toMatchObject({ uid: REQUEST_UID, requestKind: pod, requestResource: pods, requestSubResource: 'status' });
    const asked = {
      ...req,
      uid: 'u',
      requestResource: { group: 'extensions', version: 'v1beta1', resource: 'pods' },
      requestKind: pod,
      requestSubResource: '',
    };
    expect(requestAttributes(asked)).toBe(asked);
  });
  test('request without object / oldObject; params and object may be replaced per invocation', () => {
    const input: TestInput = { request: { ...req, oldObject: { kind: 'Pod', old: true } }, params: { p: 1 }, namespaceObject: ns };
    const c = celInputs(input);
    expect(c.request).not.toHaveProperty('object');
    expect(c.request).not.toHaveProperty('oldObject');
    expect(c).toMatchObject({ object: { kind: 'Pod' }, oldObject: { old: true }, params: { p: 1 }, namespaceObject: ns, authorizer: { rules: [] } });
    expect(celInputs(input, null, { kind: 'Pod', mutated: true })).toMatchObject({ params: null, object: { mutated: true } });
  });
  test('namespaceObject is null for cluster-scoped requests and for requests on a Namespace', () => {
    expect(celInputs({ request: { ...req, namespace: undefined }, namespaceObject: ns }).namespaceObject).toBeNull();
    const onNs: AdmissionRequest = {
      operation: 'UPDATE',
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      name: 'a',
      namespace: 'a',
    };
    expect(celInputs({ request: onNs, namespaceObject: ns }).namespaceObject).toBeNull();
  });
  test('toCelInputs: one frozen object per input', () => {
    const input: TestInput = { request: req };
    expect(toCelInputs(input)).toBe(toCelInputs(input));
    expect(Object.isFrozen(toCelInputs(input))).toBe(true);
  });
});
