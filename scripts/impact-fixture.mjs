/**
 * The impact benchmarks' inputs (scripts/bench-impact.mjs for the CLI, scripts/bench-impact-browser.mjs
 * for the Impact view): a candidate of 20 ValidatingAdmissionPolicies and 10 webhooks (with a
 * matchCondition) on pods, and a RequestResponse audit log of pod creates, every 50th denied by one
 * of the policies. The log is written to a file in pieces, so a large one is never one string.
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] };

/** The candidate's 50 documents. */
export function candidateDocs() {
  const docs = [];
  for (let i = 0; i < 20; i++) {
    docs.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: `policy-${i}` }, spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: `!object.metadata.name.startsWith('deny-${i}-')`, message: `policy ${i}` }] } });
    docs.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `policy-${i}` }, spec: { policyName: `policy-${i}`, validationActions: ['Deny'] } });
  }
  for (let i = 0; i < 10; i++)
    docs.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `hook-${i}` }, webhooks: [{ name: `hook-${i}.example.com`, clientConfig: { url: `https://hook-${i}.example.com/` }, rules: [rule], sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5, matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }] }] });
  return docs;
}

export const pod = (name, ns) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: name.slice(0, 12) } }, spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.2.3', resources: { limits: { cpu: '500m', memory: '256Mi' } } }] } });

/** A pod's name: every 50th is denied by one of the 20 policies. */
export const podName = (i, prefix = 'web') => (i % 50 === 0 ? `deny-${i % 20}-${i}` : `${prefix}-${i}`);

/** The i-th event of the log, one JSON line. */
export function auditLine(i) {
  const name = podName(i);
  const o = pod(name, `team-${i % 40}`);
  return JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `id-${i}`, stage: 'ResponseComplete', requestURI: `/api/v1/namespaces/team-${i % 40}/pods?fieldManager=kubectl`, verb: 'create', user: { username: `user-${i % 17}`, groups: ['system:authenticated'] }, objectRef: { resource: 'pods', namespace: `team-${i % 40}`, name, apiVersion: 'v1' }, responseStatus: { metadata: {}, code: 201 }, requestObject: o, responseObject: o, requestReceivedTimestamp: new Date(1.79e12 + i * 250).toISOString() });
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
