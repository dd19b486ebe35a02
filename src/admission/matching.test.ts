/** simulate(): which webhooks and policies a request reaches — every matching rule, each with a matching and a non-matching case (real CEL engine). */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { binding, hook, namespace, pod, podRequest, policy, policyStep, validating, webhookStep } from './test-helpers';
import type { SimRequest } from './types';

useEngine();

const outcome = async (objects: unknown[], request: SimRequest, webhook: string) => webhookStep(await simulate(objects, request), webhook).outcome;

describe('webhook rules', () => {
  it('operations', async () => {
    const ws = [validating('v', hook('create-only', { rules: [{ ...ruleOf(['pods']), operations: ['CREATE'] }] }))];
    expect(await outcome(ws, podRequest(), 'create-only')).toBe('admitted');
    const s = webhookStep(await simulate(ws, podRequest({ operation: 'DELETE', object: undefined, oldObject: pod() })), 'create-only');
    expect(s.outcome).toBe('skipped');
    expect(s.reason).toContain('operation DELETE not in [CREATE]');
    expect(s.path).toBe('webhooks[0].rules');
  });

  it('apiGroups and apiVersions', async () => {
    const ws = [validating('v', hook('apps', { rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'] }] }))];
    expect(await outcome(ws, podRequest(), 'apps')).toBe('skipped');
    const deploy: SimRequest = {
      ...podRequest(),
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' } },
    };
    expect(await outcome(ws, deploy, 'apps')).toBe('admitted');
  });

  it('resources: *, */*, pods/*, */status', async () => {
    const ws = [
      validating(
        'v',
        hook('star', { rules: [ruleOf(['*'])] }),
        hook('star-star', { rules: [ruleOf(['*/*'])] }),
        hook('pods-sub', { rules: [ruleOf(['pods/*'])] }),
        hook('status', { rules: [ruleOf(['*/status'])] }),
      ),
    ];
    const exec = podRequest({
      operation: 'CONNECT',
      subResource: 'exec',
      kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
      object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['sh'] },
    });
    const main = await simulate(ws, podRequest());
    const sub = await simulate(ws, exec);
    expect(webhookStep(main, 'star').outcome).toBe('admitted');
    expect(webhookStep(sub, 'star').outcome).toBe('skipped'); // '*' is the main resource only
    expect(webhookStep(main, 'star-star').outcome).toBe('admitted'); // '*/*': every resource, with or without a subresource
    expect(webhookStep(sub, 'star-star').outcome).toBe('admitted');
    expect(webhookStep(main, 'pods-sub').outcome).toBe('admitted'); // 'pods/*': pods and every subresource of pods
    expect(webhookStep(sub, 'pods-sub').outcome).toBe('admitted');
    const cm = podRequest({
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team-a' } },
    });
    expect(await outcome(ws, cm, 'pods-sub')).toBe('skipped');
    expect(webhookStep(sub, 'status').outcome).toBe('skipped');
    const status = await simulate(ws, podRequest({ operation: 'UPDATE', subResource: 'status', oldObject: pod() }));
    expect(webhookStep(status, 'status').outcome).toBe('admitted');
  });

  it('scope', async () => {
    const ws = [
      validating(
        'v',
        hook('namespaced', { rules: [{ ...ruleOf(['*']), scope: 'Namespaced' }] }),
        hook('cluster', { rules: [{ ...ruleOf(['*']), scope: 'Cluster' }] }),
      ),
    ];
    const p = await simulate(ws, podRequest());
    expect(webhookStep(p, 'namespaced').outcome).toBe('admitted');
    expect(webhookStep(p, 'cluster').reason).toContain('scope Cluster');
    // a Namespace is cluster-scoped even though its requests carry a namespace
    const nsDelete: SimRequest = {
      operation: 'DELETE',
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      name: 'team-a',
      oldObject: namespace('team-a'),
    };
    const n = await simulate(ws, nsDelete);
    expect(webhookStep(n, 'cluster').outcome).toBe('admitted');
    expect(webhookStep(n, 'namespaced').outcome).toBe('skipped');
  });

  it('matchPolicy Equivalent through served equivalent resources (autoscaling/v1 ↔ v2), Exact does not', async () => {
    const v2 = { apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'] };
    const ws = [validating('v', hook('equivalent', { rules: [v2], matchPolicy: 'Equivalent' }), hook('exact', { rules: [v2], matchPolicy: 'Exact' }))];
    const hpaV1: SimRequest = {
      ...podRequest(),
      resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      name: 'web',
      object: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'team-a' } },
    };
    const r = await simulate(ws, hpaV1);
    expect(webhookStep(r, 'equivalent').outcome).toBe('admitted');
    expect(webhookStep(r, 'equivalent').reason).toContain('equivalent autoscaling/v2');
    expect(webhookStep(r, 'exact').outcome).toBe('skipped');
    // the webhook sees the request converted: kind/resource the equivalent, requestKind/requestResource as sent
    const mc = [
      {
        name: 'converted',
        expression:
          "request.kind.version == 'v2' && request.resource.version == 'v2' && request.requestKind.version == 'v1' && object.apiVersion == 'autoscaling/v2'",
      },
    ];
    const seen = await simulate([validating('v', hook('equivalent', { rules: [v2], matchPolicy: 'Equivalent', matchConditions: mc }))], hpaV1);
    expect(webhookStep(seen, 'equivalent').outcome).toBe('admitted');
  });

  it('matchPolicy Equivalent: a step says when the object it read is not the converted one (versions whose fields differ, a conversion webhook)', async () => {
    const hpaV1: SimRequest = {
      ...podRequest(),
      resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      name: 'web',
      object: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'team-a' }, spec: { maxReplicas: 3 } },
    };
    const rules = { resourceRules: [{ apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'] }] };
    const hpa = await simulate(
      [
        policy('ValidatingAdmissionPolicy', 'cap', { matchConstraints: rules, validations: [{ expression: 'true' }] }),
        binding('ValidatingAdmissionPolicyBinding', 'cap', 'cap'),
      ],
      hpaV1,
    );
    // autoscaling/v1 has targetCPUUtilizationPercentage, v2 metrics: the apiserver moves fields, the simulator does not
    expect(policyStep(hpa, 'cap', 'cap').conversion).toEqual({ to: 'autoscaling/v2', exact: false });
    expect(policyStep(hpa, 'cap', 'cap').notes?.join(' ')).toContain("whose fields differ from autoscaling/v1's; here only its apiVersion is changed");
    // a custom resource of two versions: strategy None changes only the apiVersion; a conversion webhook's answer is not known
    const crd = (strategy: string) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: name === 'v2',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
        conversion: { strategy },
      },
    });
    const widget: SimRequest = {
      ...podRequest(),
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      name: 'w',
      object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'team-a' } },
    };
    const v2 = { apiGroups: ['example.com'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['widgets'] };
    for (const [strategy, exact] of [
      ['None', true],
      ['Webhook', false],
    ] as const) {
      const r = await simulate([crd(strategy), validating('v', hook('widgets', { rules: [v2], matchPolicy: 'Equivalent' }))], widget);
      expect(webhookStep(r, 'widgets').conversion, strategy).toEqual({ to: 'example.com/v2', exact });
    }
  });

  it('matchPolicy Equivalent: extensions/v1beta1 deployments is not served by 1.36, so it matches nothing', async () => {
    const old = { apiGroups: ['extensions'], apiVersions: ['v1beta1'], operations: ['CREATE'], resources: ['deployments'] };
    const ws = [validating('v', hook('old', { rules: [old], matchPolicy: 'Equivalent' }))];
    const deploy: SimRequest = {
      ...podRequest(),
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' } },
    };
    expect(await outcome(ws, deploy, 'old')).toBe('skipped');
  });

  it('kubernetesVersion: discovery follows the target release (flowcontrol v1beta3 served until 1.31)', async () => {
    const fs: SimRequest = {
      operation: 'CREATE',
      resource: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', resource: 'flowschemas' },
      kind: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', kind: 'FlowSchema' },
      name: 'f',
      object: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', kind: 'FlowSchema', metadata: { name: 'f' } },
    };
    const v1 = { apiGroups: ['flowcontrol.apiserver.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['flowschemas'] };
    const ws = [validating('v', hook('fs', { rules: [v1], matchPolicy: 'Equivalent' }))];
    const old = await simulate(ws, fs, { kubernetesVersion: '1.31' });
    expect(old.notes).toEqual([]);
    expect(webhookStep(old, 'fs').outcome).toBe('admitted');
    const now = await simulate(ws, fs, { kubernetesVersion: '1.36' });
    expect(now.notes.join(' ')).toContain('not served by Kubernetes 1.36 (removed after 1.31)');
    expect(webhookStep(now, 'fs').outcome).toBe('skipped');
  });

  it('namespaceSelector: the Namespace labels; the object itself for Namespace CREATE; cluster-scoped requests always match', async () => {
    const ws = [
      validating('v', hook('prod-only', { namespaceSelector: { matchLabels: { env: 'prod' } }, rules: [ruleOf(['*'])] })),
      namespace('team-a', { env: 'prod' }),
      namespace('team-b'),
    ];
    expect(await outcome(ws, podRequest(), 'prod-only')).toBe('admitted');
    const other = webhookStep(await simulate(ws, podRequest({ namespace: 'team-b', object: pod({}, 'team-b') })), 'prod-only');
    expect(other.outcome).toBe('skipped');
    expect(other.path).toBe('webhooks[0].namespaceSelector');
    const nsCreate = (labels: Record<string, string>): SimRequest => ({
      operation: 'CREATE',
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      name: 'new',
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels } },
    });
    expect(await outcome(ws, nsCreate({ env: 'prod' }), 'prod-only')).toBe('admitted');
    expect(await outcome(ws, nsCreate({}), 'prod-only')).toBe('skipped');
    const node: SimRequest = {
      operation: 'CREATE',
      resource: { group: '', version: 'v1', resource: 'nodes' },
      kind: { group: '', version: 'v1', kind: 'Node' },
      name: 'n1',
      object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } },
    };
    expect(await outcome(ws, node, 'prod-only')).toBe('admitted');
  });

  it('objectSelector: object or oldObject labels', async () => {
    const ws = [
      validating('v', hook('injected', { objectSelector: { matchLabels: { inject: 'true' } }, rules: [{ ...ruleOf(['pods']), operations: ['*'] }] })),
    ];
    expect(await outcome(ws, podRequest({ object: pod({ inject: 'true' }) }), 'injected')).toBe('admitted');
    const s = webhookStep(await simulate(ws, podRequest()), 'injected');
    expect(s.outcome).toBe('skipped');
    expect(s.path).toBe('webhooks[0].objectSelector');
    expect(await outcome(ws, podRequest({ operation: 'DELETE', object: undefined, oldObject: pod({ inject: 'true' }) }), 'injected')).toBe('admitted');
  });

  it('matchConditions (real CEL): true calls, false skips at the condition', async () => {
    const mc = [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }];
    const ws = [validating('v', hook('mc', { matchConditions: mc }))];
    expect(await outcome(ws, podRequest(), 'mc')).toBe('admitted');
    const s = webhookStep(await simulate(ws, podRequest({ userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller' } })), 'mc');
    expect(s.outcome).toBe('skipped');
    expect(s.reason).toBe("matchCondition 'not-system' is false");
    expect(s.path).toBe('webhooks[0].matchConditions[0].expression');
    // evaluated in the target release's CEL environment
    expect(webhookStep(await simulate(ws, podRequest(), { kubernetesVersion: '1.30' }), 'mc').outcome).toBe('admitted');
  });

  it('admission configuration resources never reach webhooks or policies', async () => {
    const ws = [
      validating('v', hook('all', { rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }], failurePolicy: 'Fail' })),
    ];
    const req: SimRequest = {
      operation: 'CREATE',
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' },
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' },
      name: 'x',
      object: validating('x'),
    };
    const r = await simulate(ws, req, { webhooks: { all: 'unavailable' } });
    expect(r.allowed).toBe(true);
    expect(webhookStep(r, 'all').reason).toContain('never sent to webhooks');
  });
});

