/**
 * Scenarios about the object CEL sees (src/k8s/typed apiserverObject): a ValidatingAdmissionPolicy
 * whose expressions read what the apiserver made of the object — a Role's `rules: null`, a Pod's
 * and a Deployment's defaults, a Service's conditional defaults, a ConfigMap's empty maps,
 * canonical quantities, a custom resource as sent — so the verdict and the message differ when
 * the Workbench's object differs from the apiserver's. Most deny on purpose with a
 * messageExpression that spells the values out; a few allow (the returned object is compared too).
 * Only fields the built-in admission plugins (ServiceAccount, Priority, DefaultTolerationSeconds)
 * and the registry's PrepareForCreate (status, generation, uid, timestamps) leave alone are read.
 */
import type { SimRequest } from '../../src/admission';
import { scenario } from './scenarios';
import type { OracleScenario } from './scenario-builders';

const AR = 'admissionregistration.k8s.io/v1';
const USER = { username: 'alice', groups: ['team-a-admins', 'system:authenticated'] };

/** A policy on one resource with one validation, bound with Deny. */
function probe(
  name: string,
  rule: { apiGroups: string[]; apiVersions: string[]; resources: string[] },
  expression: string,
  messageExpression?: string,
): unknown[] {
  return [
    {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ ...rule, operations: ['CREATE'] }] },
        validations: [{ expression, ...(messageExpression ? { messageExpression } : { message: 'denied' }) }],
      },
    },
    {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `${name}-binding` },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}

const create = (resource: { group: string; version: string; resource: string }, kind: string, object: Record<string, unknown>): SimRequest => {
  const md = object.metadata as { name: string; namespace?: string };
  return {
    operation: 'CREATE',
    resource,
    kind: { group: resource.group, version: resource.version, kind },
    name: md.name,
    ...(md.namespace ? { namespace: md.namespace } : {}),
    userInfo: USER,
    dryRun: true,
    object,
  };
};

const RBAC = { group: 'rbac.authorization.k8s.io', version: 'v1' };
const rbacRule = (resource: string) => ({ apiGroups: [RBAC.group], apiVersions: ['v1'], resources: [resource] });
const role = (kind: 'Role' | 'ClusterRole', name: string, extra: Record<string, unknown>) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: kind === 'Role' ? { name, namespace: 'team-a' } : { name },
  ...extra,
});
/** The Kyverno library's restrict-wildcard-verbs check, as its ValidatingPolicy says it. */
const WILDCARD_VERBS = "object.rules == null || !object.rules.exists(rule, '*' in rule.verbs)";

// scalars only: string() of a map or a list is no conversion CEL has (the messageExpression would fail on both sides)
const POD_VIEW = [
  "'dnsPolicy=' + object.spec.dnsPolicy",
  "' restartPolicy=' + object.spec.restartPolicy",
  "' grace=' + string(object.spec.terminationGracePeriodSeconds)",
  "' scheduler=' + object.spec.schedulerName",
  "' links=' + string(object.spec.enableServiceLinks)",
  "' securityContext=' + string(has(object.spec.securityContext))",
  "' pull=' + object.spec.containers.map(c, c.imagePullPolicy).join(',')",
  "' messagePath=' + object.spec.containers[0].terminationMessagePath",
  "' requests=' + object.spec.containers[0].resources.requests.cpu + '/' + object.spec.containers[0].resources.requests.memory",
  "' limits=' + object.spec.containers[0].resources.limits.cpu + '/' + object.spec.containers[0].resources.limits.memory",
  "' port=' + object.spec.containers[0].ports[0].protocol",
  "' probe=' + object.spec.containers[1].livenessProbe.httpGet.path + ' ' + object.spec.containers[1].livenessProbe.httpGet.scheme + ' ' + string(object.spec.containers[1].livenessProbe.periodSeconds)",
  "' volumes=' + object.spec.volumes.map(v, has(v.emptyDir) ? 'emptyDir' : 'configMap:' + string(v.configMap.defaultMode)).join(',')",
  "' alias=' + object.spec.serviceAccount",
].join(' + ');

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team-a', labels: {}, annotations: null },
  spec: {
    automountServiceAccountToken: false,
    serviceAccount: 'default',
    containers: [
      { name: 'a', image: 'nginx', resources: { limits: { cpu: 0.5, memory: '1.5Gi' } }, ports: [{ containerPort: 80 }] },
      { name: 'b', image: 'nginx:1.27', livenessProbe: { httpGet: { port: 8080 } } },
    ],
    volumes: [{ name: 'scratch' }, { name: 'config', configMap: { name: 'settings' } }],
    tolerations: null,
  },
};
const serviceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team-a' } };

