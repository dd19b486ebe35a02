/**
 * The generated type data of each release (`data/<release>.json`, written by
 * `npm run typed:generate` from tools/typecheck-oracle `types` built on the release's k8s.io
 * modules), parsed once per release on first use. Per built-in kind (`group/version/Kind`) its
 * Go struct; per struct its fields in Go order (json name, type, omitempty/omitzero); per kind
 * the defaults its defaulters give an absent field when everything around it is empty.
 */
import type { KubernetesVersion } from '../../base/releases';

/** A file as the generator writes it. */
export interface TypedData {
  release: string;
  modules: Record<string, string>;
  kinds: Record<string, string>;
  types: Record<string, [string, string, string][]>;
  /** Struct type → [[field, value]]: the defaults an absent field gets when everything around it is empty. */
  defaults: Record<string, [string, unknown][]>;
  /** Kind → struct type → [[field, value]] where that kind's defaulters differ (`[]`: none). */
  kindDefaults: Record<string, Record<string, [string, unknown][]>>;
}

export type TypeRef =
  | { k: 'string' | 'bool' | 'int' | 'uint' | 'float' }
  | { k: 'ptr' | 'slice'; of: TypeRef }
  | { k: 'map'; of: TypeRef; resourceList?: boolean }
  | { k: 'struct'; id: string }
  | { k: 'special'; s: string };

export interface Field {
  name: string;
  type: TypeRef;
  omitempty: boolean;
  omitzero: boolean;
}

type Table = readonly (readonly [string, unknown])[];

export interface TypedRelease {
  kinds: ReadonlyMap<string, string>;
  structs: ReadonlyMap<string, readonly Field[]>;
  /** Per struct, its fields by json name. */
  fieldIndex: ReadonlyMap<string, ReadonlyMap<string, Field>>;
  defaults: ReadonlyMap<string, Table>;
  kindDefaults: ReadonlyMap<string, ReadonlyMap<string, Table>>;
}

/** Each release's file, a chunk of its own (fetched on first use in the browser, not with the first load). */
const LOADERS: Record<KubernetesVersion, () => Promise<{ default: unknown }>> = {
  '1.30': () => import('./data/1.30.json'),
  '1.31': () => import('./data/1.31.json'),
  '1.32': () => import('./data/1.32.json'),
  '1.33': () => import('./data/1.33.json'),
  '1.34': () => import('./data/1.34.json'),
  '1.35': () => import('./data/1.35.json'),
  '1.36': () => import('./data/1.36.json'),
  '1.37': () => import('./data/1.37.json'),
  '1.38': () => import('./data/1.38.json'),
};

const files = new Map<KubernetesVersion, TypedData>();
const loading = new Map<KubernetesVersion, Promise<void>>();

/** Loads a release's data (once; later calls answer at once). */
export function loadTypedData(release: KubernetesVersion): Promise<void> {
  if (files.has(release)) return DONE;
  let p = loading.get(release);
  if (!p) {
    const loader = LOADERS[release];
    if (!loader) return Promise.reject(new Error(`no type data for Kubernetes ${release}`));
    p = loader().then((m) => {
      files.set(release, m.default as TypedData);
    });
    loading.set(release, p);
  }
  return p;
}
const DONE = Promise.resolve();

export const typedDataLoaded = (release: KubernetesVersion): boolean => files.has(release);

/** The raw generated file of a loaded release (tests compare it with a regeneration). */
export function typedDataFile(release: KubernetesVersion): TypedData {
  const f = files.get(release);
  if (!f) throw new Error(`the type data of Kubernetes ${release} is not loaded (await loadTypedData('${release}') first)`);
  return f;
}

const SCALARS = new Set(['string', 'bool', 'int', 'uint', 'float']);

/** A type in the generator's grammar (tools/typecheck-oracle/types.go). */
export function parseType(s: string): TypeRef {
  if (SCALARS.has(s)) return { k: s as 'string' };
  if (s.startsWith('*')) return { k: 'ptr', of: parseType(s.slice(1)) };
  if (s.startsWith('[]')) return { k: 'slice', of: parseType(s.slice(2)) };
  if (s.startsWith('{}')) return { k: 'map', of: parseType(s.slice(2)) };
  if (s === '@resources') return { k: 'map', of: { k: 'special', s: '@quantity' }, resourceList: true };
  if (s.startsWith('@')) return { k: 'special', s };
  return { k: 'struct', id: s };
}

const parsed = new Map<KubernetesVersion, TypedRelease>();

export function typedRelease(release: KubernetesVersion): TypedRelease {
  let r = parsed.get(release);
  if (r) return r;
  const file = typedDataFile(release);
  const cache = new Map<string, TypeRef>();
  const ref = (s: string): TypeRef => {
    let t = cache.get(s);
    if (!t) cache.set(s, (t = parseType(s)));
    return t;
  };
  const structs = new Map<string, Field[]>();
  for (const [id, fields] of Object.entries(file.types))
    structs.set(
      id,
      (fields ?? []).map(([name, type, flags]) => ({ name, type: ref(type), omitempty: flags.includes('o'), omitzero: flags.includes('z') })),
    );
  const kindDefaults = new Map<string, Map<string, Table>>();
  for (const [kind, byType] of Object.entries(file.kindDefaults ?? {})) kindDefaults.set(kind, new Map(Object.entries(byType)));
  const fieldIndex = new Map([...structs].map(([id, fields]) => [id, new Map(fields.map((f) => [f.name, f]))]));
  r = { kinds: new Map(Object.entries(file.kinds)), structs, fieldIndex, defaults: new Map(Object.entries(file.defaults ?? {})), kindDefaults };
  parsed.set(release, r);
  return r;
}
