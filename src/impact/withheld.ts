/**
 * The snapshot's objects the chains do not see yet (created in the second of the log's first
 * line or after it), each released at its creation + 1 s. Kept in release order, so a line takes
 * what is due without a pass over the rest: a pass over every withheld object at each release was
 * quadratic in a long log (7.7 s of the reading thread's CPU on 200,000 realistic events, whose
 * snapshot holds ~9,500 ConfigMaps the log creates). What is due comes out in the order it was
 * withheld, as the pass over a Map gave it (the order the chains list params in).
 */
interface Held {
  key: string;
  object: unknown;
  release: number;
  seq: number;
}

export interface Withheld {
  readonly size: number;
  has(key: string): boolean;
  /** Stops withholding `key` (the log wrote it). */
  delete(key: string): boolean;
  /** Withholds `object` under `key` (not withheld now) until `release` (ms). */
  hold(key: string, object: unknown, release: number): void;
  /** The objects due at `t` (release ≤ t), no longer withheld, in the order they were withheld. */
  due(t: number): [key: string, object: unknown][];
}

export function withheldObjects(): Withheld {
  const held = new Map<string, Held>();
  /** By release, then by seq, from `next` on; entries since deleted are skipped when reached. */
  let order: Held[] = [];
  let next = 0;
  /** Held since `order` was sorted. */
  let fresh: Held[] = [];
  let seq = 0;
  return {
    get size() {
      return held.size;
    },
    has: (key) => held.has(key),
    delete: (key) => held.delete(key),
    hold(key, object, release) {
      const h = { key, object, release, seq: seq++ };
      held.set(key, h);
      fresh.push(h);
    },
    due(t) {
      if (fresh.length) {
        order = [...order.slice(next), ...fresh].sort((a, b) => a.release - b.release || a.seq - b.seq);
        next = 0;
        fresh = [];
      }
      const out: Held[] = [];
      while (next < order.length && order[next]!.release <= t) {
        const h = order[next++]!;
        if (held.get(h.key) !== h) continue;
        held.delete(h.key);
        out.push(h);
      }
      return out.sort((a, b) => a.seq - b.seq).map((h) => [h.key, h.object]);
    },
  };
}
