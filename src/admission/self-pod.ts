/**
 * A webhook's own pod, for the Lockout report's self-deadlock request: whether the webhook would
 * reject it turns on its labels (objectSelector), so they are read from the workspace when it holds
 * the workload, and assumed from the Service's name only when nothing there says; `source` tells
 * the report which.
 */
import { isObject, nameOf, obj, str, type Obj } from '../base/json';

/** Workloads whose pod template a webhook's pods come from: the controller creating the pods, a pod name. */
const WORKLOADS: Record<string, { controller: string; pod: (name: string) => string }> = {
  Deployment: { controller: 'replicaset-controller', pod: (name) => `${name}-6c9d8f7b5-abcde` },
  StatefulSet: { controller: 'statefulset-controller', pod: (name) => `${name}-0` },
  DaemonSet: { controller: 'daemon-set-controller', pod: (name) => `${name}-abcde` },
};

/** What a webhook Service's name adds to its workload's (injector-svc serves Deployment injector). */
const SERVICE_SUFFIXES = ['-webhook-service', '-webhook-svc', '-service', '-svc'];

export interface SelfPod {
  name: string;
  labels: Record<string, string>;
  /** The pod template's spec, when a workload gave the labels. */
  spec?: Obj;
  /** The service account (in kube-system) of the controller that creates the pod. */
  controller: string;
  /** Where the labels come from, as the report says it. */
  source: string;
}

const stringsOf = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));
const shown = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

/**
 * The pod serving Service `namespace/service`. Objects without a namespace count as in it (applied
 * with -n, as a chart's templates often are). In order: the workload whose pod template the
 * Service's selector selects; the Service's selector itself (every pod it serves carries those);
 * with no Service (or no selector), the workload named as the Service (less a -svc-like suffix),
 * else the only workload of the namespace; else labels assumed from the Service's name.
 */
export function selfPod(objects: readonly unknown[], namespace: string, service: string): SelfPod {
  const here = (o: Obj) => [namespace, ''].includes(str(obj(o.metadata).namespace));
  const workloads = objects.filter((o): o is Obj => isObject(o) && str(o.kind) in WORKLOADS && here(o));
  const fromWorkload = (w: Obj, why: string): SelfPod => {
    const template = obj(obj(w.spec).template);
    const kind = WORKLOADS[str(w.kind)]!;
    const labels = stringsOf(obj(template.metadata).labels);
    return {
      name: kind.pod(nameOf(w)),
      labels,
      ...(isObject(template.spec) ? { spec: template.spec } : {}),
      controller: kind.controller,
      source: `labels ${shown(labels) || '(none)'} of ${str(w.kind)} ${nameOf(w)}'s pod template, ${why}`,
    };
  };
  const generic = (labels: Record<string, string>, source: string): SelfPod => ({
    name: WORKLOADS.Deployment!.pod(service),
    labels,
    controller: 'replicaset-controller',
    source,
  });

  const svc = objects.find((o): o is Obj => isObject(o) && o.kind === 'Service' && nameOf(o) === service && here(o));
  const selector = stringsOf(obj(svc?.spec).selector);
  if (Object.keys(selector).length > 0) {
    const w = workloads.find((x) => selects(selector, stringsOf(obj(obj(obj(x.spec).template).metadata).labels)));
    if (w) return fromWorkload(w, `whose pods Service ${service} selects`);
    return generic(selector, `labels ${shown(selector)} of Service ${service}'s selector (no workload in the workspace matches it)`);
  }
  const base = SERVICE_SUFFIXES.reduce((n, s) => (n.endsWith(s) && n.length > s.length ? n.slice(0, -s.length) : n), service);
  const named = workloads.find((x) => nameOf(x) === service || nameOf(x) === base);
  const missing = svc ? `Service ${service} has no selector` : `no Service ${service} in the workspace`;
  if (named) return fromWorkload(named, `named after Service ${service} (${missing})`);
  if (workloads.length === 1) return fromWorkload(workloads[0]!, `the only workload in namespace ${namespace} (${missing})`);
  const assumed = { app: service, 'app.kubernetes.io/name': service };
  const why = workloads.length ? `${workloads.length} workloads in namespace ${namespace}, none named after it` : `no workload in namespace ${namespace}`;
  return generic(assumed, `labels ${shown(assumed)} assumed: ${missing} and ${why}`);
}
