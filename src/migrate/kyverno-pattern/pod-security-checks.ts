/**
 * The Pod Security Standards checks as Kyverno v1.19 runs them (k8s.io/pod-security-admission
 * policy/check_*.go, kyverno's fork, with field errors): each check, as CEL, yields the list of its
 * field errors `[field, container name]` (indexes written `*`, as kyverno's pkg/pss compares them;
 * '' for a pod-level field) on a view of a Pod. An empty list: the check allows the Pod.
 * Kyverno's exclusions remove errors by these keys, so the same lists decide them (pod-security.ts).
 */

/** What a check reads of a Pod: its spec's pod-level fields, its metadata, its containers. */
export interface PodView {
  /** The pod spec (CEL) for pod-level fields, or null when the view has none (kyverno's pod of matching containers). */
  spec: string | null;
  /** The metadata (CEL) whose annotations are read, or null. */
  meta: string | null;
  /** Each container list (visitContainers' order) as a CEL list. */
  lists: [kind: 'initContainers' | 'containers' | 'ephemeralContainers', list: string][];
}

/** `has()` on every step of `path` under `base`, and not null (Go reads a null as absent). */
export const hasPath = (base: string, path: string): string => {
  const parts = path.split('.');
  return parts
    .map((_, i) => {
      const x = `${base}.${parts.slice(0, i + 1).join('.')}`;
      return `has(${x}) && ${x} != null`;
    })
    .join(' && ');
};

/** A string field as Go reads it: absent or null is ''. */
export const orEmpty = (base: string, field: string): string => `(has(${base}.${field}) && ${base}.${field} != null ? string(${base}.${field}) : '')`;

const str = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const NAME = (c: string) => orEmpty(c, 'name');
/** A pod-level condition on the view's spec (false when the view has no spec). */
const pod = (v: PodView, path: string, test: (x: string) => string) => (v.spec ? `(${hasPath(v.spec, path)} && ${test(`${v.spec}.${path}`)})` : 'false');
const podErr = (v: PodView, path: string, test: (x: string) => string, field = `spec.${path}`) => `(${pod(v, path, test)} ? [[${str(field)}, '']] : [])`;
/** Per container: one error `field` (under `spec.<list>[*].`) where `bad` holds. */
const each = (v: PodView, field: string, bad: (c: string) => string, name: (c: string) => string = NAME) =>
  v.lists.length ? v.lists.map(([k, l]) => `${l}.filter(c, ${bad('c')}).map(c, [${str(`spec.${k}[*].${field}`)}, ${name('c')}])`).join(' + ') : '[]';
const sc = (c: string, path: string, test: (x: string) => string) => `(${hasPath(c, `securityContext.${path}`)} && ${test(`${c}.securityContext.${path}`)})`;
const concat = (...ls: string[]) => ls.join(' + ');
const set = (xs: readonly string[]) => `[${xs.map(str).join(', ')}]`;
const windows = (v: PodView) => pod(v, 'os.name', (x) => `${x} == 'windows'`);

const CAPS_BASELINE = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];
const SELINUX_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SYSCTLS_1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];
// restrictedVolumes: the volume sources allowed (any one set passes the volume)
const VOLUMES_ALLOWED = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
const SECCOMP_OK = ['Localhost', 'RuntimeDefault'];
const APPARMOR_OK = ['RuntimeDefault', 'Localhost'];

type Errs = (v: PodView) => string;

const privileged: Errs = (v) => each(v, 'securityContext.privileged', (c) => sc(c, 'privileged', (x) => `${x} == true`));
const hostPathVolumes: Errs = (v) =>
  v.spec
    ? `(${hasPath(v.spec, 'volumes')} ? ${v.spec}.volumes.filter(x, x != null && has(x.hostPath) && x.hostPath != null).map(x, ['spec.volumes[*].hostPath', '']) : [])`
    : '[]';
