import { describe, expect, it } from 'vitest';
import { sampleWorkspace, TEMPLATES } from '../templates';
import { lint } from './index';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../../base/releases';

const vwc = (webhook: Record<string, unknown>, kind = 'ValidatingWebhookConfiguration', metadata: Record<string, unknown> = { name: 'x' }) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind,
  metadata,
  webhooks: [{ name: 'a.b.c', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://hook.example.com/' }, ...webhook }],
});
const ids = (o: unknown, ws: unknown[] = []) =>
  lint(o, ws)
    .map((l) => `${l.id} ${l.field}`)
    .sort();
const podRule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
const excludeSystem = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] };

describe('webhook lints', () => {
  it('a fail-closed webhook on pods in every namespace: no kube-system exclusion and lock-out risk (failurePolicy defaulted)', () => {
    // timeoutSeconds defaults to 10: the default is no finding (W10 is about longer ones).
    expect(ids(vwc({ rules: [podRule] }))).toEqual(['W01 webhooks[0].namespaceSelector', 'W03 webhooks[0].failurePolicy']);
  });

  it('W10 only above the default timeout, set or defaulted (v1beta1 defaults to 30 s)', () => {
    const w10 = (o: unknown) =>
      lint(o)
        .filter((l) => l.id === 'W10')
        .map((l) => l.message);
    expect(w10(vwc({ rules: [podRule], timeoutSeconds: 10 }))).toEqual([]);
    expect(w10(vwc({ rules: [podRule], timeoutSeconds: 11 }))).toEqual(['the apiserver waits up to 11s for this webhook on every matching request']);
    expect(w10({ ...vwc({ rules: [podRule] }), apiVersion: 'admissionregistration.k8s.io/v1beta1' })).toEqual([
      'the apiserver waits up to 30s for this webhook on every matching request',
    ]);
  });

  it('W02 names what the rules match of pods, deployments and replicasets', () => {
    const w02 = (rules: unknown[]) => lint(vwc({ rules, clientConfig: { service: { namespace: 'hooks', name: 'svc' } } })).find((l) => l.id === 'W02')?.message;
    expect(w02([podRule])).toBe('the webhook\'s own namespace "hooks" is not excluded, and it fails closed on pods');
    expect(w02([podRule, { ...podRule, apiGroups: ['apps'], resources: ['deployments', 'replicasets'] }])).toBe(
      'the webhook\'s own namespace "hooks" is not excluded, and it fails closed on pods, deployments and replicasets',
    );
  });

  it('W03 says lockout only where Lockout would find one: kube-system, kube-node-lease, nodes and namespaces', () => {
    const hint = (webhook: Record<string, unknown>) => lint(vwc({ timeoutSeconds: 5, ...webhook })).find((l) => l.id === 'W03')!.hint!;
    expect(hint({ rules: [podRule] })).toMatch(
      /^This is how clusters get locked out \(Lockout in Simulate lists them\): while it is down, system pods in kube-system cannot be re-created\./,
    );
    expect(hint({ rules: [podRule], namespaceSelector: excludeSystem })).toMatch(/^Not a lockout: none of the control plane's critical requests/);
    const leases = { ...podRule, apiGroups: ['coordination.k8s.io'], resources: ['leases'] };
    expect(hint({ rules: [{ ...leases, operations: ['UPDATE'] }], namespaceSelector: excludeSystem })).toMatch(/kubelets cannot renew their leases/);
    // CREATE only: neither lease renewals (UPDATE) nor namespace deletion (DELETE) reach it
    expect(hint({ rules: [leases], namespaceSelector: excludeSystem })).toMatch(/^Not a lockout/);
    expect(hint({ rules: [{ ...podRule, operations: ['DELETE'], resources: ['namespaces'] }], namespaceSelector: excludeSystem })).toMatch(
      /the namespace controller cannot delete namespaces/,
    );
    expect(hint({ rules: [{ ...podRule, operations: ['*'], apiGroups: ['*'], resources: ['*'] }], namespaceSelector: excludeSystem })).toMatch(
      /the namespace controller cannot delete namespaces/,
    );
    // nodes/status is a subresource: a rule on nodes does not see it
    expect(hint({ rules: [{ ...podRule, operations: ['UPDATE'], resources: ['nodes'] }] })).toMatch(/^Not a lockout/);
    expect(hint({ rules: [{ ...podRule, operations: ['UPDATE'], resources: ['nodes', 'nodes/status'] }] })).toMatch(/kubelets cannot report node status/);
  });

  it('the same with kube-system excluded and failing open: clean', () => {
    expect(ids(vwc({ rules: [podRule], namespaceSelector: excludeSystem, failurePolicy: 'Ignore', timeoutSeconds: 5 }))).toEqual([]);
  });

  it('opt-in namespace labels exclude kube-system too', () => {
    expect(ids(vwc({ rules: [podRule], namespaceSelector: { matchLabels: { inject: 'enabled' } }, failurePolicy: 'Ignore', timeoutSeconds: 5 }))).toEqual([]);
  });

  it('wildcards, leases, reviews, admission objects, long timeouts, Exact and old review versions', () => {
    const found = ids(
      vwc({
        failurePolicy: 'Ignore',
        namespaceSelector: excludeSystem,
        rules: [
          { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] },
          { operations: ['UPDATE'], apiGroups: ['coordination.k8s.io'], apiVersions: ['v1'], resources: ['leases'] },
          { operations: ['CREATE'], apiGroups: ['authorization.k8s.io'], apiVersions: ['v1'], resources: ['subjectaccessreviews'] },
          { operations: ['CREATE'], apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['v1'], resources: ['validatingwebhookconfigurations'] },
        ],
        timeoutSeconds: 30,
        matchPolicy: 'Exact',
        admissionReviewVersions: ['v1beta1'],
      }),
    );
    expect(found).toEqual([
      'W05 webhooks[0].rules[0].resources',
      'W06 webhooks[0].rules[0].operations',
      'W07 webhooks[0].rules',
      'W08 webhooks[0].rules',
      'W09 webhooks[0].rules',
      'W10 webhooks[0].timeoutSeconds',
      'W12 webhooks[0].matchPolicy',
      'W24 webhooks[0].admissionReviewVersions',
    ]);
  });

  it('a service webhook in its own namespace that fails closed on pods would deadlock; caBundle missing unless injected', () => {
    const hook = { rules: [podRule], namespaceSelector: excludeSystem, clientConfig: { service: { namespace: 'hooks', name: 'svc' } }, timeoutSeconds: 5 };
    expect(ids(vwc(hook))).toEqual([
      'W02 webhooks[0].namespaceSelector',
      'W03 webhooks[0].failurePolicy',
      'W19 webhooks[0].clientConfig.caBundle',
      'W25 webhooks[0].clientConfig.service',
    ]);
    expect(ids(vwc(hook, 'ValidatingWebhookConfiguration', { name: 'x', annotations: { 'cert-manager.io/inject-ca-from': 'hooks/cert' } }))).not.toContain(
      'W19 webhooks[0].clientConfig.caBundle',
    );
    // OpenShift's service CA operator injects it too
    const serviceCa = ids(vwc(hook, 'ValidatingWebhookConfiguration', { name: 'x', annotations: { 'service.beta.openshift.io/inject-cabundle': 'true' } }));
    expect(serviceCa).not.toContain('W19 webhooks[0].clientConfig.caBundle');
    expect(serviceCa).toContain('W03 webhooks[0].failurePolicy');
  });

  it('mutating webhooks that fail closed, enforcing webhooks with an objectSelector, in-cluster URLs', () => {
    expect(ids(vwc({ failurePolicy: 'Fail', timeoutSeconds: 5 }, 'MutatingWebhookConfiguration'))).toEqual(['W04 webhooks[0].failurePolicy']);
    expect(ids(vwc({ failurePolicy: 'Fail', timeoutSeconds: 5, objectSelector: { matchLabels: { enforce: 'yes' } } }))).toEqual([
      'W14 webhooks[0].objectSelector',
    ]);
    expect(ids(vwc({ failurePolicy: 'Ignore', timeoutSeconds: 5, clientConfig: { url: 'https://hook.ns.svc/validate' } }))).toEqual([
      'W18 webhooks[0].clientConfig.url',
    ]);
    expect(ids(vwc({ failurePolicy: 'Ignore', timeoutSeconds: 5, clientConfig: { url: 'https://localhost:8443/' } }))).toEqual([
      'W18 webhooks[0].clientConfig.url',
    ]);
  });
});

