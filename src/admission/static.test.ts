/**
 * Static manifests in the chain (k8s.io/apiserver v0.37.2): each plugin's composite source puts
 * the static hooks, by name, before the API ones; a static binding binds only a static policy;
 * static hooks are called for admission configuration resources, API hooks are not; the lockout
 * report says when the configuration responsible is static.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { lockoutReport, simulate } from './index';
import { binding, hook, podRequest, policy, validating } from './test-helpers';

useEngine();

const deny = (message: string) => ({ validations: [{ expression: 'false', message }] });
const pass = { validations: [{ expression: 'true' }] };

describe('static manifests in the chain', () => {
  const ws = [
    validating('a-api', hook('a-api.example.com')),
    validating('z.static.k8s.io', hook('z.example.com')),
    policy('ValidatingAdmissionPolicy', 'a-policy', pass),
    binding('ValidatingAdmissionPolicyBinding', 'a-binding', 'a-policy'),
    policy('ValidatingAdmissionPolicy', 'p.static.k8s.io', pass),
    binding('ValidatingAdmissionPolicyBinding', 'b.static.k8s.io', 'p.static.k8s.io'),
  ];

  it('static webhooks and policies run first, and say so', async () => {
    const r = await simulate(ws, podRequest(), { staticDocuments: [1, 4, 5] });
    // ValidatingAdmissionPolicy runs before ValidatingAdmissionWebhook (the plugin order); static first in each
    expect(r.steps.map((s) => `${s.phase} ${s.webhook ?? `${s.name}/${s.binding ?? ''}`}${s.static ? ' (static)' : ''}`)).toEqual([
      'validating p.static.k8s.io/b.static.k8s.io (static)',
      'validating a-policy/a-binding',
      'validating z.example.com (static)',
      'validating a-api.example.com',
    ]);
  });

  it('without the mark the same objects are API objects, by name', async () => {
    const r = await simulate(ws, podRequest());
    expect(r.steps.map((s) => s.webhook ?? s.name)).toEqual(['a-policy', 'p.static.k8s.io', 'a-api.example.com', 'z.example.com']);
    expect(r.steps.some((s) => s.static)).toBe(false);
  });

  it('a static binding does not bind an API policy of the same name', async () => {
    const objects = [
      policy('ValidatingAdmissionPolicy', 'p.static.k8s.io', deny('api')),
      binding('ValidatingAdmissionPolicyBinding', 'b.static.k8s.io', 'p.static.k8s.io'),
    ];
    const r = await simulate(objects, podRequest(), { staticDocuments: [1] });
    expect(r.allowed).toBe(true);
    expect(r.steps.find((s) => s.binding === 'b.static.k8s.io')).toMatchObject({ outcome: 'skipped', path: 'spec.policyName' });
  });

  it('static hooks see admission configuration resources; API hooks do not', async () => {
    const rule = { apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*'] };
    const objects = [
      validating('api-guard', hook('api.example.com', { rules: [rule] })),
      validating('guard.static.k8s.io', hook('static.example.com', { rules: [rule] })),
      {
        ...policy('ValidatingAdmissionPolicy', 'keep.static.k8s.io', deny('no new policies')),
        spec: { matchConstraints: { resourceRules: [rule] }, ...deny('no new policies') },
      },
      binding('ValidatingAdmissionPolicyBinding', 'keep-binding.static.k8s.io', 'keep.static.k8s.io'),
    ];
    const vap = policy('ValidatingAdmissionPolicy', 'new', deny('x'));
    const request = {
      operation: 'CREATE' as const,
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' },
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
      name: 'new',
      userInfo: { username: 'jane', groups: ['system:authenticated'] },
      object: vap,
    };
    const r = await simulate(objects, request, { staticDocuments: [1, 2, 3] });
    expect(r.deniedBy).toMatchObject({ kind: 'ValidatingAdmissionPolicy', name: 'keep.static.k8s.io' });
    const hooks = await simulate(objects.slice(0, 2), request, { staticDocuments: [1] });
    expect(hooks.steps.find((s) => s.webhook === 'api.example.com')).toMatchObject({
      outcome: 'skipped',
      reason: 'admission configuration resources are never sent to webhooks',
    });
    expect(hooks.steps.find((s) => s.webhook === 'static.example.com')).toMatchObject({ outcome: 'admitted', static: true });
    // the same policy as an API object is not run on a policy create
    expect((await simulate(objects, request)).allowed).toBe(true);
  });

  it('API policies skip only the policy resources: a webhook configuration create reaches them', async () => {
    const rule = { apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*'] };
    const objects = [
      { ...policy('ValidatingAdmissionPolicy', 'no-new-config', deny('no')), spec: { matchConstraints: { resourceRules: [rule] }, ...deny('no') } },
      binding('ValidatingAdmissionPolicyBinding', 'no-new-config-binding', 'no-new-config'),
    ];
    const create = (resource: string, kind: string) => ({
      operation: 'CREATE' as const,
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource },
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind },
      name: 'x',
      userInfo: { username: 'jane', groups: ['system:authenticated'] },
      object: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: 'x' } },
    });
    // policy/generic/plugin.go admissionResources: the four policy resources, not the webhook configurations
    expect((await simulate(objects, create('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'))).deniedBy).toMatchObject({
      name: 'no-new-config',
    });
    const vap = await simulate(objects, create('validatingadmissionpolicies', 'ValidatingAdmissionPolicy'));
    expect(vap.allowed).toBe(true);
    expect(vap.steps[0]!.reason).toMatch(/exempt from admission policies/);
  });

  it('the lockout report says that a static guard cannot be deleted through the API', async () => {
    const guard = validating(
      'guard.static.k8s.io',
      hook('guard.example.com', { rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*/*'] }] }),
    );
    const r = await lockoutReport([guard], { staticDocuments: [0] });
    expect(r.headline).toMatch(/'guard\.example\.com' is a static manifest, which the API cannot delete$/);
    const lease = r.findings.find((f) => f.request === 'kubelet-lease')!;
    expect(lease.static).toBe(true);
    expect(lease.reason).toContain('it is a static manifest: it cannot be deleted or edited through the API');
    const api = await lockoutReport([guard]);
    expect(api.findings.some((f) => f.static)).toBe(false);
  });
});
