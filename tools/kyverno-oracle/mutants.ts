/**
 * Mutants of a test resource for the differential: each changes one thing — a field removed, a
 * value changed (strings, numbers across 0 and their neighbours, booleans flipped), a list
 * emptied or grown (its first item repeated), an image retagged (`:latest`, no tag, a digest,
 * another registry). Deterministic; at most `limit` per resource, spread over the object.
 */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Every path to a value below the root (object keys and list indices). */
function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push([...at, i]), paths(x, [...at, i], out)));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push([...at, k]), paths(x, [...at, k], out);
  return out;
}

function edit(root: Json, path: (string | number)[], f: (parent: Json[] | Record<string, Json>, key: string | number) => void): Json {
  const copy = clone(root);
  let p = copy as Json;
  for (const k of path.slice(0, -1)) p = (p as Record<string, Json>)[k as string] as Json;
  f(p as Record<string, Json>, path[path.length - 1]!);
  return copy;
}

const IMAGE_TAGS = (image: string): string[] => {
  const base = image.replace(/@sha256:[0-9a-f]+$/, '').replace(/:[^:/]+$/, '');
  return [`${base}:latest`, base, `${base}@sha256:${'0'.repeat(64)}`, `registry.example.com/${base.split('/').pop()}:1.0`];
};

/** Mutants of `object` (its identity fields apiVersion, kind, metadata.name kept). */
export function mutants(object: unknown, limit = 40): unknown[] {
  const root = object as Json;
  const out: Json[] = [];
  const keep = (p: (string | number)[]) =>
    p[0] === 'apiVersion' || p[0] === 'kind' || (p[0] === 'metadata' && (p[1] === 'name' || p[1] === 'namespace' || p.length === 1));
  for (const p of paths(root)) {
    if (keep(p)) continue;
    let parent: Json = root;
    for (const k of p.slice(0, -1)) parent = (parent as Record<string, Json>)[k as string] as Json;
    const key = p[p.length - 1]!;
    const value = (parent as Record<string, Json>)[key as string] as Json;
    // removed
    out.push(edit(root, p, (o, k) => (Array.isArray(o) ? o.splice(k as number, 1) : delete (o as Record<string, Json>)[k as string])));
    if (typeof value === 'string') {
      if (key === 'image') for (const t of IMAGE_TAGS(value)) out.push(edit(root, p, (o, k) => ((o as Record<string, Json>)[k as string] = t)));
      else out.push(edit(root, p, (o, k) => ((o as Record<string, Json>)[k as string] = value === '' ? 'x' : '')));
    } else if (typeof value === 'number') {
      for (const n of [value + 1, value - 1, 0]) if (n !== value) out.push(edit(root, p, (o, k) => ((o as Record<string, Json>)[k as string] = n)));
    } else if (typeof value === 'boolean') {
      out.push(edit(root, p, (o, k) => ((o as Record<string, Json>)[k as string] = !value)));
    } else if (Array.isArray(value)) {
      out.push(edit(root, p, (o, k) => ((o as Record<string, Json>)[k as string] = [])));
      if (value.length) out.push(edit(root, p, (o, k) => ((o as Record<string, Json>)[k as string] = [...value, clone(value[0]!)])));
    }
  }
  if (out.length <= limit) return out;
  // spread the picks over the whole object rather than its first fields
  const step = out.length / limit;
  return Array.from({ length: limit }, (_, i) => out[Math.floor(i * step)]);
}

type Labels = Record<string, string>;
interface Requirement {
  key: string;
  operator: string;
  values: string[];
}

/** A selector's requirements (matchLabels as `In` of one value), as labels.Selector holds them. */
function requirements(selector: unknown): Requirement[] {
  if (selector === null || typeof selector !== 'object') return [];
  const s = selector as { matchLabels?: Labels; matchExpressions?: Requirement[] };
  return [
    ...Object.entries(s.matchLabels ?? {}).map(([key, v]) => ({ key, operator: 'In', values: [v] })),
    ...(s.matchExpressions ?? []).map((e) => ({ key: e.key, operator: e.operator, values: e.values ?? [] })),
  ];
}

