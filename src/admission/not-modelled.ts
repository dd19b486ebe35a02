/**
 * What a real apiserver changes in an object between a request and its admission plugins that the
 * simulator does not (README.md, "Not modelled"), as data: a simulation whose plugins ran on such
 * a request says so in its notes, so a verdict that reads those fields is never silently taken for
 * the apiserver's. Seen on a 1.37 kube-apiserver (tools/admission-oracle): a policy forbidding
 * tolerations denies every Pod there, one reading metadata.generation sees 1 on a Deployment's
 * create, one reading status on an update sees the stored status.
 */
import { obj, str } from '../base/json';
import type { SimRequest, SimStep } from './types';

/** The built-in mutating plugins of a default cluster: they run before mutating webhooks and policies. */
const BUILT_IN_PLUGINS: Record<string, string> = {
  '/pods':
    'ServiceAccount sets spec.serviceAccountName and mounts its token volume (kube-api-access-…), DefaultTolerationSeconds adds the node.kubernetes.io/not-ready and unreachable tolerations (300 s), Priority sets spec.priority and spec.preemptionPolicy',
};

/** What the registry's strategy sets before validating admission (PrepareForCreate / PrepareForUpdate), by resource. */
const WORKLOAD = {
  CREATE: 'metadata.generation (1) and an empty status',
  UPDATE: 'metadata.generation (one more when the spec changes) and the stored status (a status sent on the resource itself is dropped)',
};
const REGISTRY: Record<string, Partial<Record<'CREATE' | 'UPDATE', string>>> = {
  '/pods': { CREATE: 'status.phase (Pending) and status.qosClass', UPDATE: 'the stored status' },
  '/namespaces': { CREATE: 'spec.finalizers ([kubernetes]) and status.phase (Active)', UPDATE: 'the stored status' },
  'apps/deployments': WORKLOAD,
  'apps/replicasets': WORKLOAD,
  'apps/statefulsets': WORKLOAD,
  'apps/daemonsets': WORKLOAD,
  '/replicationcontrollers': WORKLOAD,
  'batch/jobs': WORKLOAD,
  'batch/cronjobs': WORKLOAD,
};

/** The notes for a request whose plugins ran (`steps`): what the apiserver would have changed that the simulator did not. */
export function notModelledNotes(request: SimRequest, steps: readonly SimStep[]): string[] {
  if (request.subResource || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return [];
  const key = `${request.resource?.group ?? ''}/${request.resource?.resource ?? ''}`;
  const ran = (phase?: SimStep['phase']) => steps.some((s) => s.outcome !== 'skipped' && (!phase || s.phase === phase));
  const out: string[] = [];
  const plugins = request.operation === 'CREATE' ? BUILT_IN_PLUGINS[key] : undefined;
  if (plugins && ran())
    out.push(
      `not modelled: before mutating webhooks and policies, a default cluster's built-in admission plugins change this object (${plugins}); a plugin that reads those fields may decide otherwise there`,
    );
  // (metadata.uid and creationTimestamp, set on every create, are left to README.md: few policies read them)
  const meta = obj(obj(request.object).metadata);
  const generated = request.operation === 'CREATE' && !str(meta.name) && str(meta.generateName) ? 'metadata.name from generateName' : '';
  const registry = [generated, REGISTRY[key]?.[request.operation]].filter(Boolean).join(', and ');
  if (registry && ran('validating'))
    out.push(
      `not modelled: before validating admission the apiserver's registry sets ${registry}; a validating policy or webhook that reads them may decide otherwise there`,
    );
  return out;
}
