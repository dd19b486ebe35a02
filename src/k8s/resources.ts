/**
 * The one resource table: every built-in resource a default kube-apiserver serves in the releases
 * the app knows (beta and alpha APIs off by default are not listed), with its kind, scope and the releases
 * that serve it; the lookups test inputs need (the kind of a plural, the group of a resource,
 * whether a kind is cluster-scoped); and a minimal object of a kind (a pre-filled request).
 * The simulator's discovery (src/admission/discovery.ts) builds on the same table.
 */

import { kindOf } from '../base/json';
import { KUBERNETES_VERSIONS, minorOf } from '../base/releases';

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
  /** Its versions are converted by a webhook (the CRD's spec.conversion.strategy Webhook): what a conversion gives is not known here. */
  conversionWebhook?: boolean;
}

// group/version  resource  Kind  N|C  [from-until]
// The old group/versions are listed with the release that stopped serving them.
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

export const BUILTIN_RESOURCES: readonly ResourceInfo[] = parseTable(BUILTIN);

/** Whether a release (its minor) serves the resource. */
export const servedIn = (r: ResourceInfo, minor: number): boolean => (r.from === undefined || minor >= r.from) && (r.until === undefined || minor <= r.until);

/** The entry of a resource plural (or of a kind) that a current release serves, before older group/versions. */
function current(match: (r: ResourceInfo) => boolean): ResourceInfo | undefined {
  let old: ResourceInfo | undefined;
  for (const r of BUILTIN_RESOURCES) {
    if (!match(r)) continue;
    if (r.until === undefined) return r;
    old ??= r;
  }
  return old;
}

/** `deployments` → `apps`; '' (the core group) for others. */
export const groupForResource = (resource: string): string => current((r) => r.resource === resource.toLowerCase())?.group ?? '';

/** Every group that serves a resource plural in a release the app knows (`events` → '', events.k8s.io); none for others (a custom resource). */
export const groupsOfResource = (resource: string): string[] => [
  ...new Set(BUILTIN_RESOURCES.filter((r) => r.resource === resource && KUBERNETES_VERSIONS.some((v) => servedIn(r, minorOf(v)))).map((r) => r.group)),
];

/** Whether objects of a built-in kind live outside namespaces. */
export const isClusterScoped = (kind: string): boolean => current((r) => r.kind === kind)?.namespaced === false;

/** `deployments` → `Deployment`; unknown plurals are singularised and capitalised. */
export function kindForResource(resource: string): string {
  const r = resource.toLowerCase();
  const known = current((x) => x.resource === r);
  if (known) return known.kind;
  const singular = r.endsWith('ies') ? `${r.slice(0, -3)}y` : r.endsWith('ses') ? r.slice(0, -2) : r.endsWith('s') ? r.slice(0, -1) : r;
  return singular ? singular[0].toUpperCase() + singular.slice(1) : 'Object';
}

/** `Deployment` → `deployments` (the plural of built-in kinds; others lower-cased and pluralised as English does). */
export function resourceForKind(kind: string): string {
  const known = current((r) => r.kind === kind);
  if (known) return known.resource;
  const k = kind.toLowerCase();
  return k.endsWith('y') ? `${k.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(k) ? `${k}es` : `${k}s`;
}

/** The label the apiserver puts on every Namespace: its own name (namespaceSelector's way to name a namespace). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

const POD_SPEC = { containers: [{ name: 'app', image: 'registry.example.com/app:1.0' }] };

/** A minimal object of a kind. */
export function minimalObject(group: string, version: string, kind: string, namespace: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: 'example', labels: { app: 'example' } };
  if (!isClusterScoped(kind)) metadata.namespace = namespace || 'default';
  const o: Record<string, unknown> = { apiVersion: group ? `${group}/${version}` : version, kind, metadata };
  const template = { metadata: { labels: { app: 'example' } }, spec: POD_SPEC };
  switch (kind) {
    case 'Pod':
      o.spec = POD_SPEC;
      break;
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
      o.spec = { replicas: 3, selector: { matchLabels: { app: 'example' } }, template };
      break;
    case 'DaemonSet':
      o.spec = { selector: { matchLabels: { app: 'example' } }, template };
      break;
    case 'Job':
      o.spec = { template: { spec: { ...POD_SPEC, restartPolicy: 'Never' } } };
      break;
    case 'ConfigMap':
      o.data = { key: 'value' };
      break;
    case 'Secret':
      o.type = 'Opaque';
      o.data = { key: 'dmFsdWU=' };
      break;
    case 'Service':
      o.spec = { selector: { app: 'example' }, ports: [{ port: 80, targetPort: 8080 }] };
      break;
  }
  return o;
}

/** The admission configuration kinds (admissionregistration.k8s.io): what the Workbench checks and replays. */
export const ADMISSION_KINDS: ReadonlySet<string> = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

/** The binding kind of each policy kind. */
export const BINDING_KIND_OF: Readonly<Record<string, 'ValidatingAdmissionPolicyBinding' | 'MutatingAdmissionPolicyBinding'>> = {
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicyBinding',
  MutatingAdmissionPolicy: 'MutatingAdmissionPolicyBinding',
};

/** A ValidatingAdmissionPolicy or MutatingAdmissionPolicy: the kinds that have bindings. */
export const isPolicy = (o: unknown): boolean => kindOf(o) in BINDING_KIND_OF;
