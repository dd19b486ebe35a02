/**
 * A list as another with one stretch replaced, and lists that remember it. The impact replay
 * makes a new chain each time the log writes a param: thousands of objects, one of them changed.
 * Where such a list is made, the change is noted (`noteSplice`); code that compares the new list
 * with an older one (a prepared chain, a param index, a shard's copy) asks `spliceBetween` and
 * looks at the stretch alone, instead of a pass over both lists per change, which made a long
 * log's replay quadratic.
 */

/** An array as a change to another: its first `keep` and last `tail` elements are the other's, `middle` between them. */
export interface Splice {
  keep: number;
  tail: number;
  middle: unknown[];
}

type Change = Omit<Splice, 'middle'>;

/**
 * Each noted list's ancestors, nearest first, each with what the list keeps of it (a list's
 * change composed with its parent's ancestors'). Weakly both ways: a list keeps none of those it
 * was made from alive (a log makes thousands), and an ancestor is found even when the lists
 * between them are gone (a shard that had no request between two chain changes).
 */
const noted = new WeakMap<readonly unknown[], (Change & { from: WeakRef<readonly unknown[]> })[]>();

/** How many ancestors a list remembers. */
const ANCESTORS = 8;

/** Notes that `to` is `from` with all but its first `keep` and last `tail` elements replaced. */
export function noteSplice(to: readonly unknown[], from: readonly unknown[], keep: number, tail: number): void {
  if (to === from) return;
  // what `to` keeps of an ancestor of `from`: the start and end both kept
  const older = (noted.get(from) ?? []).slice(0, ANCESTORS - 1).map((a) => ({ from: a.from, keep: Math.min(keep, a.keep), tail: Math.min(tail, a.tail) }));
  noted.set(to, [{ from: new WeakRef(from), keep, tail }, ...older]);
}

/**
 * The first and last elements `to` keeps of `from`, as the noted changes between them say (not
 * always the most there are); undefined when `from` is not among the ancestors `to` remembers.
 */
export function spliceBetween(from: readonly unknown[], to: readonly unknown[]): Change | undefined {
  if (from === to) return { keep: to.length, tail: 0 };
  for (const a of noted.get(to) ?? []) {
    if (a.from.deref() !== from) continue;
    const keep = Math.min(a.keep, from.length, to.length);
    return { keep, tail: Math.min(a.tail, from.length - keep, to.length - keep) };
  }
  return undefined;
}

/** `to` as a change to `from`: the noted change when there is one, else their common start and end. */
export function splice(from: readonly unknown[], to: readonly unknown[]): Splice {
  const known = spliceBetween(from, to);
  if (known) return { ...known, middle: to.slice(known.keep, to.length - known.tail) };
  const most = Math.min(from.length, to.length);
  let keep = 0;
  while (keep < most && from[keep] === to[keep]) keep++;
  let tail = 0;
  while (tail < most - keep && from[from.length - 1 - tail] === to[to.length - 1 - tail]) tail++;
  return { keep, tail, middle: to.slice(keep, to.length - tail) };
}

/** The array `s` makes of `from` (noted as such). */
export function unsplice(from: readonly unknown[], s: Splice): unknown[] {
  const to = from.slice(0, s.keep).concat(s.middle, from.slice(from.length - s.tail));
  noteSplice(to, from, s.keep, s.tail);
  return to;
}
