import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { webhookWouldBeCalled } from './webhook';
import type { RunRequestInput } from './dispatch';

vi.setConfig({ testTimeout: 30_000 });
const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));
const cel = { evaluate };

/** Two matchConditions of the VAP documentation's access/validating-admission-policy-match-conditions.yaml, on a webhook. */
const webhook = (extra: Record<string, unknown> = {}) => ({
  name: 'my-webhook.example.com',
  rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
  matchConditions: [
    { name: 'exclude-leases', expression: '!(request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases")' },
    { name: 'exclude-kubelet-requests', expression: '!("system:nodes" in request.userInfo.groups)' },
  ],
  clientConfig: { service: { namespace: 'default', name: 'svc' } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const input = (groups: string[], resource = { group: '', version: 'v1', resource: 'pods' }): RunRequestInput => ({
  request: { operation: 'CREATE', resource, kind: { group: resource.group, version: 'v1', kind: 'X' }, namespace: 'default', name: 'x', userInfo: { username: 'u', groups } },
  object: { metadata: { name: 'x' } },
  namespaceObject: { metadata: { name: 'default' } },
});

describe.runIf(hasWasm)('webhookWouldBeCalled (real engine)', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);
  test('called when rules match and every matchCondition is true', async () => {
    const r = await webhookWouldBeCalled(webhook(), 'ValidatingWebhookConfiguration', input(['system:authenticated']), cel);
    expect(r.outcome).toBe('called');
  });
  test('not called for kubelets and for leases', async () => {
    const kubelet = await webhookWouldBeCalled(webhook(), 'ValidatingWebhookConfiguration', input(['system:nodes']), cel);
    expect(kubelet).toMatchObject({ outcome: 'not-called', reason: "matchCondition 'exclude-kubelet-requests' is false" });
    const lease = await webhookWouldBeCalled(webhook(), 'ValidatingWebhookConfiguration', input([], { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }), cel);
    expect(lease.outcome).toBe('not-called');
  });
  test('not called when the rules do not match (no CEL evaluated)', async () => {
    const r = await webhookWouldBeCalled(webhook({ rules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }), 'MutatingWebhookConfiguration', input([]), cel);
    expect(r.outcome).toBe('not-called');
    expect(r.matchConditions).toBeUndefined();
  });
  test('an erroring matchCondition: rejected under Fail (the default), ignored under Ignore', async () => {
    const bad = { matchConditions: [{ name: 'bad', expression: "object.metadata.labels['x'] == 'y'" }] };
    const fail = await webhookWouldBeCalled(webhook(bad), 'ValidatingWebhookConfiguration', input([]), cel);
    expect(fail).toMatchObject({ outcome: 'rejected', failurePolicy: 'Fail' });
    expect(fail.error).toContain('no such key: labels');
    const ignore = await webhookWouldBeCalled(webhook({ ...bad, failurePolicy: 'Ignore' }), 'ValidatingWebhookConfiguration', input([]), cel);
    expect(ignore.outcome).toBe('ignored');
  });
});
