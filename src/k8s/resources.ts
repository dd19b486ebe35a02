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
