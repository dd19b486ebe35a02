/**
 * What the apiserver's discovery says about a resource, as admission needs it: its kind and
 * scope, and the resources equivalent to it for `matchPolicy: Equivalent` (those that share one
 * storage, registered only while the release serves them). Built-in resources come from the one
 * resource table (src/k8s/resources.ts), custom resources from the workspace's
 * CustomResourceDefinitions. README.md ("By release").
 */
import { isObject, list, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, minorOf, type KubernetesVersion } from '../base/releases';
import type { EquivalentResource } from '../policy';
import { BUILTIN_RESOURCES, servedIn, type ResourceInfo } from '../k8s/resources';
import type { GroupVersionKind, GroupVersionResource } from '../request/model';

export type { ResourceInfo };

/** Resources that share a storage with a resource of another group (EquivalentResourceRegistry keys by storage). */
const SHARED_STORAGE: Record<string, string> = {
  'extensions/deployments': 'apps/deployments',
  'extensions/daemonsets': 'apps/daemonsets',
  'extensions/replicasets': 'apps/replicasets',
  'extensions/networkpolicies': 'networking.k8s.io/networkpolicies',
  'extensions/ingresses': 'networking.k8s.io/ingresses',
  'events.k8s.io/events': '/events',
};

const storageKey = (r: { group: string; resource: string }): string => SHARED_STORAGE[`${r.group}/${r.resource}`] ?? `${r.group}/${r.resource}`;

/** The resources of the CustomResourceDefinitions among `objects` (served versions only). */
export function customResources(objects: readonly unknown[]): ResourceInfo[] {
  const out: ResourceInfo[] = [];
  for (const o of objects) {
    if (!isObject(o) || o.kind !== 'CustomResourceDefinition') continue;
    const spec = obj(o.spec);
    const names = obj(spec.names);
    const group = str(spec.group);
    const resource = str(names.plural);
    if (!group || !resource) continue;
    for (const v of list(spec.versions)) {
      if (obj(v).served === false || !str(obj(v).name)) continue;
      const conversionWebhook = str(obj(spec.conversion).strategy) === 'Webhook';
      out.push({
        group,
        version: str(obj(v).name),
        resource,
        kind: str(names.kind),
        namespaced: spec.scope !== 'Cluster',
        custom: true,
        ...(conversionWebhook ? { conversionWebhook } : {}),
      });
    }
  }
  return out;
}

/** Discovery for one simulation: built-ins served by the target release plus the workspace's custom resources. */
export interface Discovery {
  /** The resource (group, version, resource), if served; `unserved` when it is a built-in not served by the target release. */
  lookup(gvr: GroupVersionResource): { info?: ResourceInfo; unserved?: ResourceInfo };
  /** Resources equivalent to `gvr` that the target serves (itself included), with their kinds. */
  equivalents(gvr: GroupVersionResource, subResource: string): readonly EquivalentResource[];
  /** Members of gvr's equivalence class that the target does not serve (for explanations). */
  unservedEquivalents(gvr: GroupVersionResource): ResourceInfo[];
  /** The served resource of a kind (`apps`, `v1`, `Deployment` → deployments), as the apiserver's RESTMapper maps it. */
  resourceFor(gvk: GroupVersionKind): ResourceInfo | undefined;
  minor: number;
}

/**
 * The last discoveries built, by release and CustomResourceDefinitions (the same objects): the
 * impact replay asks again for every chain a log brings (a param written), with the same CRDs.
 */
const recent: { version: KubernetesVersion; crds: readonly unknown[]; discovery: Discovery }[] = [];
const RECENT = 8;

export function discoveryFor(objects: readonly unknown[], version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): Discovery {
  const crds = objects.filter((o) => isObject(o) && o.kind === 'CustomResourceDefinition');
  const hit = recent.find((r) => r.version === version && r.crds.length === crds.length && r.crds.every((x, i) => x === crds[i]));
  if (hit) return hit.discovery;
  const discovery = build(crds, version);
  recent.unshift({ version, crds, discovery });
  recent.length = Math.min(recent.length, RECENT);
  return discovery;
}

function build(crds: readonly unknown[], version: KubernetesVersion): Discovery {
  const minor = minorOf(version);
  const all = [...BUILTIN_RESOURCES, ...customResources(crds)];
  const served = all.filter((r) => servedIn(r, minor));
  const key = (g: GroupVersionResource) => `${g.group}/${g.version}/${g.resource}`;
  const byGvr = new Map(served.map((r) => [key(r), r]));
  const byGvk = new Map(served.map((r) => [`${r.group}/${r.version}/${r.kind}`, r]));
  const unservedByGvr = new Map(all.filter((r) => !servedIn(r, minor)).map((r) => [key(r), r]));
  const classes = new Map<string, ResourceInfo[]>();
  for (const r of served) {
    const k = storageKey(r);
    classes.set(k, [...(classes.get(k) ?? []), r]);
  }
  return {
    minor,
    lookup: (gvr) => ({ info: byGvr.get(key(gvr)), unserved: unservedByGvr.get(key(gvr)) }),
    resourceFor: (gvk) => byGvk.get(`${gvk.group}/${gvk.version}/${gvk.kind}`),
    equivalents(gvr, subResource) {
      const own = byGvr.get(key(gvr));
      if (!own) return [];
      // a subresource has its own kind (Scale, Eviction …): equivalents keep the request's subresource; their kind is only known for the main resource
      return (classes.get(storageKey(own)) ?? []).map((r) => ({
        resource: { group: r.group, version: r.version, resource: r.resource },
        kind: subResource ? { group: '', version: '', kind: '' } : { group: r.group, version: r.version, kind: r.kind },
      }));
    },
    unservedEquivalents(gvr) {
      const k = storageKey({ group: gvr.group, resource: gvr.resource });
      return all.filter((r) => !servedIn(r, minor) && storageKey(r) === k);
    },
  };
}

/** Why a request for a built-in resource the release does not serve never reaches admission (`label`: the resource as the sentence names it). */
export const notServedText = (label: string, unserved: ResourceInfo, minor: number): string =>
  `${label} is not served by Kubernetes 1.${minor} (${unserved.until !== undefined ? `removed after 1.${unserved.until}` : `served from 1.${unserved.from}`}): a real apiserver answers 404 before admission`;

export const gvString = (g: { group: string; version: string }): string => (g.group ? `${g.group}/${g.version}` : g.version);

export const kindString = (k: GroupVersionKind): string => `${gvString(k)}, Kind=${k.kind}`;
