/**
 * The param candidates of a document list, by paramKind and namespace, as resolveParams reads
 * them per request. Built once per list (lists are not changed once passed; a longer one is
 * indexed again). A list that differs from one indexed a moment ago by a few objects in one
 * place — the impact replay's chains after the log writes a param: thousands of params, one
 * changed — gets that index with the objects that changed, so each chain change costs what
 * changed, not a pass over every param. Document order is kept exactly (a name's first match, a
 * selector's sort ties), so a derived index is the one a full build gives (param-index.test.ts).
 */
import { isObject, namespaceOf } from '../base/json';
import { splice } from '../base/splice';

/** The documents of one paramKind in document order, with their positions in the list. */
interface Run {
  docs: unknown[];
  positions: number[];
}

/** Namespace → its documents: a Map, or the namespaces one change touched over the index before (`null`: none left). */
interface Buckets {
  own: Map<string, Run | null>;
  parent?: Buckets;
  depth: number;
}

/** One paramKind's candidates (what resolveParams reads). */
export interface ParamCandidates {
  all: readonly unknown[];
  /** Its documents in a namespace, in document order (undefined: none). */
  inNamespace(namespace: string): readonly unknown[] | undefined;
  /** One of them has a namespace (the kind's scope is inferred from it). */
  namespaced: boolean;
}

interface KindIndex extends ParamCandidates {
  run: Run;
  buckets: Buckets;
  namespacedCount: number;
}

interface ListIndex {
  length: number;
  kinds: Map<string, KindIndex>;
}

const indexes = new WeakMap<readonly unknown[], ListIndex>();
/** The lists indexed last: a new list is looked for among them as a small change to one. */
const recent: { docs: readonly unknown[]; index: ListIndex }[] = [];
const RECENT = 4;
/** Past this many objects changed in one place a list is indexed from scratch. */
const MAX_CHANGED = 64;
/** Layers of changes over a full Map before it is made one again (a look-up walks them). */
const MAX_DEPTH = 16;

const keyOf = (d: unknown): string | undefined =>
  isObject(d) && typeof d.apiVersion === 'string' && typeof d.kind === 'string' ? `${d.apiVersion}\u0000${d.kind}` : undefined;

function lookup(b: Buckets, namespace: string): Run | undefined {
  for (let x: Buckets | undefined = b; x; x = x.parent) {
    const r = x.own.get(namespace);
    if (r !== undefined) return r ?? undefined;
  }
  return undefined;
}

function kindIndex(run: Run, buckets: Buckets, namespacedCount: number): KindIndex {
  return {
    run,
    buckets,
    namespacedCount,
    all: run.docs,
    namespaced: namespacedCount > 0,
    inNamespace: (ns) => lookup(buckets, ns)?.docs,
  };
}

function build(documents: readonly unknown[]): ListIndex {
  const runs = new Map<string, { run: Run; byNs: Map<string, Run>; namespaced: number }>();
  documents.forEach((d, i) => {
    const key = keyOf(d);
    if (key === undefined) return;
    let k = runs.get(key);
    if (!k) runs.set(key, (k = { run: { docs: [], positions: [] }, byNs: new Map(), namespaced: 0 }));
    const ns = namespaceOf(d);
    let r = k.byNs.get(ns);
    if (!r) k.byNs.set(ns, (r = { docs: [], positions: [] }));
    k.run.docs.push(d);
    k.run.positions.push(i);
    r.docs.push(d);
    r.positions.push(i);
    if (ns !== '') k.namespaced++;
  });
  const kinds = new Map<string, KindIndex>();
  for (const [key, k] of runs) kinds.set(key, kindIndex(k.run, { own: k.byNs, depth: 0 }, k.namespaced));
  return { length: documents.length, kinds };
}

/**
 * A run with the positions [from, to) of the old list replaced by `added` (their positions in the
 * new list); positions at or past `to` move by `shift`.
 */
function respliced(run: Run | undefined, from: number, to: number, shift: number, added: Run): Run {
  const old = run ?? { docs: [], positions: [] };
  // slices, not a pass: a run may hold thousands of params, of which one changed
  const start = firstAtOrAfter(old.positions, from);
  const end = firstAtOrAfter(old.positions, to, start);
  const after = old.positions.slice(end);
  return {
    docs: old.docs.slice(0, start).concat(added.docs, old.docs.slice(end)),
    positions: old.positions.slice(0, start).concat(added.positions, shift ? after.map((p) => p + shift) : after),
  };
}

