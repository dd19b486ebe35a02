/**
 * The workspace's home in the browser: one IndexedDB database with one object store (room for
 * workspaces far beyond localStorage's 5 MB). A write starts its transaction at once when the
 * database is open, so a write started on pagehide is committed.
 */
import type { WorkspaceBackend } from './persist';

const DB_NAME = 'admission-workbench';
const STORE = 'kv';
/** The workspace's key, the test inputs' (src/store/test-inputs.ts) and the CEL scratchpad's (src/store/scratchpad.ts). */
export const WORKSPACE_KEY = 'workspace';
export const TEST_INPUTS_KEY = 'test-inputs';
export const SCRATCHPAD_KEY = 'scratchpad';

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });

/** The backend of one key (the workspace by default), or undefined where IndexedDB cannot be opened (then the caller uses localStorage). */
export async function openIndexedDbBackend(idb: IDBFactory = indexedDB, key: string = WORKSPACE_KEY): Promise<WorkspaceBackend | undefined> {
  let db: IDBDatabase;
  try {
    db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = idb.open(DB_NAME, 1);
      open.onupgradeneeded = () => open.result.createObjectStore(STORE);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('IndexedDB cannot be opened'));
      // Another tab holds an older version open: use localStorage rather than wait.
      open.onblocked = () => reject(new Error('IndexedDB is blocked by another tab'));
    });
  } catch {
    return undefined;
  }
  return {
    read: async () => {
      const v: unknown = await request(db.transaction(STORE, 'readonly').objectStore(STORE).get(key));
      return typeof v === 'string' ? v : undefined;
    },
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        const tx = db.transaction(STORE, 'readwrite');
        tx.objectStore(STORE).put(text, key);
        tx.oncomplete = () => resolve();
        tx.onabort = tx.onerror = () => reject(tx.error ?? new DOMException('The write was aborted', 'AbortError'));
        tx.commit?.();
      }),
  };
}
