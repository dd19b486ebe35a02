/**
 * The cluster a differential request of a rule with `context` runs in (context.ts): the ConfigMap
 * the policy takes as its param (sometimes missing, sometimes without data) and the labels and
 * annotations of the request's Namespace. The keys are those the rule reads; the values come from
 * the folder's kyverno-test values, the seed objects' own texts (and their registries as
 * wildcards), and words an operator reads otherwise (empty, `*`, a range, a JSON list).
 * Seeded, so a disagreement can be replayed. Both Kyverno and the Workbench get the same cluster.
 */
import type { Obj } from '../../base/json';
import { seededRandom } from '../../base/random';

type Rec = Record<string, unknown>;

export interface World {
  /** The ConfigMap of the policy's paramRef (absent: it is missing). */
  configMap?: Obj;
  namespaceLabels: Record<string, string>;
  namespaceAnnotations: Record<string, string>;
}

/** The keys of `prefix` the text reads: `prefix.key`, `prefix."key"`. */
function keysRead(text: string, prefix: string): string[] {
  const re = new RegExp(`${prefix.replace(/\./g, '\\.')}\\.(?:\\\\"([^"\\\\]+)\\\\"|"([^"]+)"|([A-Za-z0-9_-]+))`, 'g');
  return [...new Set([...text.matchAll(re)].map((m) => m[1] ?? m[2] ?? m[3]))];
}

function strings(x: unknown, out: Set<string>): Set<string> {
  if (typeof x === 'string') out.add(x);
  else if (Array.isArray(x)) for (const v of x) strings(v, out);
  else if (x && typeof x === 'object') for (const v of Object.values(x)) strings(v, out);
  return out;
}

/** The clusters for a rule's requests (undefined: the rule has no context; its requests are decided as before). */
export function worldsOf(rule: Rec, produced: readonly Obj[], seeds: readonly Obj[], values: Record<string, unknown> = {}, count = 16): World[] | undefined {
  if (!Array.isArray(rule.context) || rule.context.length === 0) return undefined;
  const text = JSON.stringify(rule);
  const entries = rule.context as Rec[];
  const ref = produced.map((o) => (o.spec as Rec | undefined)?.paramRef as Rec | undefined).find((r) => r);
  const cmEntry = entries.find((e) => e.configMap !== undefined);
  const dataKeys = cmEntry ? keysRead(text, `${String(cmEntry.name)}.data`) : [];
  const nsQueries = entries.map((e) => String((e.apiCall as Rec | undefined)?.jmesPath ?? '')).join(' ');
  // a query of the whole labels map (`metadata.labels | merge(…)`): labels of the objects' own keys and others
  const wholeLabels = /metadata\.labels(?![.\w])/.test(nsQueries);
  const seedLabels = seeds.flatMap((o) => Object.keys(((o.metadata as Rec | undefined)?.labels as Rec | undefined) ?? {}));
  const labelKeys = [...new Set([...keysRead(nsQueries, 'metadata.labels'), ...(wholeLabels ? ['team', 'null', ...seedLabels] : [])])];
  const annotationKeys = keysRead(nsQueries, 'metadata.annotations');
  const seen = strings(values, new Set(['', '*', 'true', 'false', 'default', 'x', '1-5', '["default", "test"]']));
  for (const s of [...strings(seeds, new Set())].slice(0, 40)) {
    seen.add(s);
    if (s.includes('/')) seen.add(`${s.split('/')[0]}/*`);
  }
  const pool = [...seen].filter((s) => s.length < 200);
  const random = seededRandom(text.length + count);
  const pick = () => pool[Math.floor(random() * pool.length)];
  const some = (keys: string[], i: number): Record<string, string> =>
    Object.fromEntries(keys.flatMap((k) => (i % 4 === 3 || random() < 0.2 ? [] : [[k, i === 0 ? String(values[k] ?? pool[0]) : pick()]])));
  const out: World[] = [];
  for (let i = 0; i < count; i++) {
    const world: World = { namespaceLabels: some(labelKeys, i), namespaceAnnotations: some(annotationKeys, i) };
    // one cluster in eight without the ConfigMap; one without data
    if (ref && i % 8 !== 5) {
      const data = i % 8 === 6 ? undefined : some(dataKeys, i);
      world.configMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: String(ref.name), namespace: String(ref.namespace) },
        ...(data && Object.keys(data).length ? { data } : {}),
      };
    }
    out.push(world);
  }
  return out;
}

/** The request's Namespace in a world, as the apiserver holds it (its name label set; empty maps left out). */
export function namespaceIn(world: World, name: string): Obj {
  const labels = { ...world.namespaceLabels, 'kubernetes.io/metadata.name': name };
  const annotations = world.namespaceAnnotations;
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels, ...(Object.keys(annotations).length ? { annotations } : {}) },
  };
}

/** The Namespace labels a rule's match asks (`namespaceSelector`: matchLabels, `In` and `Exists` expressions). */
function selectorLabels(rule: Rec): Record<string, string> {
  const match = (rule.match ?? {}) as Rec;
  const blocks = [match, ...((match.any as Rec[] | undefined) ?? []), ...((match.all as Rec[] | undefined) ?? [])];
  const out: Record<string, string> = {};
  for (const b of blocks) {
    const s = ((b.resources as Rec | undefined)?.namespaceSelector ?? {}) as Rec;
    Object.assign(out, (s.matchLabels as Record<string, string> | undefined) ?? {});
    for (const e of (s.matchExpressions as Rec[] | undefined) ?? [])
      if (e.operator === 'In' || e.operator === 'Exists') out[String(e.key)] = String((e.values as unknown[] | undefined)?.[0] ?? 'x');
  }
  return out;
}

/**
 * The worlds with the Namespace labels the rule's namespaceSelector asks, in three of four (the
 * fourth: other values), so that requests reach the rule and miss it; `worlds` undefined: `count`
 * worlds without other labels. Unchanged (undefined too) for a rule without a namespaceSelector.
 */
export function withSelectorLabels(rule: Rec, worlds: World[] | undefined, count = 16): World[] | undefined {
  const wanted = selectorLabels(rule);
  if (!Object.keys(wanted).length) return worlds;
  const other = Object.fromEntries(Object.keys(wanted).map((k) => [k, 'other']));
  const base = worlds ?? Array.from({ length: count }, (): World => ({ namespaceLabels: {}, namespaceAnnotations: {} }));
  return base.map((w, i) => ({ ...w, namespaceLabels: { ...w.namespaceLabels, ...(i % 4 === 3 ? other : wanted) } }));
}
