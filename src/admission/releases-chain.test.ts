/** The chain by release (src/base/releases.ts `chain`): review resources skipped by policies and (from 1.37) webhooks, metadata-less review objects, the validation_failure annotation. Real CEL engine. */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { binding, hook, mutating, podRequest, policy, policyStep, validating, webhookStep } from './test-helpers';
import type { SimRequest } from './types';

useEngine();

const everything = { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] };
const tokenReviewRule = { apiGroups: ['authentication.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['tokenreviews'] };

/** A TokenReview as clients post it: no metadata at all. */
const tokenReview = (): SimRequest => ({
  operation: 'CREATE',
  resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' },
  kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' },
  userInfo: { username: 'kubelet', groups: ['system:nodes', 'system:authenticated'] },
  object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'abc' } },
});

const sar = (): SimRequest => ({
  operation: 'CREATE',
  resource: { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' },
  kind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' },
  userInfo: { username: 'alice', groups: ['system:authenticated'] },
  object: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } } },
});

const denyAll = [
  policy('ValidatingAdmissionPolicy', 'deny-all', {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [everything] },
    validations: [{ expression: 'false', message: 'no' }],
  }),
  binding('ValidatingAdmissionPolicyBinding', 'deny-all-b', 'deny-all'),
];

describe('admission policies skip the review resources at every release', () => {
  for (const kubernetesVersion of ['1.30', '1.36', '1.37'] as const) {
    it(`${kubernetesVersion}: a VAP matching everything does not see a TokenReview or a SubjectAccessReview, and says why`, async () => {
      for (const request of [tokenReview(), sar()]) {
        const r = await simulate(denyAll, request, { kubernetesVersion });
        expect(r.allowed).toBe(true);
        const s = policyStep(r, 'deny-all');
        expect(s).toMatchObject({ outcome: 'skipped', path: 'spec.matchConstraints' });
        expect(s.reason).toContain(`${request.resource!.group}/${request.resource!.resource} is a review resource`);
      }
    });
  }

  it('a MAP does not mutate a TokenReview; a Pod is still denied by the same VAP', async () => {
    const map = policy('MutatingAdmissionPolicy', 'label-all', {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: { resourceRules: [everything] },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"seen": "yes"}}}' } }],
    });
    const r = await simulate([map, binding('MutatingAdmissionPolicyBinding', 'label-all-b', 'label-all')], tokenReview(), { kubernetesVersion: '1.36' });
    expect(policyStep(r, 'label-all').outcome).toBe('skipped');
    expect(r.patches).toEqual([]);
    expect((await simulate(denyAll, podRequest(), { kubernetesVersion: '1.36' })).allowed).toBe(false);
  });
});

describe('webhooks skip the review resources where the release row says so', () => {
  const ws = [validating('v', hook('named', { rules: [tokenReviewRule] }), hook('star', { rules: [everything] }))];

  it('1.36: webhooks naming tokenreviews explicitly or by * are called', async () => {
    const r = await simulate(ws, tokenReview(), { kubernetesVersion: '1.36', webhooks: { named: 'deny' } });
    expect(r.allowed).toBe(false);
    expect(r.deniedBy).toMatchObject({ webhook: 'named', code: 400 });
    expect(webhookStep(r, 'star').outcome).toBe('admitted');
  });

  it('1.37 (ExcludeAdmissionWebhookVirtualResources): neither is called, each step says why', async () => {
    for (const request of [tokenReview(), sar()]) {
      const r = await simulate([...ws, mutating('m', hook('m-star', { rules: [everything] }))], request, {
        kubernetesVersion: '1.37',
        webhooks: { named: 'deny', star: 'deny', 'm-star': 'deny' },
      });
      expect(r.allowed).toBe(true);
      for (const name of ['named', 'star', 'm-star']) {
        const s = webhookStep(r, name);
        expect(s.outcome).toBe('skipped');
        expect(s.reason).toContain('ExcludeAdmissionWebhookVirtualResources');
        expect(s.path).toMatch(/^webhooks\[\d\]\.rules$/);
      }
    }
  });

  it('1.37: other resources still reach the webhooks', async () => {
    const r = await simulate(ws, podRequest(), { kubernetesVersion: '1.37', webhooks: { star: 'deny' } });
    expect(r.deniedBy).toMatchObject({ webhook: 'star' });
  });
});

describe('a review object without metadata', () => {
  it("reaches a mutating webhook with metadata: an 'add /metadata/labels' patch applies (1.36)", async () => {
    const patch = [{ op: 'add' as const, path: '/metadata/labels', value: { reviewed: 'yes' } }];
    const r = await simulate([mutating('m', hook('labeler', { rules: [tokenReviewRule] }))], tokenReview(), {
      kubernetesVersion: '1.36',
      webhooks: { labeler: { patch } },
    });
    expect(r.allowed).toBe(true);
    expect(webhookStep(r, 'labeler').outcome).toBe('patched');
    // and with the empty status Go always encodes (the status is computed after admission)
    expect(r.object).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: { labels: { reviewed: 'yes' } },
      spec: { token: 'abc' },
      status: { user: {} },
    });
  });
});

describe('validation_failure: Audit-action failures by release', () => {
  const audit = (name: string, messages: string[]) => [
    policy('ValidatingAdmissionPolicy', name, { failurePolicy: 'Fail', validations: messages.map((message) => ({ expression: 'false', message })) }),
    binding('ValidatingAdmissionPolicyBinding', `${name}-b`, name, { validationActions: ['Audit'] }),
  ];
  const ws = [...audit('a-first', ['a0', 'a1']), ...audit('b-second', ['b0'])];
  const key = 'validation.policy.admission.k8s.io/validation_failure';
  const entry = (policy: string, message: string, expressionIndex: number) => ({
    message,
    policy,
    binding: `${policy}-b`,
    expressionIndex,
    validationActions: ['Audit'],
  });

  it('1.36: one annotation per failure, the request keeps the first', async () => {
    const r = await simulate(ws, podRequest(), { kubernetesVersion: '1.36' });
    expect(r.allowed).toBe(true);
    expect(JSON.parse(r.auditAnnotations[key]!)).toEqual([entry('a-first', 'a0', 0)]);
  });

  it('1.37: one annotation with every failure of every policy', async () => {
    const r = await simulate(ws, podRequest(), { kubernetesVersion: '1.37' });
    expect(JSON.parse(r.auditAnnotations[key]!)).toEqual([entry('a-first', 'a0', 0), entry('a-first', 'a1', 1), entry('b-second', 'b0', 0)]);
  });

  it('1.37: at most 50 failures', async () => {
    const many = audit(
      'many',
      Array.from({ length: 60 }, (_, i) => `m${i}`),
    );
    const r = await simulate(many, podRequest(), { kubernetesVersion: '1.37' });
    expect(JSON.parse(r.auditAnnotations[key]!)).toHaveLength(50);
  });
});
