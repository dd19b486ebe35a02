/**
 * Quick fixes as the UI uses them: which fix is being previewed (one at a time, from a
 * lightbulb at a field, in the problems list or a code action in the YAML), the preview
 * (a line diff of the document's YAML as applying will write it, and the documents the fix adds), and applying it
 * through the workspace (one undo step).
 */
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { Fix } from '../k8s';
import { diffHunks, diffLines, type DiffLine } from '../yaml/line-diff';

export type { DiffLine };
import { docFromObject, editObject, withObject } from './documents';
import { workspace } from './workspace';

/** The fix being previewed, for which document and finding. */
export interface FixTarget {
  docId: string;
  /** The finding or error it fixes, as the user saw it ("W01 webhooks[0].namespaceSelector: …"). */
  problem: string;
  fix: Fix;
}

const fixUi = appStore(createStore<{ open?: FixTarget }>()(() => ({})));

export const openFix = (target: FixTarget): void => fixUi.setState({ open: target });
export const closeFix = (): void => fixUi.setState({ open: undefined });
export const useOpenFix = (): FixTarget | undefined => useStore(fixUi, (s) => s.open);

export interface FixPreview {
  /** The changed lines of the document's YAML with two lines of context ('…' between hunks). */
  hunks: (DiffLine | '…')[];
  /** YAML of each document the fix adds. */
  added: string[];
  /** The fix changes nothing with these params (e.g. an empty list typed). */
  empty: boolean;
  /** Why the change cannot be written into the YAML (e.g. it does not parse): Apply is then refused too. */
  refused?: string;
}

/** What applying `fix` with `params` would do to the document (nothing is changed). */
export function previewFix(docId: string, fix: Fix, params?: Readonly<Record<string, string>>): FixPreview | undefined {
  const docs = workspace.getState().docs;
  const doc = docs.find((d) => d.id === docId);
  if (!doc) return undefined;
  const r = fix.apply(doc.object, { params, workspace: docs.map((d) => d.object) });
  // The same edit applying writes: the diff is the text that will change, and only that.
  const edit = r.object === doc.object ? { doc, refused: undefined } : editObject(doc, r.object);
  const added = (r.newDocuments ?? []).map((o) => withObject(docFromObject(o), o).text);
  return {
    hunks: diffHunks(diffLines(doc.text, edit.doc.text)),
    added,
    empty: r.object === doc.object && added.length === 0,
    ...(edit.refused ? { refused: edit.refused } : {}),
  };
}

/** Apply the fix (one undo step) and close the preview. */
export function applyOpenFix(params?: Readonly<Record<string, string>>): void {
  const open = fixUi.getState().open;
  if (!open) return;
  workspace.getState().applyFix(open.docId, open.fix, params);
  closeFix();
}