/** `labels` changed so that `r` holds (`holds`) or does not: the key set to a listed value, another value, or removed. */
function apply(labels: Labels, r: Requirement, holds: boolean): Labels {
  const out = { ...labels };
  const listed = r.values[0] ?? 'x';
  const set = (v: string | undefined) => (v === undefined ? delete out[r.key] : (out[r.key] = v));
  const wanted: Record<string, [string | undefined, string | undefined]> = {
    In: [listed, `${listed}-other`],
    NotIn: [undefined, listed],
    Exists: ['x', undefined],
    DoesNotExist: [undefined, 'x'],
  };
  const [yes, no] = wanted[r.operator] ?? [undefined, undefined];
  set(holds ? yes : no);
  return out;
}

/**
 * Changes of labels around a label selector: the first makes every requirement hold, each next one
 * makes all hold but one (so a request hits and misses the selector). None when the selector has no
 * requirement.
 */
export function selectorChanges(selector: unknown): { holds: boolean; change: (labels: Labels) => Labels }[] {
  const rs = requirements(selector);
  if (!rs.length) return [];
  const all = (labels: Labels) => rs.reduce((l, r) => apply(l, r, true), labels);
  return [{ holds: true, change: all }, ...rs.map((r) => ({ holds: false, change: (labels: Labels) => apply(all(labels), r, false) }))];
}

/** Label sets around a label selector for the differential: `labels` as given, then `labels` through each of selectorChanges, deduplicated. */
export function selectorProbes(selector: unknown, labels: Labels): Labels[] {
  const sets = [labels, ...selectorChanges(selector).map((c) => c.change(labels))];
  const seen = new Set<string>();
  return sets.filter((s) => {
    const k = JSON.stringify(Object.entries(s).sort());
    return !seen.has(k) && (seen.add(k), true);
  });
}

type Obj = Record<string, Json>;
/** How each Pod controller holds its pod template (the kinds Kyverno's autogen knows, and ReplicationController, which its CEL autogen leaves alone). */
const CONTROLLERS: [string, string, (name: string, labels: Obj, template: Obj) => Obj][] = [
  ['apps/v1', 'Deployment', (_, l, template) => ({ selector: { matchLabels: l }, template })],
  ['apps/v1', 'DaemonSet', (_, l, template) => ({ selector: { matchLabels: l }, template })],
  ['apps/v1', 'StatefulSet', (n, l, template) => ({ serviceName: n, selector: { matchLabels: l }, template })],
  ['apps/v1', 'ReplicaSet', (_, l, template) => ({ selector: { matchLabels: l }, template })],
  ['batch/v1', 'Job', (_, _l, template) => ({ template })],
  ['batch/v1', 'CronJob', (_, _l, template) => ({ schedule: '0 1 * * *', jobTemplate: { spec: { template } } })],
  ['v1', 'ReplicationController', (_, l, template) => ({ selector: l, template })],
];

/** A Pod put in each Pod controller's template (its labels and annotations on the template; none: the Pod's own). */
export function podControllers(pod: unknown): unknown[] {
  const p = pod as Obj;
  if (p.kind !== 'Pod' || p.apiVersion !== 'v1') return [];
  const meta = (p.metadata ?? {}) as Obj;
  const name = String(meta.name ?? 'pod');
  const labels = (meta.labels as Obj | undefined) ?? { app: name };
  const template: Obj = {
    metadata: { labels, ...(meta.annotations ? { annotations: clone(meta.annotations) } : {}) },
    ...(p.spec !== undefined ? { spec: clone(p.spec) } : {}),
  };
  return CONTROLLERS.map(([apiVersion, kind, spec]) => ({
    apiVersion,
    kind,
    metadata: { name, ...(meta.namespace ? { namespace: meta.namespace } : {}), labels: clone(labels) },
    spec: spec(name, labels, clone(template)),
  }));
}
