/**
 * The requests a cluster cannot live without: the one list is src/k8s/critical-requests.ts (which
 * W03 reads too); here each row becomes the full request (objects, sender, words). The lockout
 * report sends each through the workspace with every webhook unavailable. Plus, per webhook served from inside the cluster, the request that
 * brings its own pods back (the self-deadlock).
 */
import { isObject, list, obj, str } from '../base/json';
import { kubeletLeaseRenewal, kubeletUser, leaseRenewal, namespaceObject } from '../request/system-requests';
import { CRITICAL_REQUEST_SHAPES, type CriticalRequestShape } from '../k8s/critical-requests';
import type { CriticalNamespace } from '../base/platforms';
import { inClusterService } from '../k8s/in-cluster-url';
import { selfPod, type SelfPod } from './self-pod';
import type { CriticalRequest, SimRequest } from './types';

const node = 'node-1';
const kubelet = kubeletUser(node);
const sa = (name: string) => ({
  username: `system:serviceaccount:kube-system:${name}`,
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
});
const controllerManager = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };
const scheduler = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };

const pod = (name: string, namespace: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});

const csr = {
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name: 'csr-node-1' },
  spec: { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'], request: 'LS0tLS1CRUdJTi...' },
};

const endpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: 'kube-dns-abcde',
    namespace: 'kube-system',
    labels: { 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
  },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.10'] }],
};

/** A request without what the one list says of it (operation, resource, subresource, namespace). */
type RequestDetails = Omit<SimRequest, 'operation' | 'resource' | 'subResource' | 'namespace'>;

/** Without what the row says (a built request has it already). */
const details = ({ operation: _o, resource: _r, subResource: _s, namespace: _n, ...rest }: SimRequest): RequestDetails => rest;

/** What the Lockout report adds to each row of the one list: its words, the objects and the sender. */
const DETAILS: Record<string, { title: string; impact: string; request: RequestDetails }> = {
  'kubelet-lease': {
    title: `kubelet lease renewal (UPDATE leases in kube-node-lease by system:node:${node})`,
    impact: 'nodes turn NotReady after 40 s and their pods are evicted',
    request: details(kubeletLeaseRenewal(node)),
  },
  'kubelet-node-status': {
    title: `kubelet node status update (UPDATE nodes/status by system:node:${node})`,
    impact: 'node conditions and capacity go stale; the node is marked NotReady',
    request: {
      kind: { group: '', version: 'v1', kind: 'Node' },
      name: node,
      userInfo: kubelet,
      object: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node, labels: { 'kubernetes.io/hostname': node } },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      oldObject: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node, labels: { 'kubernetes.io/hostname': node } },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
    },
  },
  'kube-system-pod-create': {
    title: 'kube-system Pod create (CREATE pods in kube-system by the replicaset controller)',
    impact: 'CoreDNS, metrics-server and other system pods cannot be recreated',
    request: {
      kind: { group: '', version: 'v1', kind: 'Pod' },
      name: 'coredns-5d78c9869d-abcde',
      userInfo: sa('replicaset-controller'),
      object: pod('coredns-5d78c9869d-abcde', 'kube-system', { 'k8s-app': 'kube-dns' }),
    },
  },
  'leader-election-lease': {
    title: 'leader-election Lease update (UPDATE leases/kube-controller-manager in kube-system by system:kube-controller-manager)',
    impact: 'the controller manager loses leadership: no controller runs',
    request: details(leaseRenewal('kube-controller-manager', 'kube-system', 'cp-1_0a1b2c', controllerManager)),
  },
  'scheduler-leader-election-lease': {
    title: 'leader-election Lease update (UPDATE leases/kube-scheduler in kube-system by system:kube-scheduler)',
    impact: 'the scheduler loses leadership: new pods stay Pending',
    request: details(leaseRenewal('kube-scheduler', 'kube-system', 'cp-1_3d4e5f', scheduler)),
  },
  'namespace-delete': {
    title: 'Namespace delete by the namespace controller (DELETE namespaces/team-a)',
    impact: 'namespaces stay Terminating forever',
    request: {
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      name: 'team-a',
      userInfo: sa('namespace-controller'),
      oldObject: namespaceObject('team-a'),
    },
  },
  'namespace-finalize': {
    title: 'Namespace finalize by the namespace controller (UPDATE namespaces/team-a/finalize)',
    impact: 'emptied namespaces are never removed: they stay Terminating',
    request: {
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      name: 'team-a',
      userInfo: sa('namespace-controller'),
      object: { ...namespaceObject('team-a'), spec: { finalizers: [] }, status: { phase: 'Terminating' } },
      oldObject: { ...namespaceObject('team-a'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } },
    },
  },
  'serviceaccount-token': {
    title: `ServiceAccount token request (CREATE serviceaccounts/token in kube-system by system:node:${node})`,
    impact: 'pods cannot get or refresh their service account tokens',
    request: {
      kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      name: 'coredns',
      userInfo: kubelet,
      object: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: { name: 'coredns', namespace: 'kube-system' },
        spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 3607 },
      },
    },
  },
  'csr-approval': {
    title: 'CertificateSigningRequest approval (UPDATE certificatesigningrequests/approval by the csr approver)',
    impact: 'kubelet client certificates are not renewed: nodes drop out when theirs expire',
    request: {
      kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' },
      name: 'csr-node-1',
      userInfo: sa('certificate-controller'),
      object: { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }] } },
      oldObject: csr,
    },
  },
  'endpointslice-update': {
    title: 'EndpointSlice update by the endpointslice controller (UPDATE endpointslices in kube-system)',
    impact: 'Services stop following their pods (stale endpoints, DNS included)',
    request: {
      kind: { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' },
      name: 'kube-dns-abcde',
      userInfo: sa('endpointslice-controller'),
      object: endpointSlice,
      oldObject: endpointSlice,
    },
  },
};

