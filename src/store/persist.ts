/**
 * Autosave and restore on reload: the workspace's texts (and what stood before each imported
 * document) in IndexedDB, with a journal in localStorage so that no edit is lost silently, and
 * the stores of earlier versions migrated. docs/architecture.md ("Undo and autosave").
 */
import { readJSON } from './autosave';
import { hasGeneratedText, withText, type ListSlot, type WorkspaceDoc } from './documents';
import { isListSlot } from '../yaml';
import { isKubernetesVersion, isWorkspaceGate, type KubernetesVersion, type WorkspaceGate } from '../base/releases';
import { DEFAULT_STATIC_ORDER, isStaticOrder, type StaticOrder } from '../k8s/static-manifests';
import { isPlatformId, nearestPlatform, platformOf, type PlatformId } from '../base/platforms';
import { DEFAULT_FIELD_VALIDATION, isFieldValidation, type FieldValidation } from '../k8s/field-validation';
import type { Notice, SavedWorkspace, WorkspaceStore } from './workspace';

/** The localStorage key of the workspace in earlier versions (migrated to IndexedDB on load). */
export const STORAGE_KEY = 'admission-workbench/workspace/v1';
/** The workspace's localStorage key where IndexedDB cannot be opened. */
export const FALLBACK_KEY = 'admission-workbench/workspace/v2';
/** The journal: changes that are not saved yet. */
export const UNSAVED_KEY = 'admission-workbench/workspace/unsaved';

