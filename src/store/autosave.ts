/** Saving stores to the browser's storage: one debounced autosave and one tolerant reader for every store. */

interface Subscribable<S> {
  getState(): S;
  subscribe(listener: (state: S, prev: S) => void): () => void;
}

/**
 * Call `write` after every change that `changed` reports, debounced (a write may be async). A failing write (a full
 * storage) is reported once through `onError` until a write succeeds again. Returns a
 * function that stops autosaving and flushes a pending write.
 */
export function autosave<S>(
  store: Subscribable<S>,
  write: (state: S) => void | Promise<void>,
  changed: (state: S, prev: S) => boolean,
  options: { delayMs?: number; onError?: (e: Error) => void } = {},
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failed = false;
  const fail = (e: unknown) => {
    if (!failed) options.onError?.(e instanceof Error ? e : new Error(String(e)));
    failed = true;
  };
  const save = () => {
    timer = undefined;
    try {
      const written = write(store.getState());
      if (written) written.then(() => void (failed = false), fail);
      else failed = false;
    } catch (e) {
      fail(e);
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