/** The first index of sorted `positions` (from `lo` on) whose position is at least `at`. */
function firstAtOrAfter(positions: readonly number[], at: number, lo = 0): number {
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positions[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function flatten(b: Buckets): Buckets {
  const layers: Buckets[] = [];
  for (let x: Buckets | undefined = b; x; x = x.parent) layers.unshift(x);
  const own = new Map<string, Run | null>();
  for (const l of layers)
    for (const [ns, r] of l.own) {
      if (r) own.set(ns, r);
      else own.delete(ns);
    }
  return { own, depth: 0 };
}

/**
 * `next` as `prev` with its positions [keep, prev.length - tail) replaced: every position after
 * the change moves by the lengths' difference, which only runs and buckets that hold a document
 * after it would need: the change must be at the end (tail 0) or keep the length.
 */
function derive(prev: readonly unknown[], index: ListIndex, next: readonly unknown[], keep: number, tail: number): ListIndex {
  const to = prev.length - tail;
  const shift = next.length - prev.length;
  const touched = new Map<string, { added: Run; addedByNs: Map<string, Run>; namespaces: Set<string>; namespacedDelta: number }>();
  const touch = (key: string) => {
    let t = touched.get(key);
    if (!t) touched.set(key, (t = { added: { docs: [], positions: [] }, addedByNs: new Map(), namespaces: new Set(), namespacedDelta: 0 }));
    return t;
  };
  for (let i = keep; i < to; i++) {
    const key = keyOf(prev[i]);
    if (key === undefined) continue;
    const t = touch(key);
    const ns = namespaceOf(prev[i]);
    t.namespaces.add(ns);
    if (ns !== '') t.namespacedDelta--;
  }
  for (let i = keep; i < next.length - tail; i++) {
    const d = next[i];
    const key = keyOf(d);
    if (key === undefined) continue;
    const t = touch(key);
    const ns = namespaceOf(d);
    t.namespaces.add(ns);
    if (ns !== '') t.namespacedDelta++;
    t.added.docs.push(d);
    t.added.positions.push(i);
    let r = t.addedByNs.get(ns);
    if (!r) t.addedByNs.set(ns, (r = { docs: [], positions: [] }));
    r.docs.push(d);
    r.positions.push(i);
  }
  const kinds = new Map(index.kinds);
  for (const [key, t] of touched) {
    const old = kinds.get(key);
    const run = respliced(old?.run, keep, to, shift, t.added);
    if (!run.docs.length) {
      kinds.delete(key);
      continue;
    }
    const own = new Map<string, Run | null>();
    for (const ns of t.namespaces) {
      const r = respliced(old && lookup(old.buckets, ns), keep, to, shift, t.addedByNs.get(ns) ?? { docs: [], positions: [] });
      own.set(ns, r.docs.length ? r : null);
    }
    const layered: Buckets = old ? { own, parent: old.buckets, depth: old.buckets.depth + 1 } : { own, depth: 0 };
    kinds.set(key, kindIndex(run, layered.depth > MAX_DEPTH ? flatten(layered) : layered, (old?.namespacedCount ?? 0) + t.namespacedDelta));
  }
  return { length: next.length, kinds };
}

/** A recently indexed list that `documents` changes in one place only (few objects), and where. */
function nearest(documents: readonly unknown[]): { prev: readonly unknown[]; index: ListIndex; keep: number; tail: number } | undefined {
  let best: { prev: readonly unknown[]; index: ListIndex; keep: number; tail: number; changed: number } | undefined;
  for (const r of recent) {
    const prev = r.docs;
    // a list changed since it was indexed (not done, but then it is no base)
    if (prev === documents || r.index.length !== prev.length) continue;
    // the change noted where the list was made (base/splice.ts), else a pass over both
    const { keep, tail } = splice(prev, documents);
    const changed = prev.length - tail - keep + (documents.length - tail - keep);
    if (changed > MAX_CHANGED || (tail > 0 && prev.length !== documents.length)) continue;
    if (!best || changed < best.changed) best = { prev, index: r.index, keep, tail, changed };
  }
  return best;
}

/** The candidates of one paramKind (apiVersion and kind as strings) in `documents`. */
export function paramCandidates(apiVersion: string, kind: string, documents: readonly unknown[]): ParamCandidates {
  let index = indexes.get(documents);
  if (!index || index.length !== documents.length) {
    const near = nearest(documents);
    index = near ? derive(near.prev, near.index, documents, near.keep, near.tail) : build(documents);
    indexes.set(documents, index);
    recent.unshift({ docs: documents, index });
    recent.length = Math.min(recent.length, RECENT);
  }
  return index.kinds.get(`${apiVersion}\u0000${kind}`) ?? NONE;
}

const NONE: ParamCandidates = { all: [], inNamespace: () => undefined, namespaced: false };