describe('policy matching', () => {
  it('excludeResourceRules', async () => {
    const p = policy('ValidatingAdmissionPolicy', 'deny-all', {
      matchConstraints: { resourceRules: [ruleOf(['*'])], excludeResourceRules: [{ ...ruleOf(['pods']), resourceNames: ['web-0'] }] },
      validations: [{ expression: 'false', message: 'no' }],
    });
    const ws = [p, binding('ValidatingAdmissionPolicyBinding', 'b', 'deny-all')];
    const excluded = await simulate(ws, podRequest());
    expect(excluded.allowed).toBe(true);
    expect(policyStep(excluded, 'deny-all').path).toBe('spec.matchConstraints.excludeResourceRules');
    const other = await simulate(ws, podRequest({ name: 'web-1' }));
    expect(other.allowed).toBe(false);
    expect(other.deniedBy?.message).toBe(`pods "web-1" is forbidden: ValidatingAdmissionPolicy 'deny-all' with binding 'b' denied request: no`);
  });

  it('matchPolicy Equivalent: the policy evaluates the request converted to the matched version', async () => {
    const v2 = { apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'] };
    const p = (matchPolicy: string) =>
      policy('ValidatingAdmissionPolicy', 'hpa', {
        matchConstraints: { resourceRules: [v2], matchPolicy },
        validations: [{ expression: "request.kind.version != 'v2' || request.requestKind.version != 'v1'", message: 'seen as v2, sent as v1' }],
      });
    const hpaV1: SimRequest = {
      ...podRequest(),
      resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      name: 'web',
      object: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'team-a' } },
    };
    const eq = await simulate([p('Equivalent'), binding('ValidatingAdmissionPolicyBinding', 'b', 'hpa')], hpaV1);
    expect(eq.deniedBy?.message).toBe(
      `horizontalpodautoscalers.autoscaling "web" is forbidden: ValidatingAdmissionPolicy 'hpa' with binding 'b' denied request: seen as v2, sent as v1`,
    );
    const exact = await simulate([p('Exact'), binding('ValidatingAdmissionPolicyBinding', 'b', 'hpa')], hpaV1);
    expect(exact.allowed).toBe(true);
    expect(policyStep(exact, 'hpa').path).toBe('spec.matchConstraints.resourceRules');
  });

  it('resourceNames', async () => {
    const p = policy('ValidatingAdmissionPolicy', 'named', {
      matchConstraints: { resourceRules: [{ ...ruleOf(['pods']), resourceNames: ['web-0'] }] },
      validations: [{ expression: 'false', message: 'no' }],
    });
    const ws = [p, binding('ValidatingAdmissionPolicyBinding', 'b', 'named')];
    expect((await simulate(ws, podRequest())).allowed).toBe(false);
    const r = await simulate(ws, podRequest({ name: 'other' }));
    expect(r.allowed).toBe(true);
    expect(policyStep(r, 'named').reason).toContain('resourceNames');
  });

  it('matchConstraints ∩ binding matchResources', async () => {
    const p = policy('ValidatingAdmissionPolicy', 'p', { validations: [{ expression: 'false', message: 'no' }] });
    const b = binding('ValidatingAdmissionPolicyBinding', 'prod', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } });
    const ws = [p, b, namespace('team-a', { env: 'prod' }), namespace('team-b')];
    expect((await simulate(ws, podRequest())).allowed).toBe(false);
    const r = await simulate(ws, podRequest({ namespace: 'team-b', object: pod({}, 'team-b') }));
    expect(r.allowed).toBe(true);
    const s = policyStep(r, 'p', 'prod');
    expect(s.outcome).toBe('skipped');
    expect(s.document).toEqual({ kind: 'ValidatingAdmissionPolicyBinding', name: 'prod', index: 1 });
    expect(s.path).toBe('spec.matchResources.namespaceSelector');
  });

  it('params and parameterNotFoundAction', async () => {
    const p = policy('ValidatingAdmissionPolicy', 'limits', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.metadata.name.startsWith(params.data.prefix)', messageExpression: "'name must start with ' + params.data.prefix" }],
    });
    const params = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team-a' }, data: { prefix: 'api-' } };
    const deny = binding('ValidatingAdmissionPolicyBinding', 'b', 'limits', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    const withParams = await simulate([p, deny, params], podRequest());
    expect(withParams.deniedBy?.message).toBe(
      `pods "web-0" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'b' denied request: name must start with api-`,
    );
    const missing = await simulate([p, deny], podRequest());
    expect(missing.allowed).toBe(false);
    expect(missing.deniedBy?.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    expect(policyStep(missing, 'limits', 'b').path).toBe('spec.paramRef');
    const allow = binding('ValidatingAdmissionPolicyBinding', 'b', 'limits', { paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } });
    expect((await simulate([p, allow], podRequest())).allowed).toBe(true);
  });

  it('a policy without a binding is not evaluated', async () => {
    const r = await simulate([policy('ValidatingAdmissionPolicy', 'lonely', { validations: [{ expression: 'false' }] })], podRequest());
    expect(r.allowed).toBe(true);
    expect(policyStep(r, 'lonely').reason).toContain('no ValidatingAdmissionPolicyBinding');
  });
});

function ruleOf(resources: string[]) {
  return { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources };
}