const hostNamespaces: Errs = (v) => concat(...['hostNetwork', 'hostPID', 'hostIPC'].map((f) => podErr(v, f, (x) => `${x} == true`)));
// one error per port; the container's key carries its count (the same count on both sides of an exclusion)
const hostPorts: Errs = (v) => {
  const bad = (c: string) => `${c}.ports.filter(p, p != null && has(p.hostPort) && p.hostPort != null && p.hostPort != 0)`;
  return each(
    v,
    'ports[*].hostPort',
    (c) => `${hasPath(c, 'ports')} && ${bad(c)}.size() > 0`,
    (c) => `${NAME(c)} + '#' + string(${bad(c)}.size())`,
  );
};
const capabilitiesBaseline: Errs = (v) =>
  each(v, 'securityContext.capabilities.add', (c) => sc(c, 'capabilities.add', (x) => `${x}.exists(a, !(a in ${set(CAPS_BASELINE)}))`));
const procMount: Errs = (v) => each(v, 'securityContext.procMount', (c) => sc(c, 'procMount', (x) => `${x} != 'Default'`));
const seLinux =
  (types: readonly string[]): Errs =>
  (v) => {
    const tests: [string, (x: string) => string][] = [
      ['type', (x) => `!(${orEmpty(x, 'type')} in ${set(types)})`],
      ['user', (x) => `${orEmpty(x, 'user')} != ''`],
      ['role', (x) => `${orEmpty(x, 'role')} != ''`],
    ];
    const podSide = tests.map(([f, t]) => podErr(v, 'securityContext.seLinuxOptions', t, `spec.securityContext.seLinuxOptions.${f}`));
    const ctrs = tests.map(([f, t]) => each(v, `securityContext.seLinuxOptions.${f}`, (c) => sc(c, 'seLinuxOptions', t)));
    return concat(...podSide, ...ctrs);
  };
const nz = (x: string) => `(${x} == null ? '' : string(${x}))`;
const seccompAnnotationOk = (x: string) => `[${nz(x)}].all(s, s == 'runtime/default' || s == 'docker/default' || s.startsWith('localhost/'))`;
const seccompBaseline1_0: Errs = (v) => {
  if (!v.meta) return '[]';
  const meta = v.meta;
  const a = `${meta}.annotations`;
  const key = 'seccomp.security.alpha.kubernetes.io/pod';
  const podSide = `(${hasPath(v.meta, 'annotations')} && ${str(key)} in ${a} && !${seccompAnnotationOk(`${a}[${str(key)}]`)} ? [[${str(`metadata.annotations[${key}]`)}, '']] : [])`;
  const ck = (c: string) => `'container.seccomp.security.alpha.kubernetes.io/' + ${NAME(c)}`;
  const ctrs = v.lists.map(
    ([, l]) =>
      `(${hasPath(meta, 'annotations')} ? ${l}.filter(c, ${ck('c')} in ${a} && !${seccompAnnotationOk(`${a}[${ck('c')}]`)}).map(c, ['metadata.annotations[' + ${ck('c')} + ']', '']) : [])`,
  );
  return concat(podSide, ...ctrs);
};
const seccompBaseline1_19: Errs = (v) =>
  concat(
    podErr(v, 'securityContext.seccompProfile', (x) => `!(${orEmpty(x, 'type')} in ${set(SECCOMP_OK)})`, 'spec.securityContext.seccompProfile.type'),
    each(v, 'securityContext.seccompProfile.type', (c) => sc(c, 'seccompProfile', (x) => `!(${orEmpty(x, 'type')} in ${set(SECCOMP_OK)})`)),
  );
const sysctls =
  (allowed: readonly string[]): Errs =>
  (v) =>
    v.spec
      ? `(${hasPath(v.spec, 'securityContext.sysctls')} ? ${v.spec}.securityContext.sysctls.filter(s, s == null || !(${orEmpty('s', 'name')} in ${set(allowed)})).map(s, ['spec.securityContext.sysctls[*].name', '']) : [])`
      : '[]';
const appArmor: Errs = (v) => {
  const typeBad = (x: string) => `!(${orEmpty(x, 'type')} in ${set(APPARMOR_OK)})`;
  const prefix = 'container.apparmor.security.beta.kubernetes.io/';
  const a = v.meta ? `${v.meta}.annotations` : '';
  const ann = v.meta
    ? `(${hasPath(v.meta, 'annotations')} ? ${a}.filter(k, k.startsWith(${str(prefix)}) && ![${nz(`${a}[k]`)}].all(s, s == '' || s == 'runtime/default' || s.startsWith('localhost/'))).map(k, ['metadata.annotations[' + string(k) + ']', '']) : [])`
    : '[]';
  return concat(
    podErr(v, 'securityContext.appArmorProfile', typeBad, 'spec.securityContext.appArmorProfile.type'),
    each(v, 'securityContext.appArmorProfile.type', (c) => sc(c, 'appArmorProfile', typeBad)),
    ann,
  );
};
const hostProcess: Errs = (v) =>
  concat(
    each(v, 'securityContext.windowsOptions.hostProcess', (c) => sc(c, 'windowsOptions.hostProcess', (x) => `${x} == true`)),
    podErr(v, 'securityContext.windowsOptions.hostProcess', (x) => `${x} == true`),
  );
