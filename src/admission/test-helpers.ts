/** Builders for the simulator's tests: webhook configurations, policies, requests. */
import { namespaceObject } from '../request/system-requests';
import type { SimRequest, SimResult, SimStep } from './types';

const AR = 'admissionregistration.k8s.io/v1';

export const podRule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] };

export function hook(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { url: `https://hooks.example.com/${name}` }, rules: [podRule], ...extra };
}

export const mutating = (name: string, ...webhooks: Record<string, unknown>[]) => ({
  apiVersion: AR,
  kind: 'MutatingWebhookConfiguration',
  metadata: { name },
  webhooks,
});
export const validating = (name: string, ...webhooks: Record<string, unknown>[]) => ({
  apiVersion: AR,
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks,
});

export const policy = (kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy', name: string, spec: Record<string, unknown>) => ({
  apiVersion: AR,
  kind,
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [podRule] }, ...spec },
});
export const binding = (
  kind: 'ValidatingAdmissionPolicyBinding' | 'MutatingAdmissionPolicyBinding',
  name: string,
  policyName: string,
  spec: Record<string, unknown> = {},
) => ({
  apiVersion: AR,
  kind,
  metadata: { name },
  spec: { policyName, ...(kind === 'ValidatingAdmissionPolicyBinding' ? { validationActions: ['Deny'] } : {}), ...spec },
});

/** A Namespace as the apiserver stores it (one builder: src/request/system-requests.ts). */
export const namespace = namespaceObject;

export const pod = (labels: Record<string, string> = { app: 'web' }, ns = 'team-a') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: ns, labels },
  spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.0' }] },
});

export function podRequest(extra: Partial<SimRequest> = {}): SimRequest {
  return {
    operation: 'CREATE',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    name: 'web-0',
    namespace: 'team-a',
    userInfo: { username: 'jane@example.com', groups: ['system:authenticated'] },
    object: pod(),
    ...extra,
  };
}

/** The (first-round unless given) step of a webhook. */
export function webhookStep(r: SimResult, webhook: string, round = 0): SimStep {
  const s = r.steps.find((x) => x.webhook === webhook && x.round === round);
  if (!s) throw new Error(`no step for webhook ${webhook} in round ${round}: ${JSON.stringify(r.steps.map((x) => [x.webhook ?? x.name, x.round, x.outcome]))}`);
  return s;
}

export function policyStep(r: SimResult, name: string, binding?: string, round = 0): SimStep {
  const s = r.steps.find((x) => !x.webhook && x.name === name && (binding === undefined || x.binding === binding) && x.round === round);
  if (!s) throw new Error(`no step for policy ${name}/${binding ?? ''}: ${JSON.stringify(r.steps.map((x) => [x.webhook ?? x.name, x.binding, x.outcome]))}`);
  return s;
}
