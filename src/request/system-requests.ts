/**
 * Requests the cluster's own components send, built once: the simulator's templates
 * (templates.ts) and the lockout report's critical requests (src/admission/critical-requests.ts)
 * both use these, so a fix to one is a fix to both.
 */
import { NAMESPACE_NAME_LABEL } from '../k8s/resources';
import type { AdmissionRequest, UserInfo } from './model';

/** A Namespace as the apiserver stores it: labelled with its own name (and any other labels). */
export const namespaceObject = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { [NAMESPACE_NAME_LABEL]: name, ...labels } },
});

/** The kubelet of a node (system:node:<node> in system:nodes). */
export const kubeletUser = (node: string): UserInfo => ({ username: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'] });

const lease = (name: string, namespace: string, holder: string, renewTime: string) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace },
  spec: { holderIdentity: holder, leaseDurationSeconds: 40, renewTime },
});

/** An UPDATE of a Lease renewing it (the holder's renewTime moves on by 10 s). */
export function leaseRenewal(name: string, namespace: string, holder: string, userInfo: UserInfo): AdmissionRequest {
  return {
    operation: 'UPDATE',
    resource: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
    kind: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    name,
    namespace,
    userInfo,
    object: lease(name, namespace, holder, '2026-01-01T00:00:10.000000Z'),
    oldObject: lease(name, namespace, holder, '2026-01-01T00:00:00.000000Z'),
  };
}

/** The kubelet's heartbeat: its node's Lease in kube-node-lease, renewed every 10 s. */
export const kubeletLeaseRenewal = (node: string): AdmissionRequest => leaseRenewal(node, 'kube-node-lease', node, kubeletUser(node));
