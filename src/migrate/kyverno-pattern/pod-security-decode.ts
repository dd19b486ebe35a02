/**
 * Kyverno's podSecurity handler decodes the resource into a typed Pod (or controller) with
 * encoding/json (getSpec): a field of the wrong type is an error, and the rule errs (the request is
 * denied), whatever the checks say. The CEL checks the types of the fields the checks read; a
 * wrong type elsewhere in the object (which the apiserver would not decode either) is not held.
 */
type Node = 'bool' | 'int' | 'string' | 'strmap' | { [k: string]: Node } | Node[];

// every volume source is a struct: any other JSON type errs
const SOURCES: Record<string, Node> = Object.fromEntries(
  'awsElasticBlockStore azureDisk azureFile cephfs cinder configMap csi downwardAPI emptyDir ephemeral fc flexVolume flocker gcePersistentDisk gitRepo glusterfs hostPath image iscsi nfs persistentVolumeClaim photonPersistentDisk portworxVolume projected quobyte rbd scaleIO secret storageos vsphereVolume'
    .split(' ')
    .map((k) => [k, {}]),
);
const profile: Node = { type: 'string', localhostProfile: 'string' };
const host: Node = { host: 'string' };
const handler: Node = { httpGet: host, tcpSocket: host };
const seLinux: Node = { type: 'string', user: 'string', role: 'string', level: 'string' };
const container: Node = {
  name: 'string',
  image: 'string',
  ports: [{ hostPort: 'int', containerPort: 'int' }],
  securityContext: {
    privileged: 'bool',
    allowPrivilegeEscalation: 'bool',
    runAsNonRoot: 'bool',
    runAsUser: 'int',
    procMount: 'string',
    capabilities: { add: ['string'], drop: ['string'] },
    seccompProfile: profile,
    appArmorProfile: profile,
    seLinuxOptions: seLinux,
    windowsOptions: { hostProcess: 'bool' },
  },
  livenessProbe: handler,
  readinessProbe: handler,
  startupProbe: handler,
  lifecycle: { postStart: handler, preStop: handler },
};

export const POD_SPEC_TYPES: { [k: string]: Node } = {
  hostNetwork: 'bool',
  hostPID: 'bool',
  hostIPC: 'bool',
  os: { name: 'string' },
  securityContext: {
    runAsNonRoot: 'bool',
    runAsUser: 'int',
    seccompProfile: profile,
    appArmorProfile: profile,
    seLinuxOptions: seLinux,
    sysctls: [{ name: 'string', value: 'string' }],
    windowsOptions: { hostProcess: 'bool' },
  },
  volumes: [
    {
      name: 'string',
      ...SOURCES,
      hostPath: { path: 'string', type: 'string' },
      nfs: { server: 'string', path: 'string', readOnly: 'bool' },
      configMap: { name: 'string' },
      emptyDir: { medium: 'string' },
    },
  ],
  initContainers: [container],
  containers: [container],
  ephemeralContainers: [container],
};

export const POD_META_TYPES: Node = { annotations: 'strmap' };

/** CEL that holds when `v` (null: Go's zero value) has the type `node` wants. */
export function typesCel(v: string, node: Node, depth = 0): string {
  if (node === 'strmap') {
    const k = `t${depth}`;
    return `(${v} == null || (type(${v}) == map && ${v}.all(${k}, ${v}[${k}] == null || type(${v}[${k}]) == string)))`;
  }
  if (typeof node === 'string') return `(${v} == null || type(${v}) == ${node})`;
  if (Array.isArray(node)) {
    const e = `t${depth}`;
    return `(${v} == null || (type(${v}) == list && ${v}.all(${e}, ${typesCel(e, node[0], depth + 1)})))`;
  }
  const fields = Object.entries(node).map(([k, n]) => `(!has(${v}.${k}) || ${typesCel(`${v}.${k}`, n, depth)})`);
  return `(${v} == null || (type(${v}) == map${fields.map((f) => ` && ${f}`).join('')}))`;
}

/**
 * typesCel of a map node as conjuncts that each hold alone (the map's own type, then each field's
 * under it), grouped into expressions of at most `size` characters: cel-go's checker takes time
 * in the square of an expression's size (one 93 KB check of a pod spec, 1.9 s a compile), so the
 * policy checks the groups as separate validations.
 */
export function typesCelGroups(v: string, node: { [k: string]: Node }, size: number): string[] {
  const conjuncts = [
    `(${v} == null || type(${v}) == map)`,
    ...Object.entries(node).map(([k, n]) => `(${v} == null || type(${v}) != map || !has(${v}.${k}) || ${typesCel(`${v}.${k}`, n)})`),
  ];
  const groups: string[][] = [];
  let length = Number.POSITIVE_INFINITY;
  for (const c of conjuncts) {
    if (length + c.length > size) {
      groups.push([]);
      length = 0;
    }
    groups[groups.length - 1]!.push(c);
    length += c.length;
  }
  return groups.map((g) => g.join(' && '));
}
