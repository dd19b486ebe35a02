/**
 * The param candidates of a document list, by paramKind and namespace, as resolveParams reads
 * them per request. Built once per list (lists are not changed once passed; a longer one is
 * indexed again). A list that differs from one indexed a moment ago by a few objects in one
 * place — the impact replay's chains after the log writes a param: thousands of params, one
 * changed — gets that index with the objects that changed, so each chain change costs what
 * changed, not a pass over every param. Document order is kept exactly (a name's first match, a
 * selector's sort ties), so a derived index is the one a full build gives (param-index.test.ts).
 */
import { isObject, nameOf, namespaceOf } from '../base/json';
import { splice } from '../base/splice';

/**
 * The documents of one paramKind in document order, with their positions in the list: the first
 * `length` of the arrays. A run that gets documents after its last one shares its arrays (pushed
 * to) with the run before, which keeps its length: the replay's params come at the end of its
 * lists (a ConfigMap per namespace, thousands in the kind's run), and a copy of the run for each
 * made a long replay quadratic in its params.
 */
interface Run {
  docs: unknown[];
  positions: number[];
  length: number;
  /** Names looked up: the index in docs of the first of that name (-1: none), carried to a respliced run. */
  named?: Map<string, number>;
  /** docs cut to the length, once the arrays are longer */
  view?: unknown[];
}

const newRun = (): Run => ({ docs: [], positions: [], length: 0 });

function push(run: Run, d: unknown, position: number): void {
  run.docs.push(d);
  run.positions.push(position);
  run.length++;
}

/** A run's documents (a copy once a later run has pushed to its arrays). */
const docsOf = (run: Run): readonly unknown[] => (run.docs.length === run.length ? run.docs : (run.view ??= run.docs.slice(0, run.length)));

/**
 * Namespace → its documents: a Map shared by the indexes of a list and of the lists changed from
 * it, and the namespaces changed since it was made (`null`: none left there). A change copies the
 * changes only; past about √(namespaces) of them they are folded into a new shared Map. So a
 * change costs far fewer than the thousands of namespaces a list may hold (a copy of them every
 * few changes was a twentieth of a long replay), and a look-up reads two Maps at most.
 */
interface Buckets {
  base: ReadonlyMap<string, Run>;
  changed: ReadonlyMap<string, Run | null>;
}

/** One paramKind's candidates (what resolveParams reads). */
export interface ParamCandidates {
  all: readonly unknown[];
  /** Its documents in a namespace, in document order (undefined: none). */
  inNamespace(namespace: string): readonly unknown[] | undefined;
  /** One of them has a namespace (the kind's scope is inferred from it). */
  namespaced: boolean;
  /**
   * The first of its documents named `name`, in a namespace (undefined: all of them). Kept per
   * name and carried over a change, which is looked through for the name: a Deployment's paramRef
   * by name in a namespace of thousands of ConfigMaps was a pass over them for every request.
   */
  first(name: string, namespace?: string): unknown;
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
/** Changed namespaces kept beside a shared Map before they are folded into a new one (at least; else √ of its size). */
const MIN_CHANGED_NAMESPACES = 8;

const keyOf = (d: unknown): string | undefined =>
  isObject(d) && typeof d.apiVersion === 'string' && typeof d.kind === 'string' ? `${d.apiVersion}\u0000${d.kind}` : undefined;

function lookup(b: Buckets, namespace: string): Run | undefined {
  const r = b.changed.get(namespace);
  return r === undefined ? b.base.get(namespace) : (r ?? undefined);
}

function kindIndex(run: Run, buckets: Buckets, namespacedCount: number): KindIndex {
  return {
    run,
    buckets,
    namespacedCount,
    get all() {
      return docsOf(run);
    },
    namespaced: namespacedCount > 0,
    inNamespace: (ns) => {
      const r = lookup(buckets, ns);
      return r && docsOf(r);
    },
    first: (name, ns) => {
      const r = ns === undefined ? run : lookup(buckets, ns);
      return r?.docs[firstNamed(r, name)];
    },
  };
}

/** The index of the first document of `name` in a run (-1: none), kept on the run. */
function firstNamed(run: Run, name: string): number {
  let i = run.named?.get(name);
  if (i === undefined) {
    i = indexOfName(run.docs, name, 0, run.length);
    (run.named ??= new Map()).set(name, i);
  }
  return i;
}

function indexOfName(docs: readonly unknown[], name: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (nameOf(docs[i]) === name) return i;
  return -1;
}

/**
 * The names `old` had looked up, for the run made of old.docs[0, start) + added + old.docs[end, …):
 * a first before the change stays, one after it moves unless `added` has that name, one that was
 * removed is left to be looked up again.
 */
function carried(named: ReadonlyMap<string, number>, start: number, end: number, added: readonly unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, i] of named) {
    if (i >= 0 && i < start) out.set(name, i);
    else if (i === -1 || i >= end) {
      const j = indexOfName(added, name, 0, added.length);
      out.set(name, j >= 0 ? start + j : i === -1 ? -1 : i - (end - start) + added.length);
    }
  }
  return out;
}

