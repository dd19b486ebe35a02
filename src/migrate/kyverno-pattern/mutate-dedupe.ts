/**
 * Kyverno's strategic merge (kustomize's kyaml merge2) walks the whole resource and keeps one
 * element per merge key in every keyed list it knows, whatever the patch touches: the element at
 * the first position, with the last one's content (`finalizers`, a set, keeps each value once).
 * Seen with the oracle: containers, volumes, env, volumeMounts, hostAliases, ownerReferences,
 * finalizers, a Service's and a Node's keyed lists; lists kyaml keys by several fields (ports with
 * their protocol, topologySpreadConstraints) only when every key repeats. An element with none of
 * its list's keys is dropped. The policy does the same
 * in mutations after the patch, the inner lists (a container's env) before the outer ones.
 */
import type { Obj } from '../../base/json';
import { celString } from './scalar';

type Keys = readonly string[] | 'set';

const POD_LISTS: readonly [string, Keys][] = [
  ['containers', ['name']],
  ['initContainers', ['name']],
  ['ephemeralContainers', ['name']],
  ['volumes', ['name']],
  ['imagePullSecrets', ['name']],
  ['hostAliases', ['ip']],
  ['topologySpreadConstraints', ['topologyKey', 'whenUnsatisfiable']],
];
const CONTAINER_LISTS: readonly [string, Keys][] = [
  ['env', ['name']],
  ['ports', ['containerPort', 'protocol']],
  ['volumeMounts', ['mountPath']],
  ['volumeDevices', ['devicePath']],
];
const METADATA_LISTS: readonly [string, Keys][] = [
  ['finalizers', 'set'],
  ['ownerReferences', ['uid']],
];

interface Shape {
  podSpec?: string[];
  metadata: string[][];
  lists?: [string[], Keys][];
}

const CONTROLLER: Shape = { podSpec: ['spec', 'template', 'spec'], metadata: [['metadata'], ['spec', 'template', 'metadata']] };

/** The kinds whose keyed lists are known here; Kyverno infers keys for other kinds (not modelled). */
export const DEDUPE_SHAPES: Readonly<Record<string, Shape>> = {
  Pod: { podSpec: ['spec'], metadata: [['metadata']] },
  Deployment: CONTROLLER,
  DaemonSet: CONTROLLER,
  StatefulSet: CONTROLLER,
  ReplicaSet: CONTROLLER,
  ReplicationController: CONTROLLER,
  Job: CONTROLLER,
  CronJob: {
    podSpec: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
    metadata: [['metadata'], ['spec', 'jobTemplate', 'metadata'], ['spec', 'jobTemplate', 'spec', 'template', 'metadata']],
  },
  Namespace: { metadata: [['metadata']] },
  ConfigMap: { metadata: [['metadata']] },
  Secret: { metadata: [['metadata']] },
  // secrets: patchMergeKey name; imagePullSecrets has no patch strategy on a ServiceAccount (replaced whole)
  ServiceAccount: { metadata: [['metadata']], lists: [[['secrets'], ['name']]] },
  Service: {
    metadata: [['metadata']],
    lists: [
      [
        ['spec', 'ports'],
        ['port', 'protocol'],
      ],
    ],
  },
  Node: {
    metadata: [['metadata']],
    lists: [
      [['status', 'addresses'], ['type']],
      [['status', 'conditions'], ['type']],
    ],
  },
};

let n = 0;
const fresh = (p: string) => `${p}${n++}`;

/**
 * The CEL of a list's dedupe at `l` (present) written to `ptr` (a CEL string). An element with none
 * of the keys changes what kyaml keeps (seen with the oracle): a non-empty one leaves the last such
 * element alone; else an empty one (`{}`) drops itself and every element after it, and the keyed
 * elements before it keep their first one's content.
 */
