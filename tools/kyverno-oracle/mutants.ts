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
