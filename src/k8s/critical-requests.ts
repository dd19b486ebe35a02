/**
 * The requests a cluster cannot live without, as a rule sees them: the one list. W03
 * (lints/control-plane.ts) reads it to say which of them reach a fail-closed webhook; the
 * Lockout report (src/admission/critical-requests.ts, above src/k8s in the core's order) builds
 * from each row the full request it sends through the simulator, adding only the objects and the
 * sender's identity. Adding a row here adds it to both.
 */

/** Who sends a critical request (the matchConditions guards of lints/system-guards.ts keep these away). */
export type SystemClass = 'nodes' | 'control-plane' | 'serviceaccounts';

export interface CriticalRequestShape {
  /** The request's id in the Lockout report. */
  id: string;
  /** What breaks, as W03's hint says it. */
  breaks: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  group: string;
  /** resource or resource/subresource */
  resource: string;
  /** '' for cluster-scoped objects (a Namespace's own name for namespaces) */
  namespace: string;
  sender: SystemClass;
}

export const CRITICAL_REQUEST_SHAPES: readonly CriticalRequestShape[] = [
  {
    id: 'kubelet-lease',
    breaks: 'kubelets cannot renew their leases and nodes turn NotReady',
    operation: 'UPDATE',
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace: 'kube-node-lease',
    sender: 'nodes',
  },
  {
    id: 'kubelet-node-status',
    breaks: 'kubelets cannot report node status',
    operation: 'UPDATE',
    group: '',
    resource: 'nodes/status',
    namespace: '',
    sender: 'nodes',
  },
  {
    id: 'kube-system-pod-create',
    breaks: 'system pods in kube-system cannot be re-created',
    operation: 'CREATE',
    group: '',
    resource: 'pods',
    namespace: 'kube-system',
    sender: 'serviceaccounts',
  },
  {
    id: 'leader-election-lease',
    breaks: 'the controller manager cannot renew its leader lease',
    operation: 'UPDATE',
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace: 'kube-system',
    sender: 'control-plane',
  },
  {
    // a row of its own: a guard may exempt the controller manager and not the scheduler
    id: 'scheduler-leader-election-lease',
    breaks: 'the scheduler cannot renew its leader lease',
    operation: 'UPDATE',
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace: 'kube-system',
    sender: 'control-plane',
  },
  {
    id: 'namespace-delete',
    breaks: 'the namespace controller cannot delete namespaces',
    operation: 'DELETE',
    group: '',
    resource: 'namespaces',
    namespace: 'team-a',
    sender: 'serviceaccounts',
  },
  {
    id: 'namespace-finalize',
    breaks: 'namespaces cannot finish terminating',
    operation: 'UPDATE',
    group: '',
    resource: 'namespaces/finalize',
    namespace: 'team-a',
    sender: 'serviceaccounts',
  },
  {
    id: 'serviceaccount-token',
    breaks: 'kubelets cannot get service account tokens',
    operation: 'CREATE',
    group: '',
    resource: 'serviceaccounts/token',
    namespace: 'kube-system',
    sender: 'nodes',
  },
  {
    id: 'csr-approval',
    breaks: 'kubelet certificates cannot be approved',
    operation: 'UPDATE',
    group: 'certificates.k8s.io',
    resource: 'certificatesigningrequests/approval',
    namespace: '',
    sender: 'serviceaccounts',
  },
  {
    id: 'endpointslice-update',
    breaks: 'cluster DNS endpoints cannot be updated',
    operation: 'UPDATE',
    group: 'discovery.k8s.io',
    resource: 'endpointslices',
    namespace: 'kube-system',
    sender: 'serviceaccounts',
  },
];