function dedupe(l: string, ptr: string, keys: Keys): string {
  const i = fresh('i');
  const j = fresh('j');
  const key = (e: string) => (keys === 'set' ? e : `[${keys.map((k) => `(has(${e}.${k}) ? dyn(${e}.${k}) : dyn(null))`).join(', ')}]`);
  const same = `${key(`${l}[${j}]`)} == ${key(`${l}[${i}]`)}`;
  const firstsOf = (n: string, keyed: string) => `lists.range(${n}).filter(${i}, ${keyed}!lists.range(${i}).exists(${j}, ${same}))`;
  if (keys === 'set') {
    const firsts = firstsOf(`size(${l})`, '');
    return `(size(${firsts}) != size(${l}) ? [JSONPatch{op: 'replace', path: ${ptr}, value: ${firsts}.map(${i}, ${l}[${i}])}] : [])`;
  }
  const keyed = (e: string) => `(${keys.map((k) => `has(${e}.${k})`).join(' || ')})`;
  const last = `${l}[lists.range(size(${l})).filter(${j}, ${same}).reverse()[0]]`;
  const k = fresh('k');
  // each list computed once, bound by a one-element map
  const [full, empty, firsts] = [fresh('f'), fresh('e'), fresh('g')];
  const keyless = (op: string) => `lists.range(size(${l})).filter(${k}, !${keyed(`${l}[${k}]`)} && size(${l}[${k}]) ${op} 0)`;
  const replace = (value: string) => `[JSONPatch{op: 'replace', path: ${ptr}, value: ${value}}]`;
  const plain = `[${firstsOf(`size(${l})`, `${keyed(`${l}[${i}]`)} && `)}].map(${firsts}, size(${firsts}) != size(${l}) ? ${replace(`${firsts}.map(${i}, ${last})`)} : [])[0]`;
  const before = `${firstsOf(`${empty}[0]`, `${keyed(`${l}[${i}]`)} && `)}.map(${i}, ${l}[${i}])`;
  return `[${keyless('>')}].map(${full}, [${keyless('==')}].map(${empty}, size(${full}) > 0 ? ${replace(`[${l}[${full}[size(${full}) - 1]]]`)} : size(${empty}) > 0 ? ${replace(before)} : ${plain})[0])[0]`;
}

const present = (path: readonly string[]) => path.map((_, k) => `has(object.${path.slice(0, k + 1).join('.')})`).join(' && ');
const pointer = (path: readonly string[]) => celString(`/${path.join('/')}`);

/** A list field `f` of the map `m` (a CEL expression), written under the pointer `q` (a CEL string). */
const field = (m: string, q: string, f: string, keys: Keys) =>
  `(has(${m}.${f}) && type(${m}.${f}) == list ? ${dedupe(`${m}.${f}`, `${q} + '/${f}'`, keys)} : [])`;

/** `[[value, pointer], …]` of the paths present, for the request's kind. */
function pairs(kinds: readonly string[], paths: (s: Shape) => string[][]): string {
  return kinds.reduceRight((acc, k) => {
    const list = paths(DEDUPE_SHAPES[k]!).map((p) => `(${present(p)} ? [[dyn(object.${p.join('.')}), dyn(${pointer(p)})]] : [])`);
    return `request.kind.kind == '${k}' ? (${list.length ? list.join(' + ') : '[]'}) : ${acc}`;
  }, '[]');
}

/**
 * The dedupe mutations for the kinds a rule matches (none known: undefined): the containers' lists
 * first, then the pod spec's and the metadata's (and a kind's own) lists, a mutation per list. Each
 * replaces only its own list and reads nothing another changes, so in sequence they patch as one
 * would. Not one expression: cel-go's checker copies its substitutions at every overload it
 * resolves, so its time grows with the square of the expression (the two expressions of all lists
 * took it seconds to check, the apiserver as much; a mutation per list, a tenth of that).
 */
export function dedupeMutations(kinds: readonly string[]): { inner: string[]; outer: string[] } | undefined {
  if (kinds.some((k) => !DEDUPE_SHAPES[k])) return undefined;
  n = 0;
  const pods = pairs(kinds, (s) => (s.podSpec ? [s.podSpec] : []));
  const c = fresh('c');
  const inner = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    CONTAINER_LISTS.map(
      ([f, keys]) =>
        `(${pods}).map(p, has(p[0].${list}) && type(p[0].${list}) == list ? lists.range(size(p[0].${list})).map(${c}, ${field(`p[0].${list}[${c}]`, `p[1] + '/${list}/' + string(${c})`, f, keys)}).flatten() : []).flatten()`,
    ),
  );
  const metadata = pairs(kinds, (s) => s.metadata);
  const outer = [
    ...POD_LISTS.map(([f, keys]) => `(${pods}).map(p, ${field('p[0]', 'p[1]', f, keys)}).flatten()`),
    ...METADATA_LISTS.map(([f, keys]) => `(${metadata}).map(p, ${field('p[0]', 'p[1]', f, keys)}).flatten()`),
    ...kinds
      .filter((k) => DEDUPE_SHAPES[k]!.lists)
      .flatMap((k) =>
        DEDUPE_SHAPES[k]!.lists!.map(
          ([path, keys]) =>
            `request.kind.kind == '${k}' && ${present(path)} && type(object.${path.join('.')}) == list ? ${dedupe(`object.${path.join('.')}`, pointer(path), keys)} : []`,
        ),
      ),
  ];
  return { inner, outer };
}

