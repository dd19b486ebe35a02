/** Requests and objects the gallery's cases are made of. */
import { NAMESPACE_NAME_LABEL } from '../resources';
import type { GalleryRequest } from './types';

const alice = { username: 'alice', groups: ['system:authenticated'] };

export const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { [NAMESPACE_NAME_LABEL]: name, ...labels } },
});

/** `kubectl create deployment <name> --image=<image> --replicas=<replicas>` in a namespace. */
export const deployment = (name: string, ns: string, replicas: number, image = 'nginx:1.27', labels: Record<string, string> = { app: name }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns, labels },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
  },
});

export const deploymentRequest = (name: string, ns: string, operation: GalleryRequest['operation'] = 'CREATE'): GalleryRequest => ({
  operation,
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  name,
  namespace: ns,
  userInfo: alice,
});

export const pod = (name: string, ns: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec });

export const podRequest = (name: string, ns: string): GalleryRequest => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  name,
  namespace: ns,
  userInfo: alice,
});
