/**
 * What the apiserver's discovery says about a resource, as admission needs it: its kind and
 * scope, and the resources equivalent to it for `matchPolicy: Equivalent`
 * (runtime.EquivalentResourceRegistry: resources that share one storage are equivalent, and
 * only resources the apiserver serves are registered).
 *
 * Built-in resources: the groups a default kube-apiserver 1.30–1.36 serves (beta and alpha
 * APIs off by default are not listed). Equivalence classes cover every built-in resource ever
 * served under several group/versions; each member says until which release it was served, so
 * for 1.30–1.36 the classes that still have several served members are:
 *   events                       v1 ↔ events.k8s.io/v1
 *   horizontalpodautoscalers     autoscaling/v1 ↔ autoscaling/v2
 *   flowschemas, prioritylevelconfigurations  flowcontrol.apiserver.k8s.io/v1 ↔ v1beta3 (until 1.31)
 * The others (deployments, daemonsets, replicasets apps/v1 ↔ extensions/v1beta1 ↔ apps/v1beta1,
 * v1beta2; ingresses, networkpolicies networking.k8s.io/v1 ↔ extensions/v1beta1, ingresses
 * networking.k8s.io/v1beta1; cronjobs, poddisruptionbudgets, endpointslices … v1beta1) are
 * listed with the release that stopped serving the old versions, so a rule naming only an old
 * version is explained rather than silently matching.
 * Custom resources: every CustomResourceDefinition in the workspace adds its served versions
 * (scope, kind) as one equivalence class.
 */
import { isObject, list, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, minorOf, type KubernetesVersion } from '../base/releases';
import type { EquivalentResource } from '../policy';
import type { GroupVersionKind, GroupVersionResource } from '../request/model';

export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** First and last minor release that serves it by default (inclusive; absent = no bound). */
  from?: number;
  until?: number;
  /** Defined by a CustomResourceDefinition of the workspace. */
  custom?: boolean;
}

// group/version  resource  Kind  N|C  [from-until]
const BUILTIN = `
v1 bindings Binding N
v1 componentstatuses ComponentStatus C
v1 configmaps ConfigMap N
v1 endpoints Endpoints N
v1 events Event N
v1 limitranges LimitRange N
v1 namespaces Namespace C
v1 nodes Node C
v1 persistentvolumeclaims PersistentVolumeClaim N
v1 persistentvolumes PersistentVolume C
v1 pods Pod N
v1 podtemplates PodTemplate N
v1 replicationcontrollers ReplicationController N
v1 resourcequotas ResourceQuota N
v1 secrets Secret N
v1 serviceaccounts ServiceAccount N
v1 services Service N
admissionregistration.k8s.io/v1 mutatingwebhookconfigurations MutatingWebhookConfiguration C
admissionregistration.k8s.io/v1 validatingwebhookconfigurations ValidatingWebhookConfiguration C
admissionregistration.k8s.io/v1 validatingadmissionpolicies ValidatingAdmissionPolicy C
admissionregistration.k8s.io/v1 validatingadmissionpolicybindings ValidatingAdmissionPolicyBinding C
admissionregistration.k8s.io/v1 mutatingadmissionpolicies MutatingAdmissionPolicy C 36-
admissionregistration.k8s.io/v1 mutatingadmissionpolicybindings MutatingAdmissionPolicyBinding C 36-
apiextensions.k8s.io/v1 customresourcedefinitions CustomResourceDefinition C
apiregistration.k8s.io/v1 apiservices APIService C
apps/v1 controllerrevisions ControllerRevision N
apps/v1 daemonsets DaemonSet N
apps/v1 deployments Deployment N
apps/v1 replicasets ReplicaSet N
apps/v1 statefulsets StatefulSet N
apps/v1beta1 deployments Deployment N -15
apps/v1beta1 statefulsets StatefulSet N -15
apps/v1beta2 deployments Deployment N -15
apps/v1beta2 daemonsets DaemonSet N -15
apps/v1beta2 replicasets ReplicaSet N -15
apps/v1beta2 statefulsets StatefulSet N -15
extensions/v1beta1 deployments Deployment N -15
extensions/v1beta1 daemonsets DaemonSet N -15
extensions/v1beta1 replicasets ReplicaSet N -15
extensions/v1beta1 networkpolicies NetworkPolicy N -15
extensions/v1beta1 ingresses Ingress N -21
authentication.k8s.io/v1 tokenreviews TokenReview C
authentication.k8s.io/v1 selfsubjectreviews SelfSubjectReview C
authorization.k8s.io/v1 localsubjectaccessreviews LocalSubjectAccessReview N
authorization.k8s.io/v1 selfsubjectaccessreviews SelfSubjectAccessReview C
authorization.k8s.io/v1 selfsubjectrulesreviews SelfSubjectRulesReview C
authorization.k8s.io/v1 subjectaccessreviews SubjectAccessReview C
autoscaling/v1 horizontalpodautoscalers HorizontalPodAutoscaler N
autoscaling/v2 horizontalpodautoscalers HorizontalPodAutoscaler N
autoscaling/v2beta1 horizontalpodautoscalers HorizontalPodAutoscaler N -24
autoscaling/v2beta2 horizontalpodautoscalers HorizontalPodAutoscaler N -25
batch/v1 cronjobs CronJob N
batch/v1 jobs Job N
batch/v1beta1 cronjobs CronJob N -24
certificates.k8s.io/v1 certificatesigningrequests CertificateSigningRequest C
coordination.k8s.io/v1 leases Lease N
discovery.k8s.io/v1 endpointslices EndpointSlice N
discovery.k8s.io/v1beta1 endpointslices EndpointSlice N -24
events.k8s.io/v1 events Event N
events.k8s.io/v1beta1 events Event N -24
flowcontrol.apiserver.k8s.io/v1 flowschemas FlowSchema C
flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations PriorityLevelConfiguration C
flowcontrol.apiserver.k8s.io/v1beta3 flowschemas FlowSchema C -31
flowcontrol.apiserver.k8s.io/v1beta3 prioritylevelconfigurations PriorityLevelConfiguration C -31
networking.k8s.io/v1 ingressclasses IngressClass C
networking.k8s.io/v1 ingresses Ingress N
networking.k8s.io/v1 networkpolicies NetworkPolicy N
networking.k8s.io/v1 ipaddresses IPAddress C 33-
networking.k8s.io/v1 servicecidrs ServiceCIDR C 33-
networking.k8s.io/v1beta1 ingresses Ingress N -21
node.k8s.io/v1 runtimeclasses RuntimeClass C
policy/v1 poddisruptionbudgets PodDisruptionBudget N
policy/v1beta1 poddisruptionbudgets PodDisruptionBudget N -24
rbac.authorization.k8s.io/v1 clusterrolebindings ClusterRoleBinding C
rbac.authorization.k8s.io/v1 clusterroles ClusterRole C
rbac.authorization.k8s.io/v1 rolebindings RoleBinding N
rbac.authorization.k8s.io/v1 roles Role N
resource.k8s.io/v1 deviceclasses DeviceClass C 34-
resource.k8s.io/v1 resourceclaims ResourceClaim N 34-
resource.k8s.io/v1 resourceclaimtemplates ResourceClaimTemplate N 34-
resource.k8s.io/v1 resourceslices ResourceSlice C 34-
scheduling.k8s.io/v1 priorityclasses PriorityClass C
storage.k8s.io/v1 csidrivers CSIDriver C
storage.k8s.io/v1 csinodes CSINode C
storage.k8s.io/v1 csistoragecapacities CSIStorageCapacity N
storage.k8s.io/v1 storageclasses StorageClass C
storage.k8s.io/v1 volumeattachments VolumeAttachment C
storage.k8s.io/v1 volumeattributesclasses VolumeAttributesClass C 34-
`;

