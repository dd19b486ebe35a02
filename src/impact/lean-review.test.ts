/**
 * Review requests (TokenReview, SubjectAccessReview …) on the lean path: the plugins a release
 * excludes them from return before any policy or webhook, the others run as for any request. At
 * 1.36 webhooks see them and policies do not; at 1.37 neither does (src/base/releases.ts).
 */
import { describe, expect, it } from 'vitest';
import { leanChain, leanSet, leanVerdicts, prepareChain, type SimRequest } from '../admission';
import { binding, hook, mutating, policy, validating } from '../admission/test-helpers';
import type { KubernetesVersion } from '../base/releases';
import { evaluate, evaluateBatch } from '../cel';
import { useEngine } from '../cel/test-helpers';
import type { PolicyCel } from '../policy';
import type { AdmissionRequest } from '../request/model';
import { chainDecider, fullDecider, type ChainSpec } from './index';

useEngine();

const cel: PolicyCel = { evaluate: (e, c, i, o) => evaluate(e, c, i, o), evaluateBatch: (items, inputs) => evaluateBatch(items, inputs) };
const everything = { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] };
const review = (resource: string, kind: string, group: string, spec: Record<string, unknown>): SimRequest => ({
  operation: 'CREATE',
  resource: { group, version: 'v1', resource },
  kind: { group, version: 'v1', kind },
  userInfo: { username: 'system:serviceaccount:monitoring:kube-rbac-proxy', groups: ['system:authenticated'] },
  object: { apiVersion: `${group}/v1`, kind, spec },
});
const requests = [
  review('tokenreviews', 'TokenReview', 'authentication.k8s.io', { token: 'abc' }),
  review('subjectaccessreviews', 'SubjectAccessReview', 'authorization.k8s.io', { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods' } }),
];
const chains: Record<string, unknown[]> = {
  'a webhook for everything that denies': [validating('deny-all', hook('deny-all.example.com', { rules: [everything] }))],
  'a webhook that patches, one that warns': [
    mutating('label', hook('label.example.com', { rules: [everything], reinvocationPolicy: 'Never' })),
    validating('warn', hook('warn.example.com', { rules: [everything], matchConditions: [{ name: 'named', expression: "request.userInfo.username != ''" }] })),
  ],
  'a policy for everything that denies': [
    policy('ValidatingAdmissionPolicy', 'deny-all', { matchConstraints: { resourceRules: [everything] }, validations: [{ expression: 'false' }] }),
    binding('ValidatingAdmissionPolicyBinding', 'deny-all', 'deny-all'),
  ],
};
const webhooks = {
  'deny-all.example.com': 'deny' as const,
  'label.example.com': { patch: [{ op: 'add' as const, path: '/metadata/labels', value: { seen: 'yes' } }] },
  'warn.example.com': { warnings: ['reviewed'] },
};

describe('review requests on the lean path', () => {
  for (const release of ['1.36', '1.37'] as KubernetesVersion[])
    for (const [name, objects] of Object.entries(chains))
      it(`${release}, ${name}: decided lean, as the full simulation decides`, async () => {
        for (const request of requests) {
          const spec: ChainSpec = { baseline: [], candidate: objects, kubernetesVersion: release, webhooks };
          const [full, lean] = await Promise.all([
            fullDecider(spec)(request as AdmissionRequest, undefined),
            chainDecider(spec)(request as AdmissionRequest, undefined),
          ]);
          expect(lean).toEqual(full);
          const set = leanSet([leanChain(prepareChain(objects, { kubernetesVersion: release }))]);
          const [v] = await leanVerdicts(set, request, { webhooks }, cel);
          expect(v, 'the lean path decides it').toBeDefined();
          expect(v!.allowed).toBe(full.candidate.allowed);
        }
      });

  it('a webhook sees them at 1.36, not at 1.37; a policy at neither', async () => {
    const decide = (release: KubernetesVersion, objects: unknown[]) =>
      chainDecider({ baseline: [], candidate: objects, kubernetesVersion: release, webhooks })(requests[0] as AdmissionRequest, undefined);
    expect((await decide('1.36', chains['a webhook for everything that denies']!)).candidate.allowed).toBe(false);
    expect((await decide('1.37', chains['a webhook for everything that denies']!)).candidate.allowed).toBe(true);
    const patched = await decide('1.36', chains['a webhook that patches, one that warns']!);
    expect(patched.candidate).toMatchObject({ mutated: true, warnings: ['reviewed'], calls: ['label.example.com', 'warn.example.com'] });
    expect((await decide('1.36', chains['a policy for everything that denies']!)).candidate.allowed).toBe(true);
  });
});