/** Where the workspace's text is kept (IndexedDB in the browser; `storageBackend` where there is none). */
export interface WorkspaceBackend {
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

type Journal = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The version this app writes; every older one is still read. */
export const SAVED_VERSION = 2;

interface Saved {
  version: 1 | typeof SAVED_VERSION;
  selectedId: string | null;
  /** `separator` since version 2; `listItem` optional in version 2. */
  docs: { id: string; text: string; origin?: string; separator?: string; listItem?: ListSlot; static?: boolean }[];
  /** The target release (absent in workspaces saved before it existed: 1.36). */
  kubernetesVersion?: KubernetesVersion;
  /** The target platform (absent: upstream Kubernetes). */
  platform?: string;
  /** Every document is a static manifest (absent: no). */
  staticManifests?: boolean;
  /** The field validation directive (absent: Strict). */
  fieldValidation?: FieldValidation;
  /** Where static mutating webhooks run (absent: StaticFirst). */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults (absent: none). */
  featureGates?: WorkspaceGate[];
  /** The sequence number of the last change saved (absent before the journal existed). */
  seq?: number;
}

interface UnsavedMark {
  /** The first change not saved. */
  seq: number;
  /** When it was made (ms since the epoch). */
  since: number;
  /** Why the last write failed, when it did. */
  reason?: string;
}

/** A backend over a Storage (localStorage where IndexedDB is missing; tests). */
export function storageBackend(storage: Pick<Storage, 'getItem' | 'setItem'>, key = FALLBACK_KEY): WorkspaceBackend {
  return {
    read: async () => storage.getItem(key) ?? undefined,
    write: async (text) => storage.setItem(key, text),
  };
}

/** A saved platform: one this app lacks is kept at the nearest it has (with that platform's release). */
function savedPlatform(v: unknown): { platform: PlatformId; kubernetesVersion: KubernetesVersion } | Record<string, never> {
  const platform = isPlatformId(v) ? v : nearestPlatform(v);
  const row = platform ? platformOf(platform) : undefined;
  return platform && row ? { platform, kubernetesVersion: row.kubernetesVersion } : {};
}

function parseSaved(raw: unknown): (SavedWorkspace & { seq: number }) | undefined {
  const saved = raw as Saved | undefined;
  if (!saved || (saved.version !== 1 && saved.version !== SAVED_VERSION) || !Array.isArray(saved.docs)) return undefined;
  try {
    const docs: WorkspaceDoc[] = saved.docs.map((d) =>
      withText(
        {
          id: d.id,
          text: '',
          object: undefined,
          origin: d.origin,
          ...(typeof d.separator === 'string' && d.separator ? { separator: d.separator } : {}),
          ...(isListSlot(d.listItem) ? { listItem: d.listItem } : {}),
          ...(d.static === true ? { static: true } : {}),
        },
        d.text,
      ),
    );
    const selectedId = docs.some((d) => d.id === saved.selectedId) ? saved.selectedId : (docs[0]?.id ?? null);
    return {
      docs,
      selectedId,
      seq: typeof saved.seq === 'number' ? saved.seq : 0,
      ...(isKubernetesVersion(saved.kubernetesVersion) ? { kubernetesVersion: saved.kubernetesVersion } : {}),
      ...savedPlatform(saved.platform),
      ...(saved.staticManifests === true ? { staticManifests: true } : {}),
      ...(isFieldValidation(saved.fieldValidation) ? { fieldValidation: saved.fieldValidation } : {}),
      ...(isStaticOrder(saved.staticOrder) ? { staticOrder: saved.staticOrder } : {}),
      ...(Array.isArray(saved.featureGates) ? { featureGates: saved.featureGates.filter(isWorkspaceGate) } : {}),
    };
  } catch {
    return undefined;
  }
}

/** A saved List slot of the shape export needs (anything else is dropped: the item is then exported on its own). */
const parseText = (text: string | undefined) => {
  try {
    return text ? parseSaved(JSON.parse(text)) : undefined;
  } catch {
    return undefined;
  }
};

/** The workspace saved in a Storage in the format of earlier versions (undefined: none, or unreadable). */
export function loadSaved(storage: Pick<Storage, 'getItem'>): SavedWorkspace | undefined {
  return parseSaved(readJSON(storage, STORAGE_KEY));
}

export function serialize(s: SavedWorkspace, seq?: number): string {
  const saved: Saved = {
    version: SAVED_VERSION,
    selectedId: s.selectedId,
    docs: s.docs.map((d) => ({
      id: d.id,
      text: d.text,
      origin: d.origin,
      ...(d.separator ? { separator: d.separator } : {}),
      ...(d.listItem ? { listItem: d.listItem } : {}),
      ...(d.static ? { static: true } : {}),
    })),
    ...(s.kubernetesVersion ? { kubernetesVersion: s.kubernetesVersion } : {}),
    ...(s.platform ? { platform: s.platform } : {}),
    ...(s.staticManifests ? { staticManifests: true } : {}),
    ...(s.fieldValidation && s.fieldValidation !== DEFAULT_FIELD_VALIDATION ? { fieldValidation: s.fieldValidation } : {}),
    ...(s.staticOrder && s.staticOrder !== DEFAULT_STATIC_ORDER ? { staticOrder: s.staticOrder } : {}),
    ...(s.featureGates?.length ? { featureGates: [...s.featureGates] } : {}),
    ...(seq !== undefined ? { seq } : {}),
  };
  return JSON.stringify(saved);
}

const clock = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

export interface Restored {
  /** The saved workspace; undefined on a first visit (or when nothing readable was saved). */
  saved?: SavedWorkspace;
  /** The last saved change's sequence number: autosave continues from it. */
  seq: number;
  /** What to tell the user (the last changes were not saved). */
  notices: Notice[];
}

/**
 * Read the saved workspace: one left in localStorage by an earlier version is moved to the
 * backend (and removed from localStorage once written); the journal says whether the last
 * changes before the page was left were saved.
 */
export async function restoreWorkspace(backend: WorkspaceBackend, storage: Journal): Promise<Restored> {
  let text: string | undefined;
  const legacy = storage.getItem(STORAGE_KEY);
  if (legacy) {
    text = legacy;
    try {
      await backend.write(legacy);
      storage.removeItem(STORAGE_KEY);
    } catch {
      // Kept where it is; the next load tries again.
    }
  } else {
    try {
      text = await backend.read();
    } catch {
      text = undefined;
    }
  }
  const saved = parseText(text);
  const seq = saved?.seq ?? 0;
  const notices: Notice[] = [];
  const mark = readJSON(storage, UNSAVED_KEY) as UnsavedMark | undefined;
  if (mark && typeof mark.seq === 'number' && mark.seq > seq) {
    notices.push({
      level: 'error',
      sticky: true,
      text:
        `Your last changes (since ${clock(mark.since)}) were not saved${mark.reason ? ` (${mark.reason})` : ''}: ` +
        (saved ? 'this is the workspace as it was last saved.' : 'nothing was saved before them.'),
    });
  }
  try {
    storage.removeItem(UNSAVED_KEY);
  } catch {
    // Nothing to do: the journal is only a hint.
  }
  const { seq: _seq, ...workspace } = saved ?? { seq: 0 };
  return { saved: saved ? (workspace as SavedWorkspace) : undefined, seq, notices };
}

/** A workspace with a text this long is written after a longer pause (serializing 5 MB is a long task; the journal covers the gap). */
const LARGE_TEXT_CHARS = 1_000_000;
const LARGE_DELAY_MS = 2_000;
// (generated texts are not read: reading one serializes its object)
const isLarge = (s: SavedWorkspace): boolean => s.docs.some((d) => !hasGeneratedText(d) && d.text.length > LARGE_TEXT_CHARS);

/**
 * Save after every change (debounced; 2 s for workspaces with a text over a million characters), one write at a time. Returns a function that stops
 * autosaving and starts the pending write at once (on pagehide).
 */
export function startAutosave(
  store: WorkspaceStore,
  backend: WorkspaceBackend,
  journal: Journal,
  options: { delayMs?: number; seq?: number } = {},
): () => void {
  const delayMs = options.delayMs ?? 250;
  let seq = options.seq ?? 0;
  let unsaved: UnsavedMark | undefined;
  let changedWhileWriting: number | undefined;
  let writing = false;
  let again = false;
  let failure: { notice: number; since: number } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const mark = (m: UnsavedMark | undefined) => {
    unsaved = m;
    try {
      if (m) journal.setItem(UNSAVED_KEY, JSON.stringify(m));
      else journal.removeItem(UNSAVED_KEY);
    } catch {
      // A full localStorage: the failure notice below still tells the user.
    }
  };

  const onBeforeUnload = (e: BeforeUnloadEvent) => {
    e.preventDefault();
    e.returnValue = '';
  };

  const save = () => {
    timer = undefined;
    if (writing) {
      again = true;
      return;
    }
    writing = true;
    const written = seq;
    let text: string;
    try {
      text = serialize(store.getState(), written);
    } catch (e) {
      return done(written, e as Error);
    }
    backend.write(text).then(
      () => done(written),
      (e: unknown) => done(written, e instanceof Error ? e : new Error(String(e))),
    );
  };

  const done = (written: number, error?: Error) => {
    writing = false;
    const ws = store.getState();
    if (error) {
      if (unsaved) mark({ ...unsaved, reason: error.name });
      if (!failure) {
        const since = unsaved?.since ?? Date.now();
        ws.notify({
          level: 'error',
          sticky: true,
          text: `Autosave failed (${error.name}): your changes since ${clock(since)} are only in this tab. Download all (or Share… → Download workspace file) to keep them; the Workbench tries again at your next change.`,
        });
        failure = { notice: store.getState().notices.at(-1)?.id ?? -1, since };
        if (typeof window !== 'undefined') window.addEventListener('beforeunload', onBeforeUnload);
      }
    } else {
      if (written >= seq) mark(undefined);
      else mark({ seq: written + 1, since: changedWhileWriting ?? Date.now() });
      if (failure) {
        ws.dismissNotice(failure.notice);
        ws.notify({ level: 'info', text: 'Autosave works again: every change is saved.' });
        failure = undefined;
        if (typeof window !== 'undefined') window.removeEventListener('beforeunload', onBeforeUnload);
      }
    }
    changedWhileWriting = undefined;
    if (again) {
      again = false;
      save();
    }
  };

  const unsubscribe = store.subscribe((s, prev) => {
    if (
      s.docs === prev.docs &&
      s.selectedId === prev.selectedId &&
      s.kubernetesVersion === prev.kubernetesVersion &&
      s.platform === prev.platform &&
      s.staticManifests === prev.staticManifests &&
      s.fieldValidation === prev.fieldValidation &&
      s.staticOrder === prev.staticOrder &&
      s.featureGates === prev.featureGates
    )
      return;
    const now = Date.now();
    seq = Math.max(seq + 1, now);
    if (writing) changedWhileWriting ??= now;
    if (!unsaved) mark({ seq, since: now });
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, isLarge(s) ? Math.max(delayMs, LARGE_DELAY_MS) : delayMs);
  });
  return () => {
    unsubscribe();
    if (timer) {
      clearTimeout(timer);
      save();
    }
  };
}