const DEPLOYMENT_VIEW = [
  "'replicas=' + string(object.spec.replicas)",
  "' strategy=' + object.spec.strategy.type",
  "' rollingUpdate=' + (has(object.spec.strategy.rollingUpdate) ? string(object.spec.strategy.rollingUpdate.maxSurge) + '/' + string(object.spec.strategy.rollingUpdate.maxUnavailable) : 'none')",
  "' history=' + string(object.spec.revisionHistoryLimit)",
  "' deadline=' + string(object.spec.progressDeadlineSeconds)",
  "' templateLinks=' + string(has(object.spec.template.spec.enableServiceLinks))",
  "' templateDns=' + object.spec.template.spec.dnsPolicy",
  "' pull=' + object.spec.template.spec.containers[0].imagePullPolicy",
].join(' + ');
const deployment = (name: string, strategy?: unknown) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'team-a' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    ...(strategy ? { strategy } : {}),
  },
});

const SERVICE_VIEW = [
  "'type=' + object.spec.type",
  "' affinity=' + object.spec.sessionAffinity",
  "' ports=' + (has(object.spec.ports) ? object.spec.ports.map(p, p.protocol + ':' + string(p.targetPort)).join(',') : 'none')",
  "' internal=' + (has(object.spec.internalTrafficPolicy) ? object.spec.internalTrafficPolicy : 'absent')",
  "' external=' + (has(object.spec.externalTrafficPolicy) ? object.spec.externalTrafficPolicy : 'absent')",
  "' allocate=' + (has(object.spec.allocateLoadBalancerNodePorts) ? string(object.spec.allocateLoadBalancerNodePorts) : 'absent')",
].join(' + ');
const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'team-a' }, spec });