function build(documents: readonly unknown[]): ListIndex {
  const runs = new Map<string, { run: Run; byNs: Map<string, Run>; namespaced: number }>();
  documents.forEach((d, i) => {
    const key = keyOf(d);
    if (key === undefined) return;
    let k = runs.get(key);
    if (!k) runs.set(key, (k = { run: newRun(), byNs: new Map(), namespaced: 0 }));
    const ns = namespaceOf(d);
    let r = k.byNs.get(ns);
    if (!r) k.byNs.set(ns, (r = newRun()));
    push(k.run, d, i);
    push(r, d, i);
    if (ns !== '') k.namespaced++;
  });
  const kinds = new Map<string, KindIndex>();
  for (const [key, k] of runs) kinds.set(key, kindIndex(k.run, { base: k.byNs, changed: new Map() }, k.namespaced));
  return { length: documents.length, kinds };
}

/**
 * A run with the positions [from, to) of the old list replaced by `added` (their positions in the
 * new list); positions at or past `to` move by `shift`.
 */
function respliced(run: Run | undefined, from: number, to: number, shift: number, added: Run): Run {
  const old = run ?? newRun();
  const start = firstAtOrAfter(old.positions, from, 0, old.length);
  const end = firstAtOrAfter(old.positions, to, start, old.length);
  const named = old.named && carried(old.named, start, end, added.docs);
  // documents after the run's last, on arrays no later run has pushed to: pushed there
  if (start === old.length && old.docs.length === old.length) {
    for (let i = 0; i < added.length; i++) {
      old.docs.push(added.docs[i]);
      old.positions.push(added.positions[i]!);
    }
    return { docs: old.docs, positions: old.positions, length: old.length + added.length, ...(named && { named }) };
  }
  // slices, not a pass: a run may hold thousands of params, of which one changed
  const after = old.positions.slice(end, old.length);
  const docs = old.docs.slice(0, start).concat(added.docs, old.docs.slice(end, old.length));
  return {
    docs,
    positions: old.positions.slice(0, start).concat(added.positions, shift ? after.map((p) => p + shift) : after),
    length: docs.length,
    ...(named && { named }),
  };
}

/** The first index of sorted `positions` in [lo, hi) whose position is at least `at` (hi when none). */
function firstAtOrAfter(positions: readonly number[], at: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positions[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The changes made part of a new shared Map. */
function folded(base: ReadonlyMap<string, Run>, changed: ReadonlyMap<string, Run | null>): Buckets {
  const next = new Map(base);
  for (const [ns, r] of changed) {
    if (r) next.set(ns, r);
    else next.delete(ns);
  }
  return { base: next, changed: new Map() };
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
    if (!t) touched.set(key, (t = { added: newRun(), addedByNs: new Map(), namespaces: new Set(), namespacedDelta: 0 }));
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
    push(t.added, d, i);
    let r = t.addedByNs.get(ns);
    if (!r) t.addedByNs.set(ns, (r = newRun()));
    push(r, d, i);
  }
  const kinds = new Map(index.kinds);
  for (const [key, t] of touched) {
    const old = kinds.get(key);
    const run = respliced(old?.run, keep, to, shift, t.added);
    if (!run.length) {
      kinds.delete(key);
      continue;
    }
    const changed = new Map(old?.buckets.changed);
    for (const ns of t.namespaces) {
      const r = respliced(old && lookup(old.buckets, ns), keep, to, shift, t.addedByNs.get(ns) ?? newRun());
      changed.set(ns, r.length ? r : null);
    }
    const base = old?.buckets.base ?? new Map<string, Run>();
    const buckets: Buckets = changed.size > Math.max(MIN_CHANGED_NAMESPACES, Math.sqrt(base.size)) ? folded(base, changed) : { base, changed };
    kinds.set(key, kindIndex(run, buckets, (old?.namespacedCount ?? 0) + t.namespacedDelta));
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

const NONE: ParamCandidates = { all: [], inNamespace: () => undefined, namespaced: false, first: () => undefined };
