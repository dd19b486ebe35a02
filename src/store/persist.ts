/**
 * Autosave to localStorage and restore on reload. Only the texts are stored:
 * they are what the user wrote, and the objects are parsed from them again.
 */
import { autosave, readJSON } from './autosave';
import { withText, type WorkspaceDoc } from './documents';
import { isKubernetesVersion, type KubernetesVersion } from '../base/releases';
import type { SavedWorkspace, WorkspaceStore } from './workspace';

export const STORAGE_KEY = 'admission-workbench/workspace/v1';

interface Saved {
  version: 1;
  selectedId: string | null;
  docs: { id: string; text: string; origin?: string }[];
  /** The target release (absent in workspaces saved before it existed: 1.36). */
  kubernetesVersion?: KubernetesVersion;
}

/** The saved workspace, or undefined when there is none (first visit) or it cannot be read. */
export function loadSaved(storage: Pick<Storage, 'getItem'>): SavedWorkspace | undefined {
  const saved = readJSON(storage, STORAGE_KEY) as Saved | undefined;
  if (!saved || saved.version !== 1 || !Array.isArray(saved.docs)) return undefined;
  try {
    const docs: WorkspaceDoc[] = saved.docs.map((d) => withText({ id: d.id, text: '', object: undefined, origin: d.origin }, d.text));
    const selectedId = docs.some((d) => d.id === saved.selectedId) ? saved.selectedId : (docs[0]?.id ?? null);
    return { docs, selectedId, ...(isKubernetesVersion(saved.kubernetesVersion) ? { kubernetesVersion: saved.kubernetesVersion } : {}) };
  } catch {
    return undefined;
  }
}

export function serialize(s: SavedWorkspace): string {
  const saved: Saved = {
    version: 1,
    selectedId: s.selectedId,
    docs: s.docs.map((d) => ({ id: d.id, text: d.text, origin: d.origin })),
    ...(s.kubernetesVersion ? { kubernetesVersion: s.kubernetesVersion } : {}),
  };
  return JSON.stringify(saved);
}

/** Save after every change (debounced). Returns a function that stops autosaving and flushes. */
export function startAutosave(store: WorkspaceStore, storage: Pick<Storage, 'setItem'>, delayMs = 250): () => void {
  return autosave(
    store,
    (s) => storage.setItem(STORAGE_KEY, serialize(s)),
    (s, prev) => s.docs !== prev.docs || s.selectedId !== prev.selectedId || s.kubernetesVersion !== prev.kubernetesVersion,
    {
      delayMs,
      onError: (e) =>
        store.getState().notify({ level: 'error', text: `Autosave failed (${e.name}): the workspace is too large for browser storage. Export it to keep your work.` }),
    },
  );
}
