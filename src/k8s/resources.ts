/**
 * Common resources as test inputs need them: the kind of a plural resource name, and a
 * minimal, valid-looking object of a kind (for a pre-filled test request).
 */
const KIND_OF: Record<string, string> = {
  pods: 'Pod',
  services: 'Service',
  configmaps: 'ConfigMap',
  secrets: 'Secret',
  namespaces: 'Namespace',
  nodes: 'Node',
  serviceaccounts: 'ServiceAccount',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  persistentvolumes: 'PersistentVolume',
  deployments: 'Deployment',
  statefulsets: 'StatefulSet',
  daemonsets: 'DaemonSet',
  replicasets: 'ReplicaSet',
  jobs: 'Job',
  cronjobs: 'CronJob',
  ingresses: 'Ingress',
  networkpolicies: 'NetworkPolicy',
  roles: 'Role',
  rolebindings: 'RoleBinding',
  clusterroles: 'ClusterRole',
  clusterrolebindings: 'ClusterRoleBinding',
  horizontalpodautoscalers: 'HorizontalPodAutoscaler',
  poddisruptionbudgets: 'PodDisruptionBudget',
};

/** The API group of common resources outside the core group. */
const GROUP_OF: Record<string, string> = {
  deployments: 'apps',
  statefulsets: 'apps',
  daemonsets: 'apps',
  replicasets: 'apps',
  jobs: 'batch',
  cronjobs: 'batch',
  ingresses: 'networking.k8s.io',
  networkpolicies: 'networking.k8s.io',
  roles: 'rbac.authorization.k8s.io',
  rolebindings: 'rbac.authorization.k8s.io',
  clusterroles: 'rbac.authorization.k8s.io',
  clusterrolebindings: 'rbac.authorization.k8s.io',
  horizontalpodautoscalers: 'autoscaling',
  poddisruptionbudgets: 'policy',
  leases: 'coordination.k8s.io',
  endpointslices: 'discovery.k8s.io',
  certificatesigningrequests: 'certificates.k8s.io',
};

/** `deployments` → `apps`; '' (the core group) for others. */
export const groupForResource = (resource: string): string => GROUP_OF[resource.toLowerCase()] ?? '';

const CLUSTER_SCOPED = new Set(['Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding']);

/** Whether objects of a (common) kind live outside namespaces. */
export const isClusterScoped = (kind: string): boolean => CLUSTER_SCOPED.has(kind);

/** `deployments` → `Deployment`; unknown plurals are singularised and capitalised. */
export function kindForResource(resource: string): string {
  const r = resource.toLowerCase();
  if (KIND_OF[r]) return KIND_OF[r];
  const singular = r.endsWith('ies') ? `${r.slice(0, -3)}y` : r.endsWith('ses') ? r.slice(0, -2) : r.endsWith('s') ? r.slice(0, -1) : r;
  return singular ? singular[0].toUpperCase() + singular.slice(1) : 'Object';
}

/** `Deployment` → `deployments` (the plural of common kinds; others lower-cased and pluralised as English does). */
export function resourceForKind(kind: string): string {
  const known = Object.keys(KIND_OF).find((r) => KIND_OF[r] === kind);
  if (known) return known;
  const k = kind.toLowerCase();
  return k.endsWith('y') ? `${k.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(k) ? `${k}es` : `${k}s`;
}

const POD_SPEC = { containers: [{ name: 'app', image: 'registry.example.com/app:1.0' }] };

/** A minimal object of a kind. */
export function minimalObject(group: string, version: string, kind: string, namespace: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: 'example', labels: { app: 'example' } };
  if (!CLUSTER_SCOPED.has(kind)) metadata.namespace = namespace || 'default';
  const o: Record<string, unknown> = { apiVersion: group ? `${group}/${version}` : version, kind, metadata };
  const template = { metadata: { labels: { app: 'example' } }, spec: POD_SPEC };
  switch (kind) {
    case 'Pod':
      o.spec = POD_SPEC;
      break;
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
      o.spec = { replicas: 3, selector: { matchLabels: { app: 'example' } }, template };
      break;
    case 'DaemonSet':
      o.spec = { selector: { matchLabels: { app: 'example' } }, template };
      break;
    case 'Job':
      o.spec = { template: { spec: { ...POD_SPEC, restartPolicy: 'Never' } } };
      break;
    case 'ConfigMap':
      o.data = { key: 'value' };
      break;
    case 'Secret':
      o.type = 'Opaque';
      o.data = { key: 'dmFsdWU=' };
      break;
    case 'Service':
      o.spec = { selector: { app: 'example' }, ports: [{ port: 80, targetPort: 8080 }] };
      break;
  }
  return o;
}