const CORE = (resource: string) => ({ apiGroups: [''], apiVersions: ['v1'], resources: [resource] });
const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.oracle.example.com' },
  spec: {
    group: 'oracle.example.com',
    scope: 'Cluster',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

export const TYPED_SCENARIOS: readonly OracleScenario[] = [
  scenario(
    'CEL sees a Role created with rules: null as null (no omitempty): the Kyverno wildcard-verbs check allows it',
    probe('no-wildcard-verbs', rbacRule('roles'), WILDCARD_VERBS),
    create({ ...RBAC, resource: 'roles' }, 'Role', role('Role', 'empty', { rules: null })),
  ),
  scenario(
    'a ClusterRole without rules: rules is null, has() is true; a given label map that is empty is gone',
    probe(
      'rules-view',
      rbacRule('clusterroles'),
      'false',
      "'null=' + string(object.rules == null) + ' has=' + string(has(object.rules)) + ' labels=' + string(has(object.metadata.labels))",
    ),
    create({ ...RBAC, resource: 'clusterroles' }, 'ClusterRole', role('ClusterRole', 'oracle-empty', { metadata: { name: 'oracle-empty', labels: {} } })),
  ),
  scenario(
    'a ClusterRole with a wildcard verb is still denied by the same check',
    probe('no-wildcard-verbs', rbacRule('clusterroles'), WILDCARD_VERBS),
    create(
      { ...RBAC, resource: 'clusterroles' },
      'ClusterRole',
      role('ClusterRole', 'oracle-wild', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }] }),
    ),
  ),
  scenario(
    "a Pod's defaults as CEL sees them: spec fields, containers, probes, volumes, requests from limits, canonical quantities",
    [serviceAccount, ...probe('pod-view', CORE('pods'), 'false', POD_VIEW)],
    create(gvr('', 'v1', 'pods'), 'Pod', pod),
  ),
  scenario(
    'a Pod: has() on defaulted fields and on empty or null ones',
    [
      serviceAccount,
      ...probe(
        'pod-has',
        CORE('pods'),
        'false',
        "'restartPolicy=' + string(has(object.spec.restartPolicy)) + ' labels=' + string(has(object.metadata.labels)) + ' annotations=' + string(has(object.metadata.annotations)) + ' hostNetwork=' + string(has(object.spec.hostNetwork)) + ' initContainers=' + string(has(object.spec.initContainers))",
      ),
    ],
    create(gvr('', 'v1', 'pods'), 'Pod', pod),
  ),
  scenario(
    "a Deployment's defaults: replicas, the rolling update, limits; its template without the Pod's own defaults",
    probe('deployment-view', { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }, 'false', DEPLOYMENT_VIEW),
    create(gvr('apps', 'v1', 'deployments'), 'Deployment', deployment('web')),
  ),
  scenario(
    'a Recreate Deployment has no rollingUpdate',
    probe('deployment-view', { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }, 'false', DEPLOYMENT_VIEW),
    create(gvr('apps', 'v1', 'deployments'), 'Deployment', deployment('recreate', { type: 'Recreate' })),
  ),
  scenario(
    "a ClusterIP Service's defaults: type, affinity, each port's protocol and targetPort, the internal traffic policy",
    probe('service-view', CORE('services'), 'false', SERVICE_VIEW),
    create(
      gvr('', 'v1', 'services'),
      'Service',
      service('web', {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80 },
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 'dns' },
        ],
      }),
    ),
  ),
  scenario(
    'a LoadBalancer Service: external traffic policy and node ports allocated',
    probe('service-view', CORE('services'), 'false', SERVICE_VIEW),
    create(gvr('', 'v1', 'services'), 'Service', service('public', { type: 'LoadBalancer', ports: [{ port: 443, targetPort: 8443 }] })),
  ),
  scenario(
    'an ExternalName Service: no internal traffic policy',
    probe('service-view', CORE('services'), 'false', SERVICE_VIEW),
    create(gvr('', 'v1', 'services'), 'Service', service('db', { type: 'ExternalName', externalName: 'db.example.com' })),
  ),
  scenario(
    'a ConfigMap with empty maps and a null field: allowed only when CEL sees them gone (the returned object compared too)',
    probe('configmap-view', CORE('configmaps'), '!has(object.data) && !has(object.metadata.labels) && !has(object.binaryData) && !has(object.immutable)'),
    create(gvr('', 'v1', 'configmaps'), 'ConfigMap', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'empty', namespace: 'team-a', labels: {} },
      data: {},
      binaryData: null,
    }),
  ),
  scenario(
    'a custom resource is the JSON as sent (nulls and empty maps stay) but for its metadata, coerced through ObjectMeta (labels: {} is gone)',
    [
      crd,
      ...probe(
        'gadget-view',
        { apiGroups: ['oracle.example.com'], apiVersions: ['v1'], resources: ['gadgets'] },
        'false',
        "'x=' + string(has(object.spec.x)) + ' null=' + string(object.spec.x == null) + ' empty=' + string(size(object.spec.empty)) + ' labels=' + string(has(object.metadata.labels)) + ' size=' + object.spec.size",
      ),
    ],
    create(gvr('oracle.example.com', 'v1', 'gadgets'), 'Gadget', {
      apiVersion: 'oracle.example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g', labels: {} },
      spec: { x: null, empty: {}, size: '0.5' },
    }),
  ),
];
