/**
 * A replayed request as a Simulate scenario (src/request's SimulatorDraft): the request as the
 * replay built it (object, old object, user, options, dry run), its Namespace as the replay had
 * it, the webhook answers and the release the report assumed, and the cluster's objects the
 * candidate chain held beside the workspace's. Simulate then runs the same chain on the same
 * inputs and reaches the row's verdict (scenario.test.ts; e2e/impact.spec.ts opens every changed
 * row of a real apiserver's log).
 */
import { isObject, kindOf, nameOf, namespaceOf, obj, str } from '../base/json';
import { BINDING_KIND_OF } from '../k8s/resources';
import { resolveParams } from '../policy';
import { responseDrafts, toDraft, type SimulatorDraft } from '../request';
import type { KubernetesVersion } from '../base/releases';
import type { AdmissionRequest, UserInfo } from '../request/model';
import type { WebhookResponse } from '../request/scenario';
import { isAdmissionObject } from './cluster';
import type { KeptRequest } from './events';

/** What a report assumed (`ImpactSummary.assumed`): the release, each webhook's answer (the others allow), who creates the existing objects. */
export interface Assumed {
  kubernetesVersion: KubernetesVersion;
  webhooks: Record<string, WebhookResponse>;
  user: UserInfo;
}

/** A param kind's documents keep the scope `resolveParams` infers from them: one with a namespace if any has one, else any one. */
function scopeWitness(documents: readonly unknown[]): unknown {
  return documents.find((d) => namespaceOf(d) !== '') ?? documents[0];
}

/**
 * What of `chain` (the candidate chain as the replay held it) beyond the workspace's objects a
 * run of a request reads: the cluster's admission objects the candidate keeps, the params its
 * bindings resolve for this request (and, per param kind, one document that keeps the kind's
 * inferred scope), and the CustomResourceDefinition of the request's resource. Prepared once per
 * chain, asked per kept request: a cluster's ConfigMaps as params can be thousands, and only those
 * a request can meet go to Simulate.
 */
export function clusterObjects(chain: readonly unknown[], isWorkspace: (o: unknown) => boolean): (request: AdmissionRequest) => unknown[] {
  const order = new Map<unknown, number>();
  const always: unknown[] = [];
  const paramPolicies: { spec: unknown; bindings: unknown[]; documents: unknown[]; witness: unknown }[] = [];
  const crds: unknown[] = [];
  chain.forEach((o, i) => {
    order.set(o, i);
    if (isAdmissionObject(o) && !isWorkspace(o)) always.push(o);
    if (kindOf(o) === 'CustomResourceDefinition' && !isWorkspace(o)) crds.push(o);
  });
  for (const p of chain) {
    const spec = obj(obj(p).spec);
    const paramKind = obj(spec.paramKind);
    const bindingKind = BINDING_KIND_OF[kindOf(p)];
    if (!isAdmissionObject(p) || !bindingKind || !str(paramKind.kind)) continue;
    const documents = chain.filter((d) => isObject(d) && d.apiVersion === paramKind.apiVersion && d.kind === paramKind.kind);
    const witness = scopeWitness(documents.filter((d) => !isWorkspace(d)));
    const bindings = chain.filter((b) => kindOf(b) === bindingKind && str(obj(obj(b).spec).policyName) === nameOf(p)).map((b) => obj(b).spec);
    paramPolicies.push({ spec, bindings, documents, witness });
  }
  return (request) => {
    const take = new Set<unknown>(always);
    const namespace = str(request.namespace);
    for (const p of paramPolicies) {
      const found = p.bindings.flatMap((b) => resolveParams(p.spec, b, namespace, { paramDocuments: p.documents }).params.filter((d) => d && !isWorkspace(d)));
      for (const d of found) take.add(d);
      // the kind's scope, as the replay inferred it from all its documents, needs one like the witness
      const namespaced = p.witness !== undefined && namespaceOf(p.witness) !== '';
      if (p.witness !== undefined && !found.some((d) => (namespaceOf(d) !== '') === namespaced)) take.add(p.witness);
    }
    const { group, resource } = request.resource;
    for (const d of crds) {
      const s = obj(obj(d).spec);
      if (str(s.group) === group && str(obj(s.names).plural) === resource) take.add(d);
    }
    // in the chain's order: the order the replay's run read them in
    return [...take].sort((x, y) => order.get(x)! - order.get(y)!);
  };
}

/**
 * The Simulate scenario of a request the report kept (`report.requests[key]`: a changed event by
 * its auditID, a changed existing object by `existingKey`), or undefined when it kept none.
 */
export function simulatorDraftOf(report: { requests: Record<string, KeptRequest>; summary: { assumed: Assumed } }, key: string): SimulatorDraft | undefined {
  const kept = report.requests[key];
  if (!kept) return undefined;
  const assumed = report.summary.assumed;
  return {
    input: toDraft({ request: kept.request, ...(kept.namespaceObject !== undefined ? { namespaceObject: kept.namespaceObject } : {}) }),
    webhooks: responseDrafts(assumed.webhooks),
    cluster: { source: kept.source ?? '', objects: kept.objects ?? [], kubernetesVersion: assumed.kubernetesVersion },
  };
}