/** A row of the one list (src/k8s/critical-requests.ts) with what the simulator needs besides it. */
function fromShape(c: CriticalRequestShape): CriticalRequest {
  const details = DETAILS[c.id];
  if (!details) throw new Error(`critical request ${c.id} has no details`);
  const [resource = '', subResource] = c.resource.split('/');
  const request: SimRequest = {
    ...details.request,
    operation: c.operation,
    resource: { group: c.group, version: 'v1', resource },
    ...(subResource ? { subResource } : {}),
    ...(c.namespace ? { namespace: c.namespace } : {}),
  };
  return { id: c.id, title: details.title, impact: details.impact, request };
}

/**
 * Review requests a cluster's components send on every authenticated call to them: the kubelet
 * (and aggregated apiservers such as metrics-server) with webhook authentication and
 * authorization delegate each call to TokenReview and SubjectAccessReview. Admission policies
 * never see them; webhooks do up to 1.36 and not from 1.37 (ExcludeAdmissionWebhookVirtualResources),
 * which the report says per row. Not in the one list of src/k8s (W03): which webhooks can reach
 * them depends on the release, which the simulator decides.
 */
/** A review the kubelet creates: group, resource, kind and spec are all that differ. */
const kubeletReview = (
  id: string,
  title: string,
  impact: string,
  group: string,
  resource: string,
  kind: string,
  spec: Record<string, unknown>,
): CriticalRequest => ({
  id,
  title: `${title} (CREATE ${resource} by system:node:${node})`,
  impact,
  request: {
    operation: 'CREATE',
    resource: { group, version: 'v1', resource },
    kind: { group, version: 'v1', kind },
    userInfo: kubelet,
    object: { apiVersion: `${group}/v1`, kind, spec },
  },
});

const REVIEW_REQUESTS: readonly CriticalRequest[] = [
  kubeletReview(
    'kubelet-tokenreview',
    'TokenReview by a kubelet authenticating a call to it',
    'kubectl logs/exec/port-forward and metrics scraping fail: the kubelet cannot authenticate its callers',
    'authentication.k8s.io',
    'tokenreviews',
    'TokenReview',
    { token: '<bearer token of the caller>' },
  ),
  kubeletReview(
    'kubelet-subjectaccessreview',
    'SubjectAccessReview by a kubelet authorizing a call to it',
    'kubectl logs/exec and metrics scraping fail: the kubelet cannot authorize its callers',
    'authorization.k8s.io',
    'subjectaccessreviews',
    'SubjectAccessReview',
    { user: 'jane@example.com', resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'log', name: node } },
  ),
];

export const CRITICAL_REQUESTS: readonly CriticalRequest[] = [...CRITICAL_REQUEST_SHAPES.map(fromShape), ...REVIEW_REQUESTS];

/** The request that recreates a webhook's own pod (self-pod.ts: its labels, from the workspace when it says). */
function selfPodRequest(namespace: string, p: SelfPod): SimRequest {
  const object = pod(p.name, namespace, p.labels);
  return {
    operation: 'CREATE',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    name: p.name,
    namespace,
    userInfo: sa(p.controller),
    object: p.spec ? { ...object, spec: p.spec } : object,
  };
}

/** A platform's critical namespace (platforms.ts): its operators' pods must come back in it. */
function namespacePodCreate(c: CriticalNamespace): CriticalRequest {
  const name = 'operator-7f9c6d5b8-abcde';
  return {
    id: `namespace:${c.pattern}`,
    title: `${c.pattern} Pod create (CREATE pods in ${c.example} by the replicaset controller)`,
    impact: c.impact,
    request: {
      operation: 'CREATE',
      resource: { group: '', version: 'v1', resource: 'pods' },
      kind: { group: '', version: 'v1', kind: 'Pod' },
      name,
      namespace: c.example,
      userInfo: sa('replicaset-controller'),
      object: pod(name, c.example, { app: 'operator' }),
    },
  };
}

/**
 * The critical requests for a workspace: the fixed table, one Pod create per critical namespace
 * of the target platform, then one self-deadlock request per in-cluster webhook Service.
 */
export function criticalRequests(objects: readonly unknown[], namespaces: readonly CriticalNamespace[] = []): CriticalRequest[] {
  const out = [...CRITICAL_REQUESTS, ...namespaces.map(namespacePodCreate)];
  const seen = new Set<string>();
  for (const o of objects) {
    if (!isObject(o) || (o.kind !== 'MutatingWebhookConfiguration' && o.kind !== 'ValidatingWebhookConfiguration')) continue;
    for (const w of list(o.webhooks)) {
      // a URL naming a Service by its in-cluster DNS name reaches the same pods as clientConfig.service
      const client = obj(obj(w).clientConfig);
      const svc = isObject(client.service) ? client.service : (inClusterService(str(client.url)) ?? {});
      const namespace = str(svc.namespace);
      const service = str(svc.name);
      if (!namespace || !service || seen.has(`${namespace}/${service}`)) continue;
      seen.add(`${namespace}/${service}`);
      const self = selfPod(objects, namespace, service);
      out.push({
        id: `self:${namespace}/${service}`,
        title: `the webhook's own Pod (CREATE pods in ${namespace} for Service ${service}; ${self.source})`,
        impact: `the pods serving ${service} cannot come back once they are gone: the webhook stays down (self-deadlock)`,
        request: selfPodRequest(namespace, self),
      });
    }
  }
  return out;
}
