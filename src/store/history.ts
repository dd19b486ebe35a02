/**
 * Undo/redo over immutable workspace snapshots. Typing in the YAML pane
 * coalesces: consecutive edits with the same key within a short window make
 * one undo step.
 */
export interface History<T> {
  past: T[];
  future: T[];
  /** Key and time of the last recorded edit, for coalescing. */
  lastKey?: string;
  lastAt?: number;
}

export const HISTORY_LIMIT = 200;
const COALESCE_MS = 1000;

export const emptyHistory = <T>(): History<T> => ({ past: [], future: [] });

/** Record `before` as an undo step, unless this edit continues the previous one. */
export function record<T>(h: History<T>, before: T, key?: string, now = Date.now()): History<T> {
  if (key && h.lastKey === key && h.lastAt !== undefined && now - h.lastAt < COALESCE_MS) {
    return { ...h, future: [], lastAt: now };
  }
  return { past: [...h.past.slice(-(HISTORY_LIMIT - 1)), before], future: [], lastKey: key, lastAt: now };
}

export function undo<T>(h: History<T>, current: T): { history: History<T>; state: T } | undefined {
  const prev = h.past[h.past.length - 1];
  if (prev === undefined) return undefined;
  return { history: { past: h.past.slice(0, -1), future: [current, ...h.future] }, state: prev };
}

export function redo<T>(h: History<T>, current: T): { history: History<T>; state: T } | undefined {
  const [next, ...rest] = h.future;
  if (next === undefined) return undefined;
  return { history: { past: [...h.past, current], future: rest }, state: next };
}
