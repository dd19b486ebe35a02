/**
 * What a podSecurity rule reads, written as a pattern for the mutant generator (mutants.ts): every
 * field a Pod Security Standards check reads, with leaves whose candidates (leafCandidates) cross
 * each check's boundary: privileged true/false, host namespaces, hostPath and other volume types,
 * hostPorts, capabilities added and dropped, procMount, SELinux types/users, seccomp and AppArmor
 * profile types and annotations, sysctls, runAsNonRoot, runAsUser 0, allowPrivilegeEscalation,
 * windows hostProcess and os, probe hosts, and the images and names that exclusions match.
 */
const profile = { type: 'RuntimeDefault|Localhost|Unconfined' };
const host = { host: 'x|' };
const container = {
  name: 'nginx|fake|c1',
  image: 'ghcr.io/kyverno/test-nginx*|redis*|busybox:1.28',
  ports: [{ hostPort: 0, containerPort: 80 }],
  securityContext: {
    privileged: true,
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    runAsUser: 0,
    procMount: 'Default|Unmasked',
    capabilities: { add: ['NET_BIND_SERVICE|SYS_ADMIN|CHOWN'], drop: ['ALL|NET_RAW'] },
    seccompProfile: profile,
    appArmorProfile: profile,
    seLinuxOptions: { type: 'container_t|container_engine_t|spc_t', user: 'u|', role: 'r|' },
    windowsOptions: { hostProcess: true },
  },
  livenessProbe: { httpGet: host, tcpSocket: host },
  lifecycle: { preStop: { httpGet: host } },
};
const spec = {
  hostNetwork: true,
  hostPID: true,
  hostIPC: true,
  os: { name: 'windows|linux' },
  securityContext: {
    runAsNonRoot: true,
    runAsUser: 0,
    seccompProfile: profile,
    appArmorProfile: profile,
    seLinuxOptions: { type: 'container_t|spc_t', user: 'u|' },
    sysctls: [{ name: 'net.ipv4.tcp_syncookies|net.ipv4.tcp_rmem|kernel.msgmax', value: '1' }],
    windowsOptions: { hostProcess: true },
  },
  volumes: [
    { name: 'v', hostPath: { path: '/var|' } },
    { name: 'v', emptyDir: {} },
    { name: 'v', nfs: { server: 's', path: '/p' } },
    { name: 'v', configMap: { name: 'c' } },
  ],
  containers: [container],
  initContainers: [container],
  ephemeralContainers: [container],
};
const metadata = {
  annotations: {
    'container.apparmor.security.beta.kubernetes.io/nginx': 'unconfined|runtime/default|localhost/p',
    'seccomp.security.alpha.kubernetes.io/pod': 'unconfined|runtime/default',
    'container.seccomp.security.alpha.kubernetes.io/nginx': 'unconfined|docker/default',
  },
};

/** The fields of a Pod (the differential shifts it under a controller's and a CronJob's template). */
export const POD_SECURITY_SITES = { metadata, spec };

/** A CronJob's metadata as Kyverno reads it for the Pod: spec.jobTemplate.metadata. */
export const CRONJOB_METADATA_SITE = { spec: { jobTemplate: { metadata } } };
