/**
 * Request templates for the simulator: the requests a cluster sees every minute, as data.
 * Each is a complete TestInput (request, object / oldObject, the Namespace).
 */
import type { TestInput } from './model';
import { kubeletLeaseRenewal, namespaceObject } from './system-requests';

export interface RequestTemplate {
  id: string;
  title: string;
  input: TestInput;
}

const ns = namespaceObject;

const POD_SPEC = { containers: [{ name: 'app', image: 'registry.example.com/app:1.0' }] };
const user = { username: 'jane@example.com', groups: ['system:authenticated'] };
const deployment = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'team-a', labels: { app: 'web' } },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: POD_SPEC } },
});
export const REQUEST_TEMPLATES: readonly RequestTemplate[] = [
  {
    id: 'create-pod',
    title: 'Create a Pod in a namespace',
    input: {
      request: {
        operation: 'CREATE',
        resource: { group: '', version: 'v1', resource: 'pods' },
        kind: { group: '', version: 'v1', kind: 'Pod' },
        name: 'web-0',
        namespace: 'team-a',
        userInfo: user,
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'team-a', labels: { app: 'web' } }, spec: POD_SPEC },
      },
      namespaceObject: ns('team-a', { team: 'a' }),
    },
  },
  {
    id: 'update-deployment-replicas',
    title: "Update a Deployment's replicas",
    input: {
      request: {
        operation: 'UPDATE',
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        name: 'web',
        namespace: 'team-a',
        userInfo: { username: 'system:serviceaccount:ci:deploy-bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'] },
        object: deployment(5),
        oldObject: deployment(3),
      },
      namespaceObject: ns('team-a', { team: 'a' }),
    },
  },
  {
    id: 'delete-namespace',
    title: 'Delete a Namespace',
    input: {
      request: {
        operation: 'DELETE',
        resource: { group: '', version: 'v1', resource: 'namespaces' },
        kind: { group: '', version: 'v1', kind: 'Namespace' },
        name: 'team-a',
        // The apiserver files a request on /namespaces/team-a under the namespace team-a.
        namespace: 'team-a',
        userInfo: user,
        oldObject: ns('team-a', { team: 'a' }),
      },
      namespaceObject: ns('team-a', { team: 'a' }),
    },
  },
  {
    id: 'pods-exec',
    title: 'kubectl exec (pods/exec CONNECT)',
    input: {
      request: {
        operation: 'CONNECT',
        resource: { group: '', version: 'v1', resource: 'pods' },
        subResource: 'exec',
        kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
        name: 'web-0',
        namespace: 'team-a',
        userInfo: user,
        object: { apiVersion: 'v1', kind: 'PodExecOptions', container: 'app', command: ['sh'], stdin: true, stdout: true, tty: true },
      },
      namespaceObject: ns('team-a', { team: 'a' }),
    },
  },
  {
    id: 'kubelet-lease',
    title: 'Kubelet lease renewal (kube-node-lease)',
    input: {
      request: kubeletLeaseRenewal('node-1'),
      namespaceObject: ns('kube-node-lease'),
    },
  },
  {
    id: 'controller-create-replicaset',
    title: 'A controller creating a ReplicaSet',
    input: {
      request: {
        operation: 'CREATE',
        resource: { group: 'apps', version: 'v1', resource: 'replicasets' },
        kind: { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
        name: 'web-7d9f8b6c5',
        namespace: 'team-a',
        userInfo: {
          username: 'system:serviceaccount:kube-system:deployment-controller',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
        },
        object: {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: 'web-7d9f8b6c5',
            namespace: 'team-a',
            labels: { app: 'web', 'pod-template-hash': '7d9f8b6c5' },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: 'web',
                uid: '6b1f0c3e-0000-4000-8000-000000000001',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d9f8b6c5' } },
            template: { metadata: { labels: { app: 'web', 'pod-template-hash': '7d9f8b6c5' } }, spec: POD_SPEC },
          },
        },
      },
      namespaceObject: ns('team-a', { team: 'a' }),
    },
  },
];

export const templateById = (id: string): RequestTemplate | undefined => REQUEST_TEMPLATES.find((t) => t.id === id);
