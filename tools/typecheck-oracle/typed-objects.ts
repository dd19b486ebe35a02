/**
 * Hand-written objects for the decoding differential test (typed.test.ts): each conditional
 * default of src/k8s/typed/conditional.ts on both sides of its condition, and the types with
 * their own JSON form (quantities, times, IntOrString, bytes).
 */
const md = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: 'team-a', ...extra });
const container = (name: string, image: string, extra: Record<string, unknown> = {}) => ({ name, image, ...extra });
const pod = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: md(name),
  spec,
  ...extra,
});
const service = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: md(name),
  spec,
  ...extra,
});
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [container('c', 'nginx:1.27')] } };
const deployment = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: md(name),
  spec: { selector: { matchLabels: { app: 'web' } }, template, ...spec },
});
const job = (name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: md(name, labels ? { labels } : {}),
  spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } }, ...spec },
});

export const CONDITIONAL_OBJECTS: unknown[] = [
  pod('bare', { containers: [container('a', 'nginx')] }),
  pod('pull', {
    containers: [
      container('latest', 'nginx:latest'),
      container('tagged', 'registry.example.com:5000/team/app:v2'),
      container('digest', `nginx@sha256:${'ab'.repeat(32)}`),
      container('given', 'nginx', { imagePullPolicy: 'Never' }),
    ],
    initContainers: [container('init', 'busybox')],
  }),
  pod('resources', {
    containers: [
      container('a', 'nginx', { resources: { limits: { cpu: 0.5, memory: '1.5Gi', 'nvidia.com/gpu': 1 }, requests: { cpu: '100m' } } }),
      container('b', 'nginx', { resources: { limits: { cpu: '0.0001' } } }),
      container('c', 'nginx', { resources: { requests: { memory: '1000Mi', cpu: '2000m' } } }),
    ],
  }),
  pod('host-network', { hostNetwork: true, containers: [container('a', 'nginx', { ports: [{ containerPort: 80 }, { containerPort: 443, hostPort: 8443 }] })] }),
  pod('service-account', { serviceAccount: 'old', containers: [container('a', 'nginx')], terminationGracePeriodSeconds: -5 }),
  pod('both-accounts', { serviceAccount: 'old', serviceAccountName: 'new', containers: [container('a', 'nginx')] }),
  pod(
    'probes-volumes',
    {
      containers: [
        container('a', 'nginx', {
          livenessProbe: { httpGet: { port: 'http' } },
          readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
          env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        }),
      ],
      volumes: [
        { name: 'empty' },
        { name: 'cm', configMap: { name: 'c' } },
        { name: 'secret', secret: { secretName: 's', defaultMode: 256 } },
        { name: 'host', hostPath: { path: '/var' } },
        { name: 'projected', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } },
        { name: 'memory', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      ],
    },
    { status: { podIP: '10.0.0.1' } },
  ),
  pod('ips', { containers: [container('a', 'nginx')] }, { status: { podIPs: [{ ip: '10.0.0.2' }] } }),
  pod(
    'nulls',
    { containers: [container('a', 'nginx', { args: null, env: [] })], volumes: null, nodeSelector: {}, tolerations: [] },
    { metadata: { name: 'nulls', labels: {}, annotations: null } },
  ),
  service('cluster-ip', { ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 5353 }], selector: { app: 'web' } }),
  service('node-port', { type: 'NodePort', ports: [{ port: 80, targetPort: 'http' }] }),
  service(
    'lb',
    { type: 'LoadBalancer', ports: [{ port: 443 }], sessionAffinity: 'ClientIP' },
    { status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'a.example.com' }] } } },
  ),
  service('external-name', { type: 'ExternalName', externalName: 'db.example.com' }),
  service('external-ips', { ports: [{ port: 80 }], externalIPs: ['1.2.3.4'], sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } }),
  deployment('default'),
  deployment('recreate', { strategy: { type: 'Recreate' } }),
  deployment('partial', { replicas: 0, strategy: { rollingUpdate: { maxSurge: 2 } } }),
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: md('ds'),
    spec: { selector: { matchLabels: { app: 'web' } }, template, updateStrategy: { type: 'OnDelete' } },
  },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: md('ds-default'), spec: { selector: { matchLabels: { app: 'web' } }, template } },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: md('sts'),
    spec: {
      selector: { matchLabels: { app: 'web' } },
      serviceName: 'web',
      template,
      updateStrategy: { type: 'RollingUpdate' },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: md('sts-ondelete'),
    spec: { selector: { matchLabels: { app: 'web' } }, template, updateStrategy: { type: 'OnDelete' } },
  },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: md('sts-default'), spec: { selector: { matchLabels: { app: 'web' } }, template } },
  job('job'),
  job('parallel', { parallelism: 3 }, { team: 'a' }),
  job('per-index', { completionMode: 'Indexed', completions: 4, backoffLimitPerIndex: 1 }),
  job('failure-policy', { podFailurePolicy: { rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }),
  { apiVersion: 'batch/v1', kind: 'CronJob', metadata: md('cron'), spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template } } } },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: md('rb'),
    roleRef: { kind: 'Role', name: 'r' },
    subjects: [
      { kind: 'User', name: 'jane' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'sa', namespace: 'team-a' },
    ],
  },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: md('r'), rules: null },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'cr' },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'agg' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: md('np'),
    spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }], ingress: [{}] },
  },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: md('np-ingress'), spec: { podSelector: { matchLabels: { a: 'b' } } } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod' } } },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' } } },
  {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: md('lr'),
    spec: {
      limits: [
        { type: 'Container', max: { cpu: '2' }, min: { memory: '10Mi' } },
        { type: 'Pod', max: { cpu: '4' } },
      ],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: md('rc'),
    spec: { template },
  },
  { apiVersion: 'v1', kind: 'Secret', metadata: md('s'), data: { key: 'aGVsbG8=' }, stringData: { other: 'x' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: md('cm', { creationTimestamp: '2024-05-01T12:00:00.5+02:00' }), data: {} },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: md('pvc'),
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10G' } } },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: md('hpa'),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: md('ing'),
    spec: {
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    },
  },
  {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: md('lease'),
    spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2024-05-01T10:00:00.123456Z' },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: md('pdb'),
    spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } },
  },
];
