/**
 * Deterministic mutants of admission configuration objects for the validation
 * differential test: a seeded PRNG picks a place in a seed object and one of the
 * mutations below (one to three per mutant). Same seed, same mutants.
 */
import { seededRandom } from '../../src/base/random';

/** The project's seeded PRNG (mulberry32, src/base/random.ts): same seed, same mutants. */
export const prng = seededRandom;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Container = Json[] | { [k: string]: Json };

/** Strings that sit on the edges of the rules: names, URLs, enums, label syntax, CEL. */
export const TRICKY_STRINGS: readonly string[] = [
  '',
  ' ',
  'a b',
  'UPPER',
  '-leading',
  'trailing-',
  'a..b',
  'a_b',
  'é',
  '*',
  '*/*',
  '*/status',
  'pods/*',
  'a/b/c',
  '/',
  'pods/',
  'x'.repeat(63),
  'x'.repeat(64),
  `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
  'x'.repeat(254),
  'x'.repeat(317),
  'https://',
  'http://example.com/x',
  'https://example.com:8443/p',
  'https://[::1]:8443/p',
  'https://host?x=1',
  'https://host#f',
  'https://user@host',
  'https://host/a path',
  'ftp://host',
  'example.com',
  'example.com/',
  'a.b',
  '1.2.3.4',
  'kube-system',
  'v1',
  'v1beta1',
  'v2',
  'apps',
  'Foo',
  'CREATE',
  'DELETE',
  'UPDATE',
  'CONNECT',
  'create',
  'Namespaced',
  'Cluster',
  '*',
  'Fail',
  'Ignore',
  'fail',
  'None',
  'Some',
  'Unknown',
  'NoneOnDryRun',
  'IfNeeded',
  'Never',
  'Equivalent',
  'Exact',
  'Deny',
  'Warn',
  'Audit',
  'Allow',
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
  'Gt',
  'JSONPatch',
  'ApplyConfiguration',
  'object.spec.replicas <= 5',
  'true',
  '1 +',
  'self',
  "'a'",
  'request.operation',
  'has(object.metadata)',
  '!!',
  'Unauthorized',
  'Forbidden',
  'Invalid',
  'RequestEntityTooLarge',
  'ConfigMap',
  'apps/v1',
  '/path',
  'path',
  'app.kubernetes.io/name',
  'example.com/x',
  'a/b',
  '_x',
  'x-',
  'line\nbreak',
  'tab\t',
  'Ab',
  'a.B',
  'Q==',
  'not base64!',
];

/** Numbers on the edges: 0, negatives, the timeoutSeconds range 1..30, ports, 32-bit overflow, fractions. */
export const TRICKY_NUMBERS: readonly number[] = [0, -1, 1, 30, 31, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 1.5, -0.5, 1e20];

/** Keys that validation reads, added where they may or may not belong (unknown fields are ignored by the decoder). */
const KNOWN_KEYS: readonly string[] = [
  'name',
  'namespace',
  'generateName',
  'timeoutSeconds',
  'failurePolicy',
  'matchPolicy',
  'sideEffects',
  'reinvocationPolicy',
  'scope',
  'url',
  'path',
  'port',
  'operations',
  'apiGroups',
  'apiVersions',
  'resources',
  'resourceNames',
  'matchLabels',
  'matchExpressions',
  'expression',
  'message',
  'messageExpression',
  'reason',
  'validationActions',
  'parameterNotFoundAction',
  'selector',
  'policyName',
  'paramRef',
  'paramKind',
  'admissionReviewVersions',
  'caBundle',
  'service',
  'key',
  'operator',
  'values',
  'variables',
  'auditAnnotations',
  'valueExpression',
  'matchConditions',
  'mutations',
  'patchType',
  'labels',
  'annotations',
];

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const isContainer = (v: Json): v is Container => typeof v === 'object' && v !== null;

/** Every place in the object: the container, the key or index, the value there. */
interface Site {
  parent: Container;
  key: string | number;
  value: Json;
  path: string;
}

function sites(root: Json, path = '', out: Site[] = []): Site[] {
  if (Array.isArray(root)) {
    root.forEach((v, i) => {
      const p = `${path}[${i}]`;
      out.push({ parent: root, key: i, value: v, path: p });
      sites(v, p, out);
    });
  } else if (isContainer(root)) {
    for (const [k, v] of Object.entries(root)) {
      const p = path ? `${path}.${k}` : k;
      out.push({ parent: root, key: k, value: v, path: p });
      sites(v, p, out);
    }
  }
  return out;
}

/** Containers (for adding keys/elements). */
function containers(root: Json, path = '', out: { node: Container; path: string }[] = []): { node: Container; path: string }[] {
  if (!isContainer(root)) return out;
  out.push({ node: root, path });
  if (Array.isArray(root)) root.forEach((v, i) => containers(v, `${path}[${i}]`, out));
  else for (const [k, v] of Object.entries(root)) containers(v, path ? `${path}.${k}` : k, out);
  return out;
}

const set = (s: Site, v: Json): void => {
  (s.parent as Record<string | number, Json>)[s.key] = v;
};

type Mutation = (root: Json, rnd: () => number) => string | undefined;

/** The mutations: each changes `root` in place and says what it did (undefined: nothing to do here). */
const MUTATIONS: Readonly<Record<string, Mutation>> = {
  delete(root, rnd) {
    const all = sites(root).filter((s) => !(s.path === 'apiVersion' || s.path === 'kind'));
    if (!all.length) return undefined;
    const s = pick(rnd, all);
    if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
    else delete s.parent[s.key as string];
    return `delete ${s.path}`;
  },
  null(root, rnd) {
    const all = sites(root).filter((s) => s.path !== 'apiVersion' && s.path !== 'kind');
    if (!all.length) return undefined;
    const s = pick(rnd, all);
    set(s, null);
    return `${s.path} = null`;
  },
  nullInStringList(root, rnd) {
    const lists = sites(root).filter((s) => Array.isArray(s.value) && s.value.every((v) => typeof v === 'string'));
    if (!lists.length) return undefined;
    const s = pick(rnd, lists);
    const list = s.value as Json[];
    const at = Math.floor(rnd() * (list.length + 1));
    list.splice(at, 0, null);
    return `${s.path}[${at}] inserted null`;
  },
  trickyString(root, rnd) {
    const all = sites(root).filter((s) => typeof s.value === 'string' && s.path !== 'kind' && s.path !== 'apiVersion');
    if (!all.length) return undefined;
    const s = pick(rnd, all);
    const v = pick(rnd, TRICKY_STRINGS);
    set(s, v);
    return `${s.path} = ${JSON.stringify(v)}`;
  },
  trickyNumber(root, rnd) {
    const all = sites(root).filter((s) => typeof s.value === 'number');
    const s = all.length ? pick(rnd, all) : undefined;
    const v = pick(rnd, TRICKY_NUMBERS);
    if (s) {
      set(s, v);
      return `${s.path} = ${v}`;
    }
    return MUTATIONS.addKnownKey!(root, rnd);
  },
  duplicate(root, rnd) {
    const lists = sites(root).filter((s) => Array.isArray(s.value) && s.value.length > 0);
    if (!lists.length) return undefined;
    const s = pick(rnd, lists);
    const list = s.value as Json[];
    const i = Math.floor(rnd() * list.length);
    list.push(structuredClone(list[i]!));
    return `${s.path}: duplicated [${i}]`;
  },
  wrongType(root, rnd) {
    const all = sites(root).filter((s) => s.path !== 'kind' && s.path !== 'apiVersion');
    if (!all.length) return undefined;
    const s = pick(rnd, all);
    const choices: Json[] = [7, true, 'str', {}, [], ['a'], { a: 'b' }, -3, 0.5];
    const v = pick(
      rnd,
      choices.filter((c) => typeof c !== typeof s.value || Array.isArray(c) !== Array.isArray(s.value)),
    );
    set(s, structuredClone(v));
    return `${s.path} = ${JSON.stringify(v)} (was ${Array.isArray(s.value) ? 'array' : typeof s.value})`;
  },
  addKnownKey(root, rnd) {
    const objs = containers(root).filter((c) => !Array.isArray(c.node));
    if (!objs.length) return undefined;
    const c = pick(rnd, objs);
    const key = pick(rnd, KNOWN_KEYS);
    const r = rnd();
    const v: Json = r < 0.45 ? pick(rnd, TRICKY_STRINGS) : r < 0.65 ? pick(rnd, TRICKY_NUMBERS) : r < 0.85 ? [pick(rnd, TRICKY_STRINGS)] : r < 0.93 ? {} : null;
    (c.node as Record<string, Json>)[key] = v;
    return `${c.path ? `${c.path}.` : ''}${key} = ${JSON.stringify(v)}`;
  },
  emptyList(root, rnd) {
    const lists = sites(root).filter((s) => Array.isArray(s.value));
    if (!lists.length) return undefined;
    const s = pick(rnd, lists);
    set(s, []);
    return `${s.path} = []`;
  },
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);

export interface Mutant {
  /** Which seed object it came from. */
  from: string;
  /** What was changed, in order. */
  changes: string[];
  object: unknown;
}

/** `count` mutants of `seeds`, deterministic for a given `seed`. */
export function mutants(seeds: readonly { id: string; object: unknown }[], count: number, seed: number): Mutant[] {
  const rnd = prng(seed);
  const out: Mutant[] = [];
  while (out.length < count) {
    const base = pick(rnd, seeds);
    const object = structuredClone(base.object) as Json;
    const n = rnd() < 0.7 ? 1 : rnd() < 0.7 ? 2 : 3;
    const changes: string[] = [];
    for (let i = 0; i < n; i++) {
      const change = MUTATIONS[pick(rnd, MUTATION_NAMES)]!(object, rnd);
      if (change) changes.push(change);
    }
    if (changes.length) out.push({ from: base.id, changes, object });
  }
  return out;
}