describe('policy and binding lints', () => {
  const policy = TEMPLATES.ValidatingAdmissionPolicy();
  const binding = TEMPLATES.ValidatingAdmissionPolicyBinding();

  it('a policy needs a binding; a binding needs its policy', () => {
    expect(ids(policy, [policy])).toContain('P01 metadata.name');
    expect(ids(policy, [policy, binding])).not.toContain('P01 metadata.name');
    expect(ids(binding, [binding])).toEqual(['P02 spec.policyName']);
  });

  it('paramKind without paramRef, Allow on a Deny binding, unguarded params and missing messages', () => {
    const noRef = { ...binding, spec: { policyName: 'replica-limit.example.com', validationActions: ['Deny'] } };
    expect(ids(noRef, [policy, noRef])).toEqual(['P03 spec.validationActions', 'P07 spec.paramRef']);
    const allow = { ...binding, spec: { ...(binding.spec as object), paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } } };
    expect(ids(allow, [policy, allow])).toEqual(['P08 spec.paramRef.parameterNotFoundAction']);
    expect(ids(policy, [policy, binding])).toEqual(['P06 spec.paramKind']);
    const bare = { ...policy, spec: { ...(policy.spec as object), paramKind: undefined, validations: [{ expression: 'true' }] } };
    expect(ids(bare, [bare, binding])).toEqual(['P10 spec.validations[0]']);
  });

  it('DELETE with object access, CEL in a literal message, pre-v1 versions', () => {
    const p = {
      apiVersion: 'admissionregistration.k8s.io/v1beta1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        validations: [{ expression: 'object.metadata.name != "x"', message: "'name ' + object.metadata.name + ' is taken'" }],
      },
    };
    expect(ids(p, [p])).toEqual(['G01 apiVersion', 'P01 metadata.name', 'P05 spec.validations[0].expression', 'P11 spec.validations[0].message']);
  });

  it('G01 names the target release and what it serves of the kind in v1 (MutatingAdmissionPolicy: from 1.36)', () => {
    const g01 = (apiVersion: string, kind: string, kubernetesVersion?: KubernetesVersion) =>
      lint({ apiVersion, kind, metadata: { name: 'p' }, spec: {} }, [], { kubernetesVersion })
        .filter((l) => l.id === 'G01')
        .map((l) => `${l.message} | ${l.hint ?? ''}`);
    expect(g01('admissionregistration.k8s.io/v1beta1', 'ValidatingAdmissionPolicy', '1.33')).toEqual([
      'admissionregistration.k8s.io/v1beta1 is a pre-release version; admissionregistration.k8s.io/v1 serves ValidatingAdmissionPolicy in 1.33 | Change apiVersion to admissionregistration.k8s.io/v1.',
    ]);
    expect(g01('admissionregistration.k8s.io/v1alpha1', 'MutatingAdmissionPolicy', '1.33')).toEqual([
      'admissionregistration.k8s.io/v1alpha1 is a pre-release version; 1.33 does not serve MutatingAdmissionPolicy in admissionregistration.k8s.io/v1 (1.36 does) | Change apiVersion to admissionregistration.k8s.io/v1 when you target 1.36 or later.',
    ]);
    expect(g01('admissionregistration.k8s.io/v1beta1', 'MutatingAdmissionPolicyBinding', '1.38')).toEqual([
      'admissionregistration.k8s.io/v1beta1 is a pre-release version; admissionregistration.k8s.io/v1 serves MutatingAdmissionPolicyBinding in 1.38 (pre-release v1.38.0-beta.0) | Change apiVersion to admissionregistration.k8s.io/v1.',
    ]);
    // no target given: the default one
    expect(g01('admissionregistration.k8s.io/v1beta1', 'ValidatingAdmissionPolicyBinding')).toEqual([
      `admissionregistration.k8s.io/v1beta1 is a pre-release version; admissionregistration.k8s.io/v1 serves ValidatingAdmissionPolicyBinding in ${DEFAULT_KUBERNETES_VERSION} | Change apiVersion to admissionregistration.k8s.io/v1.`,
    ]);
    expect(g01('admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicy', '1.33')).toEqual([]);
  });

  it('the sample workspace has no warning: its fail-closed pod webhook lets every system: user skip it (W03 once fired beside that guard)', () => {
    const ws = sampleWorkspace();
    const warnings = ws.flatMap((o) => lint(o, ws)).filter((l) => l.severity === 'warning');
    expect(warnings.map((l) => `${l.id} ${l.field}`)).toEqual([]);
  });
});
