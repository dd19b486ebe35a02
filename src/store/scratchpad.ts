/**
 * The CEL scratchpad: one bare expression, the context it is compiled in (any of the
 * admission contexts: a webhook matchCondition, a VAP validation …), and its own test input
 * (the one request model's draft). It belongs to no document; share links carry it
 * (src/share `scratchpad`), and a link that holds only the scratchpad opens it without
 * touching the workspace.
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { CelContext } from '../cel/types';
import { defaultDraftFor, type TestInputDraft } from '../request';
import { parseWorkspaceFile, toWorkspaceFile, type ScratchpadFile } from '../share';
import { autosave } from './autosave';
import type { WorkspaceBackend } from './persist';

export interface ScratchpadState extends ScratchpadFile {
  /** Bumped when something asks for the scratchpad to be shown (a share link opened it). */
  shown: number;
}

const initial = (): ScratchpadState => ({
  context: 'vap-validation',
  expression: 'object.metadata.name.startsWith("web")',
  params: false,
  draft: defaultDraftFor(undefined),
  shown: 0,
});

export const scratchpad = appStore(createStore<ScratchpadState>()(initial));

export const useScratchpad = <T>(selector: (s: ScratchpadState) => T): T => useStore(scratchpad, selector);

export const setScratchExpression = (expression: string): void => scratchpad.setState({ expression });
export const setScratchContext = (context: CelContext): void => scratchpad.setState({ context });
export const setScratchParams = (params: boolean): void => scratchpad.setState({ params });
export const setScratchDraft = (draft: TestInputDraft): void => scratchpad.setState({ draft });

/** The scratchpad as the workspace file holds it. */
export function scratchpadFile(): ScratchpadFile {
  const { context, expression, params, draft } = scratchpad.getState();
  return { context, expression, params, draft };
}

/** Open a shared scratchpad and ask for it to be shown. */
export function openScratchpad(file: ScratchpadFile): void {
  scratchpad.setState((s) => ({ ...file, shown: s.shown + 1 }));
}

/** The localStorage key of the scratchpad where IndexedDB cannot be opened. */
export const SCRATCHPAD_FALLBACK_KEY = 'admission-workbench/scratchpad/v1';

/** The scratchpad as saved: a workspace file holding only it (one format, one reader). */
export const serializeScratchpad = (): string => JSON.stringify({ ...toWorkspaceFile([]), scratchpad: scratchpadFile() });

/**
 * Restore the saved scratchpad (a reload loses nothing) and save it after every change to
 * `backend` (the workspace's IndexedDB store, its own key). Returns the function that stops
 * autosaving and flushes.
 */
export async function persistScratchpad(backend: WorkspaceBackend, onError?: (e: Error) => void): Promise<() => void> {
  try {
    const text = await backend.read();
    const r = text ? parseWorkspaceFile(text) : undefined;
    if (r?.ok && r.workspace.scratchpad) scratchpad.setState(r.workspace.scratchpad);
  } catch {
    // Nothing readable saved: the default scratchpad.
  }
  return autosave(
    scratchpad,
    () => backend.write(serializeScratchpad()),
    (s, prev) => s.expression !== prev.expression || s.context !== prev.context || s.params !== prev.params || s.draft !== prev.draft,
    { onError },
  );
}
