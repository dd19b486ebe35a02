/** Saving stores to the browser's storage: one debounced autosave and one tolerant reader for every store. */

interface Subscribable<S> {
  getState(): S;
  subscribe(listener: (state: S, prev: S) => void): () => void;
}

/**
 * Call `write` after every change that `changed` reports, debounced. A failing write (a full
 * storage) is reported once through `onError` until a write succeeds again. Returns a
 * function that stops autosaving and flushes a pending write.
 */
export function autosave<S>(
  store: Subscribable<S>,
  write: (state: S) => void,
  changed: (state: S, prev: S) => boolean,
  options: { delayMs?: number; onError?: (e: Error) => void } = {},
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failed = false;
  const save = () => {
    timer = undefined;
    try {
      write(store.getState());
      failed = false;
    } catch (e) {
      if (!failed) options.onError?.(e as Error);
      failed = true;
    }
  };
  const unsubscribe = store.subscribe((s, prev) => {
    if (!changed(s, prev)) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, options.delayMs ?? 250);
  });
  return () => {
    unsubscribe();
    if (timer) {
      clearTimeout(timer);
      save();
    }
  };
}

/** The JSON value stored under a key; undefined when there is none or it cannot be read. */
export function readJSON(storage: Pick<Storage, 'getItem'>, key: string): unknown {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
