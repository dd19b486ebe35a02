/**
 * The AuthorizationConditionsEnforcer (1.38, gate ConditionalAuthorization, alpha; k8s.io/apiserver
 * v0.38 pkg/admission/plugin/authorizer/conditionsenforcer): inert while the gate is off; with
 * it on, between ValidatingAdmissionPolicy and ValidatingAdmissionWebhook, it enforces the
 * authorizer's conditional decision (assumed here) with the plugin's status codes, messages and
 * audit annotations.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { optionalGates } from '../base/releases';
import { simulate } from './index';
import { binding, hook, podRequest, policy, validating } from './test-helpers';

useEngine();

const ws = [
  policy('ValidatingAdmissionPolicy', 'p', { validations: [{ expression: 'true' }] }),
  binding('ValidatingAdmissionPolicyBinding', 'pb', 'p'),
  validating('v', hook('v.example.com')),
];
const on = { kubernetesVersion: '1.38', featureGates: ['ConditionalAuthorization'] } as const;
const order = (steps: { kind: string }[]) => steps.map((s) => s.kind);

describe('AuthorizationConditionsEnforcer', () => {
  it('exists from 1.38, off by default: a workspace may turn it on there only', () => {
    expect(optionalGates('1.38')).toContain('ConditionalAuthorization');
    expect(optionalGates('1.37')).not.toContain('ConditionalAuthorization');
  });

  it('is inert while the gate is off (the 1.38 default), whatever the decision assumed', async () => {
    const r = await simulate(ws, podRequest(), { kubernetesVersion: '1.38', conditionalAuthorization: { decision: 'deny', reason: 'x' } });
    expect(r.allowed).toBe(true);
    expect(order(r.steps)).not.toContain('AuthorizationConditionsEnforcer');
  });

  it('runs between the policies and the validating webhooks; an unconditional allow passes untouched', async () => {
    const r = await simulate(ws, podRequest(), on);
    expect(order(r.steps)).toEqual(['ValidatingAdmissionPolicy', 'AuthorizationConditionsEnforcer', 'ValidatingWebhookConfiguration']);
    expect(r.steps[1]).toMatchObject({ outcome: 'skipped' });
    expect(r.auditAnnotations).toEqual({});
  });

  it('conditions that allow: the decision and reason annotations, and the chain goes on', async () => {
    const r = await simulate(ws, podRequest(), { ...on, conditionalAuthorization: { decision: 'allow', reason: 'label team=a' } });
    expect(r.allowed).toBe(true);
    expect(r.auditAnnotations).toEqual({
      'authorization.k8s.io/is-conditional-decision': 'true',
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'label team=a',
    });
    expect(order(r.steps)).toContain('ValidatingWebhookConfiguration');
  });

  it('conditions that deny: 403 in the authorization filter’s words; the validating webhooks are not called', async () => {
    const r = await simulate(ws, podRequest({ userInfo: { username: 'alice' } }), {
      ...on,
      conditionalAuthorization: { decision: 'deny', reason: 'label team must be a' },
    });
    expect(r.allowed).toBe(false);
    expect(r.deniedBy).toEqual({
      kind: 'AuthorizationConditionsEnforcer',
      name: 'AuthorizationConditionsEnforcer',
      code: 403,
      reason: 'Forbidden',
      message: 'pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "team-a": label team must be a',
    });
    expect(r.auditAnnotations['authorization.k8s.io/decision']).toBe('forbid');
    expect(order(r.steps)).not.toContain('ValidatingWebhookConfiguration');
  });

  it('a PATCH (admission options PatchOptions) was authorized as patch: the 403 names that verb, and the name even when the patch creates', async () => {
    const deny = { ...on, conditionalAuthorization: { decision: 'deny', reason: 'no' } } as const;
    const options = { apiVersion: 'meta.k8s.io/v1', kind: 'PatchOptions' };
    const update = await simulate(ws, podRequest({ operation: 'UPDATE', oldObject: podRequest().object, options, userInfo: { username: 'alice' } }), deny);
    expect(update.deniedBy?.message).toBe('pods "web-0" is forbidden: User "alice" cannot patch resource "pods" in API group "" in the namespace "team-a": no');
    const create = await simulate(ws, podRequest({ options, userInfo: { username: 'alice' } }), deny);
    expect(create.deniedBy?.message).toBe('pods "web-0" is forbidden: User "alice" cannot patch resource "pods" in API group "" in the namespace "team-a": no');
  });

  it('a conditional decision is marked before admission: also when a policy rejects the request before the enforcer', async () => {
    const denying = [
      policy('ValidatingAdmissionPolicy', 'p', { validations: [{ expression: 'false' }] }),
      binding('ValidatingAdmissionPolicyBinding', 'pb', 'p'),
    ];
    const r = await simulate(denying, podRequest(), { ...on, conditionalAuthorization: { decision: 'deny', reason: 'x' } });
    expect(r.deniedBy?.kind).toBe('ValidatingAdmissionPolicy');
    expect(r.auditAnnotations).toEqual({ 'authorization.k8s.io/is-conditional-decision': 'true' });
    expect(order(r.steps)).not.toContain('AuthorizationConditionsEnforcer');
  });

  it('an evaluation error: 500, reason "internal error"', async () => {
    const r = await simulate(ws, podRequest(), { ...on, conditionalAuthorization: { decision: 'error', reason: 'no such field' } });
    expect(r.deniedBy).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: no such field' });
    expect(r.auditAnnotations).toEqual({ 'authorization.k8s.io/is-conditional-decision': 'true', 'authorization.k8s.io/reason': 'internal error' });
  });
});
