/**
 * Static manifests in the candidate: the replay's candidate chain runs the documents
 * marked static first, as the simulator does (`prepareChain`), and the report says a denial came
 * from a static manifest.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { analyzeImpact, groupEvents } from './index';

useEngine();

const requireTeam = (name: string) => [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: "'team' in object.metadata.labels", message: `${name}: pods need a team label` }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'] },
  },
];
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'apps', labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
};
const log =
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: 'e1',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/apps/pods',
    verb: 'create',
    user: { username: 'alice' },
    objectRef: { resource: 'pods', namespace: 'apps', name: 'p', apiVersion: 'v1' },
    responseStatus: { code: 201 },
    requestObject: pod,
    requestReceivedTimestamp: '2026-11-20T10:00:00Z',
  }) + '\n';
const cluster = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', labels: { 'kubernetes.io/metadata.name': 'apps' } } }];
// by name the API object comes first; as a static manifest the other runs before it
const workspace = [...requireTeam('a-require-team'), ...requireTeam('z-guard.static.k8s.io')];

describe('static manifests in the candidate', () => {
  it('without static marks the policies run by name', async () => {
    const r = await analyzeImpact({ workspace, cluster, audit: log });
    const c = r.events[0]!.candidate;
    expect(r.events[0]!.change).toBe('newly-denied');
    expect(c.deniedBy).toMatchObject({ kind: 'ValidatingAdmissionPolicy', name: 'a-require-team' });
    expect(c.deniedBy!.static).toBeUndefined();
  });

  it('a static policy is decided first and marked static, in the events and the existing objects', async () => {
    const r = await analyzeImpact({ workspace, cluster: [...cluster, pod], audit: log, staticDocuments: [2, 3] });
    const c = r.events[0]!.candidate;
    expect(c.deniedBy).toMatchObject({ kind: 'ValidatingAdmissionPolicy', name: 'z-guard.static.k8s.io', binding: 'z-guard.static.k8s.io', static: true });
    expect(c.denials?.map((d) => [d.name, d.static ?? false])).toEqual([
      ['z-guard.static.k8s.io', true],
      ['a-require-team', false],
    ]);
    expect(r.summary.newlyDeniedBy).toEqual([{ by: 'ValidatingAdmissionPolicy z-guard.static.k8s.io', count: 1 }]);
    expect(r.existing.find((o) => o.kind === 'Pod')!.candidate.deniedBy).toMatchObject({ name: 'z-guard.static.k8s.io', static: true });
    expect(r.events[0]!.baseline.allowed).toBe(true);
    expect(groupEvents(r.events)[0]!.by).toBe('ValidatingAdmissionPolicy z-guard.static.k8s.io/z-guard.static.k8s.io (static manifest)');
  });
});
