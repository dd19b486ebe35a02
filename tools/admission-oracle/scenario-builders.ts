/**
 * Builders of the admission differential test's scenarios (./scenarios.ts, ./random-scenarios.ts):
 * webhook configurations, policies and bindings, Namespaces, ConfigMaps and requests. ConfigMaps
 * are the subject because the apiserver does not default them (a Pod's defaulting and the
 * ServiceAccount plugin would change the resulting object in ways the simulator does not model).
 * The oracle: ../README.md.
 */
import type { SimRequest, WebhookResponse } from '../../src/admission';

export interface OracleScenario {
  name: string;
  objects: unknown[];
  request: SimRequest;
  webhooks: Record<string, WebhookResponse>;
}

const AR = 'admissionregistration.k8s.io/v1';
export const cmRule = (operations: string[] = ['CREATE', 'UPDATE']) => ({ apiGroups: [''], apiVersions: ['v1'], operations, resources: ['configmaps'] });

export const hook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  failurePolicy: 'Fail',
  timeoutSeconds: 5,
  clientConfig: { url: `https://hooks.example.com/${name}` },
  rules: [cmRule()],
  ...extra,
});
export const mutating = (name: string, ...webhooks: object[]) => ({ apiVersion: AR, kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks });
export const validating = (name: string, ...webhooks: object[]) => ({ apiVersion: AR, kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
export const vap = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [cmRule()] }, ...spec },
});
export const vapb = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, validationActions: ['Deny'], ...spec },
});
export const map = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: AR,
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: { failurePolicy: 'Fail', reinvocationPolicy: 'Never', matchConstraints: { resourceRules: [cmRule()] }, ...spec },
});
export const mapb = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, ...spec },
});
export const ns = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
});
const NAMESPACES = [ns('team-a', { env: 'prod' }), ns('team-b', { env: 'dev' })];

/** `labels: null`: no labels at all. */
export const configMap = (
  name = 'settings',
  namespace = 'team-a',
  labels: Record<string, string> | null = { app: 'web' },
  data: Record<string, string> = { mode: 'fast' },
) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data,
});

export const USERS = {
  alice: { username: 'alice', groups: ['team-a-admins', 'system:authenticated'] },
  bob: { username: 'bob', groups: ['system:authenticated'] },
};

/** A ConfigMap request (CREATE of configMap() unless given); a DELETE has no object, its name comes from oldObject. */
export function cmRequest(extra: Partial<SimRequest> = {}): SimRequest {
  const { object: given, ...rest } = extra;
  const object = extra.operation === 'DELETE' ? undefined : (given ?? configMap());
  const subject = (object ?? extra.oldObject) as { metadata: { name: string; namespace: string } };
  return {
    operation: 'CREATE',
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    name: subject.metadata.name,
    namespace: subject.metadata.namespace,
    userInfo: USERS.alice,
    dryRun: true,
    ...rest,
    ...(object ? { object } : {}),
  };
}

export const tokenReviewRule = { apiGroups: ['authentication.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['tokenreviews'] };
export const anyRule = { apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] };
export const reviewGroupsRule = { apiGroups: ['authentication.k8s.io', 'authorization.k8s.io'], apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] };

/** A TokenReview as clients post it: without metadata (the apiserver's typed object has it anyway). */
export const tokenReview = (): SimRequest => ({
  operation: 'CREATE',
  resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' },
  kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' },
  userInfo: USERS.alice,
  dryRun: true,
  object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-a-real-token' } },
});

export const subjectAccessReview = (): SimRequest => ({
  operation: 'CREATE',
  resource: { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' },
  kind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' },
  userInfo: USERS.alice,
  dryRun: true,
  object: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { user: 'bob', resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'configmaps' } },
  },
});

export const addLabel = (key: string, value: string) => ({ patch: [{ op: 'add' as const, path: `/metadata/labels/${key}`, value }] });
/** A scenario: the workspace is the Namespaces and `objects`. */
export const scenario = (name: string, objects: unknown[], request: SimRequest, webhooks: Record<string, WebhookResponse> = {}): OracleScenario => ({
  name,
  objects: [...NAMESPACES, ...objects],
  request,
  webhooks,
});
