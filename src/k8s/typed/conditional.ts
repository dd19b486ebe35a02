/**
 * What the generated data (defaults of an absent field when everything around it is empty)
 * cannot say: the defaults that depend on other fields (k8s.io/kubernetes
 * pkg/apis/<group>/<version>/defaults.go), and what the round trip through the internal type
 * changes (conversion.go: a Secret's stringData, a DaemonSet's template generation annotation,
 * a StatefulSet's claim templates' TypeMeta).
 * Each rule runs on a struct once its fields are decoded and the data's defaults applied, with
 * the set of fields the data defaulted; where a rule corrects a data default it does so only
 * when the data has that default, so a release whose defaulters lack it (a feature gate off)
 * keeps its own answer. Keyed by the generated type id (`core/v1.Container`).
 */

type Obj = Record<string, unknown>;
type Rule = (out: Obj, defaulted: ReadonlySet<string>, inner: (o: unknown) => ReadonlySet<string>) => void;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The tag parsers.ParseImageName finds: the reference's tag, `latest` when it has neither tag
 * nor digest, '' when it has only a digest or does not parse (docker reference grammar).
 */
export function imageTag(image: unknown): string {
  if (typeof image !== 'string') return '';
  const m =
    /^((?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?\/)?([a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$/.exec(
      image,
    );
  if (!m || image.length > 255 + 128 + 80) return '';
  if (m[3]) return m[3];
  return m[4] ? '' : 'latest';
}

const pullPolicy = (image: unknown): string => (imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent');

/** SetDefaults_Pod: requests default to limits, per resource (containers and init containers). */
function requestsFromLimits(spec: Obj): void {
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    if (!isObj(c) || !isObj(c.resources) || !isObj(c.resources.limits)) continue;
    const r = c.resources;
    const requests: Obj = isObj(r.requests) ? r.requests : {};
    for (const [k, v] of Object.entries(r.limits as Obj)) if (!(k in requests)) requests[k] = v;
    if (Object.keys(requests).length) r.requests = requests;
  }
}

/** A rolling-update strategy: the nested defaults hold only for `RollingUpdate` (apps/v1 SetDefaults_Deployment, _DaemonSet). */
const rollingStrategy: Rule = (out, defaulted, inner) => {
  if (out.type === 'RollingUpdate') return;
  if (defaulted.has('rollingUpdate')) out.rollingUpdate = null;
  else if (isObj(out.rollingUpdate)) for (const f of inner(out.rollingUpdate)) delete out.rollingUpdate[f];
};

const subject: Rule = (out) => {
  if (out.apiGroup) return;
  if (out.kind === 'User' || out.kind === 'Group') out.apiGroup = 'rbac.authorization.k8s.io';
};

/** base64 of a string's UTF-8 bytes ([]byte as encoding/json writes it). */
function base64(s: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

const RULES: Readonly<Record<string, Rule>> = {
  // the internal Secret has no stringData: it is merged into data (Convert_v1_Secret_To_core_Secret)
  'core/v1.Secret': (out) => {
    if (isObj(out.stringData) && Object.keys(out.stringData).length) {
      const data: Obj = isObj(out.data) ? out.data : {};
      for (const [k, v] of Object.entries(out.stringData)) data[k] = base64(String(v));
      out.data = data;
    }
    delete out.stringData;
  },
  // the internal DaemonSet keeps the template generation in its spec, written back as an annotation
  'apps/v1.DaemonSet': (out) => {
    const md = isObj(out.metadata) ? out.metadata : (out.metadata = {});
    const annotations: Obj = isObj(md.annotations) ? md.annotations : {};
    const key = 'deprecated.daemonset.template.generation';
    const v = annotations[key];
    annotations[key] = typeof v === 'string' && /^[+-]?\d+$/.test(v) ? String(BigInt(v)) : '0';
    md.annotations = annotations;
  },
  // Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec: claim templates carry their TypeMeta
  'apps/v1.StatefulSetSpec': (out) => {
    for (const t of list(out.volumeClaimTemplates))
      if (isObj(t)) {
        t.apiVersion = 'v1';
        t.kind = 'PersistentVolumeClaim';
      }
  },
  'core/v1.Container': (out, d) => {
    if (d.has('imagePullPolicy')) out.imagePullPolicy = pullPolicy(out.image);
  },
  'core/v1.EphemeralContainer': (out, d) => {
    if (d.has('imagePullPolicy')) out.imagePullPolicy = pullPolicy(out.image);
  },
  'core/v1.ImageVolumeSource': (out, d) => {
    if (d.has('pullPolicy')) out.pullPolicy = pullPolicy(out.reference);
  },
  // SetDefaults_Volume: emptyDir only when no volume source is given
  'core/v1.Volume': (out, d) => {
    if (d.has('emptyDir') && Object.entries(out).some(([k, v]) => k !== 'name' && k !== 'emptyDir' && v !== null && v !== '')) out.emptyDir = null;
  },
  // SetDefaults_PodSpec: serviceAccount is an alias of serviceAccountName, which wins
  'core/v1.PodSpec': (out) => {
    if (!out.serviceAccountName) out.serviceAccountName = out.serviceAccount ?? '';
    out.serviceAccount = out.serviceAccountName;
  },
  'core/v1.Pod': (out) => {
    const spec = isObj(out.spec) ? out.spec : undefined;
    if (!spec) return;
    if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) spec.terminationGracePeriodSeconds = 1;
    requestsFromLimits(spec);
    if (spec.hostNetwork === true)
      for (const c of [...list(spec.containers), ...list(spec.initContainers)])
        for (const p of isObj(c) ? list(c.ports) : []) if (isObj(p) && !p.hostPort) p.hostPort = p.containerPort ?? 0;
  },
  // SetDefaults_PodStatus: podIP and podIPs kept in step, podIP authoritative
  'core/v1.PodStatus': (out) => {
    const ips = list(out.podIPs);
    const first = isObj(ips[0]) ? ips[0].ip : undefined;
    if (out.podIP && (!ips.length || first !== out.podIP)) out.podIPs = [{ ip: out.podIP }];
    else if (!out.podIP && ips.length) out.podIP = first ?? '';
  },
  // SetDefaults_Service (its ServiceSpec and ServicePorts already written: absent = empty)
  'core/v1.Service': (out) => {
    const spec = isObj(out.spec) ? out.spec : undefined;
    if (!spec) return;
    if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
    if (spec.sessionAffinity === 'ClientIP') {
      const c = spec.sessionAffinityConfig;
      if (!isObj(c) || !isObj(c.clientIP) || typeof c.clientIP.timeoutSeconds !== 'number')
        spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    }
    for (const p of list(spec.ports)) if (isObj(p) && (p.targetPort === 0 || p.targetPort === '' || p.targetPort === undefined)) p.targetPort = p.port ?? 0;
    const t = spec.type;
    const external = t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && list(spec.externalIPs).length > 0);
    if (external && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
    if (t === 'LoadBalancer') {
      if (spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
      const lb = isObj(out.status) && isObj(out.status.loadBalancer) ? out.status.loadBalancer : undefined;
      for (const ing of list(lb?.ingress)) if (isObj(ing) && ing.ip && ing.ipMode === undefined) ing.ipMode = 'VIP';
    }
  },
  // the ServiceSpec's own data default for internalTrafficPolicy holds only for these types (SetDefaults_Service)
  'core/v1.ServiceSpec': (out, d) => {
    if (d.has('internalTrafficPolicy') && !(out.type === 'NodePort' || out.type === 'LoadBalancer' || out.type === 'ClusterIP'))
      out.internalTrafficPolicy = null;
  },
  'core/v1.Namespace': (out) => {
    const md = isObj(out.metadata) ? out.metadata : undefined;
    if (md && typeof md.name === 'string' && md.name) md.labels = { ...(isObj(md.labels) ? md.labels : {}), 'kubernetes.io/metadata.name': md.name };
  },
  'core/v1.NodeStatus': (out) => {
    if (!isObj(out.allocatable) && isObj(out.capacity)) out.allocatable = { ...out.capacity };
  },
  'core/v1.LimitRangeItem': (out) => {
    if (out.type !== 'Container') return;
    const def: Obj = isObj(out.default) ? out.default : {};
    const req: Obj = isObj(out.defaultRequest) ? out.defaultRequest : {};
    for (const [k, v] of Object.entries(isObj(out.max) ? out.max : {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(isObj(out.min) ? out.min : {})) if (!(k in req)) req[k] = v;
    out.default = def;
    out.defaultRequest = req;
  },
  'core/v1.ReplicationController': (out) => {
    const spec = isObj(out.spec) ? out.spec : undefined;
    const labels = isObj(spec?.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
    if (!spec || !isObj(labels)) return;
    if (!isObj(spec.selector) || !Object.keys(spec.selector).length) spec.selector = { ...labels };
    const md = isObj(out.metadata) ? out.metadata : undefined;
    if (md && (!isObj(md.labels) || !Object.keys(md.labels).length)) md.labels = { ...labels };
  },
  'apps/v1.DeploymentStrategy': rollingStrategy,
  'apps/v1.DaemonSetUpdateStrategy': rollingStrategy,
  // SetDefaults_StatefulSet: rollingUpdate is made only when the type was defaulted
  'apps/v1.StatefulSetUpdateStrategy': (out, d, inner) => {
    if (!d.has('type') && d.has('rollingUpdate')) out.rollingUpdate = null;
    if (out.type !== 'RollingUpdate' && isObj(out.rollingUpdate) && !d.has('rollingUpdate'))
      for (const f of inner(out.rollingUpdate)) delete out.rollingUpdate[f];
  },
  'batch/v1.JobSpec': (out, d) => {
    if (d.has('completions') && !d.has('parallelism')) out.completions = null;
    if (d.has('backoffLimit') && out.backoffLimitPerIndex !== null && out.backoffLimitPerIndex !== undefined) out.backoffLimit = 2147483647;
    if (d.has('podReplacementPolicy') && isObj(out.podFailurePolicy)) out.podReplacementPolicy = 'Failed';
  },
  'batch/v1.Job': (out) => {
    const spec = isObj(out.spec) ? out.spec : undefined;
    const labels = isObj(spec?.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
    const md = isObj(out.metadata) ? out.metadata : undefined;
    if (isObj(labels) && md && (!isObj(md.labels) || !Object.keys(md.labels).length)) md.labels = { ...labels };
  },
  'rbac/v1.Subject': subject,
  'rbac/v1beta1.Subject': subject,
  'rbac/v1alpha1.Subject': subject,
  'networking/v1.NetworkPolicySpec': (out, d) => {
    if (d.has('policyTypes') && list(out.egress).length) out.policyTypes = ['Ingress', 'Egress'];
  },
};

export const hasConditional = (id: string): boolean => Object.hasOwn(RULES, id);

/** The conditional defaults of struct `id` (before its omitempty fields are dropped). */
export function applyConditional(id: string, out: Obj, defaulted: ReadonlySet<string>, inner: (o: unknown) => ReadonlySet<string>): void {
  RULES[id]?.(out, defaulted, inner);
}
