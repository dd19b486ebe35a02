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

/** The CEL of a list's dedupe at `l` (present) written to `ptr` (a CEL string). */
function dedupe(l: string, ptr: string, keys: Keys): string {
  const i = fresh('i');
  const j = fresh('j');
  const key = (e: string) => (keys === 'set' ? e : `[${keys.map((k) => `(has(${e}.${k}) ? dyn(${e}.${k}) : dyn(null))`).join(', ')}]`);
  const same = `${key(`${l}[${j}]`)} == ${key(`${l}[${i}]`)}`;
  // an element with none of the keys is dropped (seen with the oracle: `imagePullSecrets: [{}]`)
  const keyed = keys === 'set' ? '' : `(${keys.map((k) => `has(${l}[${i}].${k})`).join(' || ')}) && `;
  const firsts = `lists.range(size(${l})).filter(${i}, ${keyed}!lists.range(${i}).exists(${j}, ${same}))`;
  const last = `${l}[lists.range(size(${l})).filter(${j}, ${same}).reverse()[0]]`;
  return `(size(${firsts}) != size(${l}) ? [JSONPatch{op: 'replace', path: ${ptr}, value: ${firsts}.map(${i}, ${last})}] : [])`;
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
 * first, then the pod spec's and the metadata's (and a kind's own) lists.
 */
export function dedupeMutations(kinds: readonly string[]): { inner: string; outer: string } | undefined {
  if (kinds.some((k) => !DEDUPE_SHAPES[k])) return undefined;
  n = 0;
  const pods = pairs(kinds, (s) => (s.podSpec ? [s.podSpec] : []));
  const c = fresh('c');
  const perContainer = (list: string) =>
    `(has(p[0].${list}) && type(p[0].${list}) == list ? lists.range(size(p[0].${list})).map(${c}, ${CONTAINER_LISTS.map(([f, keys]) => field(`p[0].${list}[${c}]`, `p[1] + '/${list}/' + string(${c})`, f, keys)).join(' + ')}).flatten() : [])`;
  const inner = `(${pods}).map(p, ${['containers', 'initContainers', 'ephemeralContainers'].map(perContainer).join(' + ')}).flatten()`;
  const podLists = `(${pods}).map(p, ${POD_LISTS.map(([f, keys]) => field('p[0]', 'p[1]', f, keys)).join(' + ')}).flatten()`;
  const metaLists = `(${pairs(kinds, (s) => s.metadata)}).map(p, ${METADATA_LISTS.map(([f, keys]) => field('p[0]', 'p[1]', f, keys)).join(' + ')}).flatten()`;
  const own = kinds
    .filter((k) => DEDUPE_SHAPES[k]!.lists)
    .map(
      (k) =>
        `(request.kind.kind == '${k}' ? ${DEDUPE_SHAPES[k]!.lists!.map(([path, keys]) => `(${present(path)} && type(object.${path.join('.')}) == list ? ${dedupe(`object.${path.join('.')}`, pointer(path), keys)} : [])`).join(' + ')} : [])`,
    );
  return { inner, outer: [podLists, metaLists, ...own].join(' + ') };
}