/**
 * Two elements of one key with different content, then (where the key survives admission's decoding
 * as absent: an `omitempty` field) an element with none of the keys, per keyed list: the cases where
 * kyaml's merge keeps a duplicate's content, or drops elements, by rules of its own. A key field
 * without `omitempty` (a volume device's `devicePath`, an owner reference's `uid`) decodes as `""`,
 * which kyaml treats otherwise again (not modelled: left out of the probes).
 */
/** Two elements with the keys of `key` and `field` set to 'a' and 'b'. */
const two = (key: Record<string, unknown>, field: string) => [
  { ...key, [field]: 'a' },
  { ...key, [field]: 'b' },
];
const CONTAINERS = two({ name: 'dup' }, 'image');
const PROBES: Readonly<Record<string, readonly unknown[]>> = {
  containers: CONTAINERS,
  initContainers: CONTAINERS,
  ephemeralContainers: CONTAINERS,
  volumes: [
    { name: 'dup', emptyDir: {} },
    { name: 'dup', emptyDir: { medium: 'Memory' } },
  ],
  imagePullSecrets: [{ name: 'dup' }, { name: 'dup' }, {}],
  hostAliases: two({ ip: '10.0.0.1' }, 'hostnames').map((e) => ({ ...e, hostnames: [e.hostnames] })),
  topologySpreadConstraints: two({ topologyKey: 'k', whenUnsatisfiable: 'DoNotSchedule' }, 'nodeTaintsPolicy').map((e, i) => ({
    ...e,
    nodeTaintsPolicy: i ? 'Honor' : 'Ignore',
  })),
  env: two({ name: 'DUP' }, 'value'),
  ports: two({ containerPort: 80, protocol: 'TCP' }, 'name'),
  volumeMounts: two({ mountPath: '/dup' }, 'name'),
  volumeDevices: two({ devicePath: '/dup' }, 'name'),
  finalizers: ['dup', 'other', 'dup'],
  ownerReferences: two({ apiVersion: 'v1', kind: 'ConfigMap', uid: 'u' }, 'name'),
  'spec.ports': two({ port: 80, protocol: 'TCP' }, 'name'),
  secrets: [...two({ name: 'dup' }, 'namespace'), { namespace: 'c' }, {}],
  'status.addresses': two({ type: 'InternalIP' }, 'address'),
  'status.conditions': two({ type: 'Ready' }, 'status'),
};

/** Copies of `object` with one keyed list (of its kind's, created where missing) set to each order of its probe. */
export function dedupeProbes(object: Obj): Obj[] {
  const shape = DEDUPE_SHAPES[String(object.kind)];
  if (!shape) return [];
  const sites: [string[], string][] = [
    ...shape.metadata.flatMap((m) => METADATA_LISTS.map(([f]): [string[], string] => [[...m, f], f])),
    ...(shape.podSpec ? POD_LISTS.map(([f]): [string[], string] => [[...shape.podSpec!, f], f]) : []),
    ...(shape.podSpec ? CONTAINER_LISTS.map(([f]): [string[], string] => [[...shape.podSpec!, 'containers', '0', f], f]) : []),
    ...(shape.lists ?? []).map(([path]): [string[], string] => [path, PROBES[path.join('.')] ? path.join('.') : path[path.length - 1]!]),
  ];
  const out: Obj[] = [];
  for (const [path, name] of sites) {
    const probe = PROBES[name]!;
    // the probe, then each element moved to the front
    for (const list of [probe, ...probe.slice(1).map((e, i) => [e, ...probe.filter((_, j) => j !== i + 1)])]) {
      const copy = structuredClone(object) as Record<string, unknown>;
      let at: Record<string, unknown> | undefined = copy;
      for (const t of path.slice(0, -1)) {
        const next: unknown = at[t];
        if (next === undefined && !/^[0-9]+$/.test(t)) at[t] = {};
        at = at[t] && typeof at[t] === 'object' ? (at[t] as Record<string, unknown>) : undefined;
        if (!at) break;
      }
      if (!at) continue;
      at[path[path.length - 1]!] = list;
      out.push(copy as Obj);
    }
  }
  return out;
}