/** Resources that share a storage with a resource of another group (EquivalentResourceRegistry keys by storage). */
const SHARED_STORAGE: Record<string, string> = {
  'extensions/deployments': 'apps/deployments',
  'extensions/daemonsets': 'apps/daemonsets',
  'extensions/replicasets': 'apps/replicasets',
  'extensions/networkpolicies': 'networking.k8s.io/networkpolicies',
  'extensions/ingresses': 'networking.k8s.io/ingresses',
  'events.k8s.io/events': '/events',
};

function parseTable(text: string): ResourceInfo[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [gv = '', resource = '', kind = '', scope = '', range = ''] = line.trim().split(/\s+/);
      const i = gv.indexOf('/');
      const [from, until] = range.split('-');
      const info: ResourceInfo = { group: i < 0 ? '' : gv.slice(0, i), version: i < 0 ? gv : gv.slice(i + 1), resource, kind, namespaced: scope === 'N' };
      if (from) info.from = Number(from);
      if (until) info.until = Number(until);
      return info;
    });
}

const BUILTIN_RESOURCES: readonly ResourceInfo[] = parseTable(BUILTIN);

const storageKey = (r: { group: string; resource: string }): string => SHARED_STORAGE[`${r.group}/${r.resource}`] ?? `${r.group}/${r.resource}`;

export const servedIn = (r: ResourceInfo, minor: number): boolean => (r.from === undefined || minor >= r.from) && (r.until === undefined || minor <= r.until);

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
      out.push({ group, version: str(obj(v).name), resource, kind: str(names.kind), namespaced: spec.scope !== 'Cluster', custom: true });
    }
  }
  return out;
}

/** Discovery for one simulation: built-ins served by the target release plus the workspace's custom resources. */
export interface Discovery {
  /** The resource (group, version, resource), if served; `unserved` when it is a built-in not served by the target release. */
  lookup(gvr: GroupVersionResource): { info?: ResourceInfo; unserved?: ResourceInfo };
  /** Resources equivalent to `gvr` that the target serves (itself included), with their kinds. */
  equivalents(gvr: Required<GroupVersionResource>, subResource: string): readonly EquivalentResource[];
  /** Members of gvr's equivalence class that the target does not serve (for explanations). */
  unservedEquivalents(gvr: GroupVersionResource): ResourceInfo[];
  /** The served resource of a kind (`apps`, `v1`, `Deployment` → deployments), as the apiserver's RESTMapper maps it. */
  resourceFor(gvk: GroupVersionKind): ResourceInfo | undefined;
  minor: number;
}

export function discoveryFor(objects: readonly unknown[], version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): Discovery {
  const minor = minorOf(version);
  const all = [...BUILTIN_RESOURCES, ...customResources(objects)];
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

export const gvString = (g: { group: string; version: string }): string => (g.group ? `${g.group}/${g.version}` : g.version);

export const kindString = (k: GroupVersionKind): string => `${gvString(k)}, Kind=${k.kind}`;
