/**
 * The impact benchmarks' inputs (scripts/bench-impact.mjs for the CLI, scripts/bench-impact-browser.mjs
 * for the Impact view): a candidate of 20 ValidatingAdmissionPolicies and 10 webhooks (with a
 * matchCondition) on pods, and a RequestResponse audit log of pod creates, every 50th denied by one
 * of the policies. Its events are the size of a real cluster's (~3.5 KB a line, 200,000 ~700 MB): each
 * pod as a Deployment's ReplicaSet creates it, the requestObject with the API's defaults and the
 * responseObject as stored (managedFields, the admission plugins' changes, status). The log is
 * written to a file in pieces, so a large one is never one string.
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] };

/** The candidate's 50 documents. */
export function candidateDocs() {
  const docs = [];
  for (let i = 0; i < 20; i++) {
    docs.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: `policy-${i}` },
      spec: {
        matchConstraints: { resourceRules: [rule] },
        validations: [{ expression: `!object.metadata.name.startsWith('deny-${i}-')`, message: `policy ${i}` }],
      },
    });
    docs.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `policy-${i}` },
      spec: { policyName: `policy-${i}`, validationActions: ['Deny'] },
    });
  }
  for (let i = 0; i < 10; i++)
    docs.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: `hook-${i}` },
      webhooks: [
        {
          name: `hook-${i}.example.com`,
          clientConfig: { url: `https://hook-${i}.example.com/` },
          rules: [rule],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 5,
          matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
        },
      ],
    });
  return docs;
}

/** The i-th pod's uid and the like: stable per pod, different between pods. */
const hex = (i, n) =>
  ((i * 2654435761) >>> 0)
    .toString(16)
    .padStart(8, '0')
    .repeat(Math.ceil(n / 8))
    .slice(0, n);
const uidOf = (i) => `${hex(i, 8)}-${hex(i + 1, 4)}-4${hex(i + 2, 3)}-8${hex(i + 3, 3)}-${hex(i + 4, 12)}`;

/** A container as a Deployment's template gives it, with the API's defaults (a create's requestObject has them). */
const container = (name, image, extra) => ({
  name,
  image,
  ...extra,
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
});

/** The service account token's volume, which the ServiceAccount admission plugin adds (so only the stored object has it). */
const tokenVolume = {
  name: 'kube-api-access',
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    ],
    defaultMode: 420,
  },
};

/**
 * A pod of a Deployment as a RequestResponse audit event carries it: `stored` false is the
 * requestObject of its create (the API's defaults applied, not the built-in admission plugins'
 * changes), true the object as stored (responseObject; also the snapshot's objects): uid,
 * resourceVersion, managedFields, the token volume, tolerations and priority, status: an event
 * the size of a real cluster's (~3.5 KB a line with both objects: 200,000 events ~700 MB).
 */
export function pod(name, ns, i = 0, stored = true) {
  const app = name.slice(0, 12);
  const hash = hex(i % 7, 10);
  const o = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace: ns,
      labels: { app, 'pod-template-hash': hash },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-${hash}`, uid: uidOf(i % 7), controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [container('app', 'registry.example.com/app:1.2.3', { ports: [{ containerPort: 8080, protocol: 'TCP' }] })],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
    },
    status: {},
  };
  if (!stored) return o;
  const created = new Date(1.79e12 + i * 250).toISOString().replace(/\.\d+Z$/, 'Z');
  Object.assign(o.metadata, { uid: uidOf(i), resourceVersion: String(1_000_000 + i), creationTimestamp: created });
  o.metadata.managedFields = [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: created,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': {}, 'f:ownerReferences': {} }, 'f:spec': { 'f:containers': { 'k:{"name":"app"}': {} } } },
    },
  ];
  o.spec.volumes = [tokenVolume];
  for (const c of o.spec.containers) c.volumeMounts = [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }];
  Object.assign(o.spec, { serviceAccountName: 'default', serviceAccount: 'default', priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  o.spec.tolerations = ['not-ready', 'unreachable'].map((t) => ({
    key: `node.kubernetes.io/${t}`,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: 300,
  }));
  o.status = { phase: 'Pending', qosClass: 'Burstable' };
  return o;
}

/** A pod's name: every 50th is denied by one of the 20 policies. */
export const podName = (i, prefix = 'web') => (i % 50 === 0 ? `deny-${i % 20}-${i}` : `${prefix}-${i}`);

/** The i-th event of the log, one JSON line: a pod create at RequestResponse level, as the kube-apiserver writes it. */
export function auditLine(i) {
  const name = podName(i);
  const ns = `team-${i % 40}`;
  const at = new Date(1.79e12 + i * 250);
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: uidOf(i + 1_000_000),
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/${ns}/pods?fieldManager=kubectl`,
    verb: 'create',
    user: { username: `user-${i % 17}`, groups: ['system:authenticated'] },
    sourceIPs: [`10.0.${i % 250}.${(i >> 8) % 250}`],
    userAgent: 'kubectl/v1.37.2 (linux/amd64) kubernetes/4e2f3a1',
    objectRef: { resource: 'pods', namespace: ns, name, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 201 },
    requestObject: pod(name, ns, i, false),
    responseObject: pod(name, ns, i, true),
    requestReceivedTimestamp: at.toISOString().replace('Z', '000Z'),
    stageTimestamp: new Date(at.getTime() + 7).toISOString().replace('Z', '000Z'),
    annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': `RBAC: allowed by RoleBinding "edit/${ns}"` },
  });
}

/** Writes a log of `events` lines to `path` (gzip when `gzip`); resolves with its size in bytes before compression. */
export async function writeAuditLog(path, events, gzip = true) {
  const file = createWriteStream(path);
  const out = gzip ? createGzip() : file;
  if (gzip) out.pipe(file);
  let bytes = 0;
  for (let i = 0; i < events; i += 1000) {
    let piece = '';
    for (let j = i; j < Math.min(events, i + 1000); j++) piece += `${auditLine(j)}\n`;
    bytes += Buffer.byteLength(piece);
    if (!out.write(piece)) await new Promise((r) => out.once('drain', r));
  }
  out.end();
  await finished(file);
  return bytes;
}