// no field errors in Go (nor an exclusion control): one key per container
const hostProbes: Errs = (v) => {
  const host = (h: string) => `((${hasPath(h, 'httpGet.host')} && ${h}.httpGet.host != '') || (${hasPath(h, 'tcpSocket.host')} && ${h}.tcpSocket.host != ''))`;
  const bad = (c: string) =>
    [
      ...['livenessProbe', 'readinessProbe', 'startupProbe'].map((p) => `(has(${c}.${p}) && ${host(`${c}.${p}`)})`),
      ...['postStart', 'preStop'].map((p) => `(${hasPath(c, `lifecycle.${p}`)} && ${host(`${c}.lifecycle.${p}`)})`),
    ].join(' || ');
  return each(v, 'probe-or-lifecycle-host', bad);
};
const allowPrivilegeEscalation =
  (win: boolean): Errs =>
  (v) => {
    const errs = each(v, 'securityContext.allowPrivilegeEscalation', (c) => `!${sc(c, 'allowPrivilegeEscalation', (x) => `${x} == false`)}`);
    return win ? `(${windows(v)} ? [] : ${errs})` : errs;
  };
const capabilitiesRestricted =
  (win: boolean): Errs =>
  (v) => {
    const drop = each(v, 'securityContext.capabilities.drop', (c) => `!${sc(c, 'capabilities.drop', (x) => `'ALL' in ${x}`)}`);
    const add = each(v, 'securityContext.capabilities.add', (c) => sc(c, 'capabilities.add', (x) => `${x}.exists(a, a != 'NET_BIND_SERVICE')`));
    const errs = concat(drop, add);
    return win ? `(${windows(v)} ? [] : ${errs})` : errs;
  };
const runAsNonRoot: Errs = (v) => {
  const podTrue = pod(v, 'securityContext.runAsNonRoot', (x) => `${x} == true`);
  return concat(
    podErr(v, 'securityContext.runAsNonRoot', (x) => `${x} == false`),
    each(
      v,
      'securityContext.runAsNonRoot',
      (c) => `(${hasPath(c, 'securityContext.runAsNonRoot')} ? ${c}.securityContext.runAsNonRoot == false : !${podTrue})`,
    ),
  );
};
const runAsUser: Errs = (v) =>
  concat(
    podErr(v, 'securityContext.runAsUser', (x) => `${x} == 0`),
    each(v, 'securityContext.runAsUser', (c) => sc(c, 'runAsUser', (x) => `${x} == 0`)),
  );
const seccompRestricted =
  (win: boolean): Errs =>
  (v) => {
    const typeBad = (x: string) => `!(${orEmpty(x, 'type')} in ${set(SECCOMP_OK)})`;
    const podSet = pod(v, 'securityContext.seccompProfile', (x) => `!${typeBad(x)}`);
    const explicit = concat(
      podErr(v, 'securityContext.seccompProfile', typeBad, 'spec.securityContext.seccompProfile.type'),
      each(v, 'securityContext.seccompProfile.type', (c) => sc(c, 'seccompProfile', typeBad)),
    );
    const implicit = each(
      v,
      'securityContext.seccompProfile.type',
      (c) => `((!has(${c}.securityContext) || !has(${c}.securityContext.seccompProfile)) ? !${podSet} : false)`,
    );
    // explicit errors (pod or containers) hide the implicit ones
    const errs = `[${explicit}].map(b, b.size() > 0 ? b : ${implicit})[0]`;
    return win ? `(${windows(v)} ? [] : ${errs})` : errs;
  };
