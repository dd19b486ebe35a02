/**
 * The impact tests' small world: Pods in the Namespace `apps`, the require-team
 * ValidatingAdmissionPolicy with its binding, and pod creates as the apiserver logs them.
 */

/** The Namespace `apps`, labelled as the apiserver labels it. */
export const APPS = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', labels: { 'kubernetes.io/metadata.name': 'apps' } } };

export const appsPod = (name: string, labels: Record<string, string>, image = 'nginx') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'apps', labels },
  spec: { containers: [{ name: 'c', image }] },
});

/** Pods are created with a `team` label: the policy and its binding (Deny). */
export const requireTeam = (message = 'pods need a team label'): unknown[] => [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'require-team' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: "'team' in object.metadata.labels", message }],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'require-team' },
    spec: { policyName: 'require-team', validationActions: ['Deny'] },
  },
];

/** The audit event of the create of pod `p<i>` in `apps` (auditID `e<i>`), by `user` at `time`. */
export const podCreate = (i: number, labels: Record<string, string>, o: { user: string; time: string; image?: string }): string =>
  JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `e${i}`,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/apps/pods',
    verb: 'create',
    user: { username: o.user },
    objectRef: { resource: 'pods', namespace: 'apps', name: `p${i}`, apiVersion: 'v1' },
    responseStatus: { code: 201 },
    requestObject: appsPod(`p${i}`, labels, o.image),
    requestReceivedTimestamp: o.time,
  });
