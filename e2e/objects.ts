/** Cluster objects the Impact specs put in snapshots and audit logs. */

/** A Deployment of `replicas` in namespace default (the sample workspace's replica limit is 5). */
export const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default', labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
  },
});

/** The Namespace default, labelled as the apiserver labels it. */
export const defaultNamespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } };
