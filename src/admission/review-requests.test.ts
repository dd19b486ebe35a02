/**
 * Review requests (TokenReview, SubjectAccessReview …): what admission sees of them and when.
 * The object reaches admission as the Go type encodes it, with the status empty (the REST
 * handler computes it after admission: pkg/registry/authentication/tokenreview/storage.go) and
 * whatever the client posted; at 1.37 no webhook sees them (ExcludeAdmissionWebhookVirtualResources),
 * at 1.36 a webhook for `*` does; admission policies never do.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { apiserverObject, loadTypedData } from '../k8s/typed';
import { hook, mutating } from './test-helpers';

useEngine();
beforeAll(() => loadTypedData('1.37'));
const serializeTyped = (o: unknown): unknown => apiserverObject(o, '1.37').object;

const everything = { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] };
const tokenReview = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'abc' } };
const request = {
  operation: 'CREATE' as const,
  resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' },
  kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' },
  userInfo: { username: 'system:kube-aggregator', groups: ['system:authenticated'] },
  object: tokenReview,
};

describe('review requests', () => {
  it('the object as the apiserver encodes it: metadata, spec and the empty status Go always writes', () => {
    expect(serializeTyped(tokenReview)).toEqual({ ...tokenReview, metadata: {}, status: { user: {} } });
    expect(serializeTyped({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'jane' } })).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: 'jane' },
      status: { allowed: false },
    });
    expect(serializeTyped({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'a' } })).toMatchObject({
      status: { resourceRules: null, nonResourceRules: null, incomplete: false },
    });
    // a status the client posted is kept: nothing resets it before admission
    expect(serializeTyped({ ...tokenReview, status: { authenticated: true } })).toMatchObject({ status: { authenticated: true, user: {} } });
  });

  it('1.36: a mutating webhook for * sees and patches the TokenReview as encoded; 1.37: no webhook sees it', async () => {
    const objects = [mutating('all', hook('all.example.com', { rules: [everything], reinvocationPolicy: 'Never' }))];
    const patch = [{ op: 'add' as const, path: '/metadata/labels', value: { seen: 'yes' } }];
    const at136 = await simulate(objects, request, { kubernetesVersion: '1.36', webhooks: { 'all.example.com': { patch } } });
    expect(at136.steps[0]).toMatchObject({ outcome: 'patched' });
    expect(at136.object).toEqual({ ...tokenReview, metadata: { labels: { seen: 'yes' } }, status: { user: {} } });
    const at137 = await simulate(objects, request, { kubernetesVersion: '1.37', webhooks: { 'all.example.com': { patch } } });
    expect(at137.steps[0]).toMatchObject({ outcome: 'skipped' });
    expect(at137.steps[0]!.reason).toMatch(/never sends it to admission webhooks/);
    expect(at137.object).toEqual({ ...tokenReview, metadata: {}, status: { user: {} } });
  });
});