const restrictedVolumes: Errs = (v) =>
  v.spec
    ? `(${hasPath(v.spec, 'volumes')} ? ${v.spec}.volumes.filter(x, x == null || (${VOLUMES_ALLOWED.map((s) => `!(has(x.${s}) && x.${s} != null)`).join(' && ')})).map(x, ['spec.volumes[*]', '']) : [])`
    : '[]';

export interface PssCheck {
  id: string;
  level: 'baseline' | 'restricted';
  /** Kyverno's control name (exclude.controlName); none: the check cannot be excluded. */
  control?: string;
  /** The check's versions by minimum minor (v1.N), oldest first. */
  versions: { min: number; errs: Errs }[];
}

/** policy.DefaultChecks(), with pkg/pss/utils' control names. */
export const PSS_CHECKS: PssCheck[] = [
  { id: 'privileged', level: 'baseline', control: 'Privileged Containers', versions: [{ min: 0, errs: privileged }] },
  { id: 'hostPathVolumes', level: 'baseline', control: 'HostPath Volumes', versions: [{ min: 0, errs: hostPathVolumes }] },
  { id: 'hostNamespaces', level: 'baseline', control: 'Host Namespaces', versions: [{ min: 0, errs: hostNamespaces }] },
  { id: 'hostPorts', level: 'baseline', control: 'Host Ports', versions: [{ min: 0, errs: hostPorts }] },
  { id: 'capabilities_baseline', level: 'baseline', control: 'Capabilities', versions: [{ min: 0, errs: capabilitiesBaseline }] },
  { id: 'procMount', level: 'baseline', control: '/proc Mount Type', versions: [{ min: 0, errs: procMount }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    control: 'SELinux',
    versions: [
      { min: 0, errs: seLinux(SELINUX_1_0) },
      { min: 31, errs: seLinux([...SELINUX_1_0, 'container_engine_t']) },
    ],
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    control: 'Seccomp',
    versions: [
      { min: 0, errs: seccompBaseline1_0 },
      { min: 19, errs: seccompBaseline1_19 },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    control: 'Sysctls',
    versions: [
      { min: 0, errs: sysctls(SYSCTLS_1_0) },
      { min: 27, errs: sysctls(SYSCTLS_1_27) },
      { min: 29, errs: sysctls(SYSCTLS_1_29) },
      { min: 32, errs: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'appArmorProfile', level: 'baseline', control: 'AppArmor', versions: [{ min: 0, errs: appArmor }] },
  { id: 'windowsHostProcess', level: 'baseline', control: 'HostProcess', versions: [{ min: 0, errs: hostProcess }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ min: 34, errs: hostProbes }] },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    control: 'Privilege Escalation',
    versions: [
      { min: 8, errs: allowPrivilegeEscalation(false) },
      { min: 25, errs: allowPrivilegeEscalation(true) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    control: 'Capabilities',
    versions: [
      { min: 22, errs: capabilitiesRestricted(false) },
      { min: 25, errs: capabilitiesRestricted(true) },
    ],
  },
  { id: 'runAsNonRoot', level: 'restricted', control: 'Running as Non-root', versions: [{ min: 0, errs: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', control: 'Running as Non-root user', versions: [{ min: 23, errs: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    control: 'Seccomp',
    versions: [
      { min: 19, errs: seccompRestricted(false) },
      { min: 25, errs: seccompRestricted(true) },
    ],
  },
  { id: 'restrictedVolumes', level: 'restricted', control: 'Volume Types', versions: [{ min: 0, errs: restrictedVolumes }] },
];

/**
 * The version of a check Kyverno's evaluatePSS runs at minor `minor` (Infinity: latest): the first,
 * replaced by any later one whose minimum the version reaches (so a check newer than the version still
 * runs its first version).
 */
export function checkAt(check: PssCheck, minor: number): Errs {
  let selected = check.versions[0];
  for (const v of check.versions.slice(1)) if (minor >= v.min && selected.min < v.min) selected = v;
  return selected.errs;
}

/** Kyverno's restricted-level exclusion controls are pod-level, container-level or both (images required, forbidden, optional). */
export const CONTAINER_LEVEL = ['Capabilities', 'Privileged Containers', 'Host Ports', '/proc Mount Type', 'Privilege Escalation'];
export const POD_LEVEL = ['Host Namespaces', 'HostPath Volumes', 'Sysctls', 'Volume Types'];
