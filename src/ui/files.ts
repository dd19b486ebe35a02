/**
 * Reading opened, dropped and pasted YAML into the workspace: a size limit checked before
 * reading, the CLI's UTF-8 check (a non-UTF-8 or binary file is refused, never decoded with
 * U+FFFD), and after an import into a workspace that held other documents, an offer to
 * replace the workspace with the imported ones (one undo step).
 */
import { decodeText, workspace } from '../store';
import { openWorkspaceText } from '../store/share';

/** Larger files are refused before they are read (the YAML layer refuses more than 10 MiB of text too). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** After an import: say what was added and offer to keep only that. */
export function offerReplace(ids: readonly string[], what: string): void {
  const ws = workspace.getState();
  const others = ws.docs.length - ids.length;
  if (!ids.length || others <= 0) return;
  ws.notify({
    level: 'info',
    text: `Added ${ids.length} document(s) from ${what} to the ${others} already in the workspace.`,
    action: { label: 'Replace workspace with these files', run: () => workspace.getState().keepOnly(ids) },
  });
}

export async function readFiles(files: FileList | readonly File[]): Promise<void> {
  const ws = workspace.getState();
  const imported: string[] = [];
  const names: string[] = [];
  for (const file of Array.from(files)) {
    if (file.size > MAX_FILE_BYTES) {
      ws.notify({
        level: 'error',
        text: `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; the Workbench opens files up to ${MAX_FILE_BYTES / 1024 / 1024} MB. Split it, or open the documents you need.`,
      });
      continue;
    }
    try {
      const decoded = decodeText(new Uint8Array(await file.arrayBuffer()));
      if ('error' in decoded) {
        ws.notify({ level: 'error', text: `${file.name}: ${decoded.error}. Nothing was imported from it.` });
        continue;
      }
      const text = decoded.text;
      // A workspace file (Share… → Download workspace file) replaces the workspace; anything else is imported.
      const replace = (n: number) =>
        window.confirm(`Open ${file.name}? Its ${n} document(s) replace the ${workspace.getState().docs.length} in this tab (Undo brings them back).`);
      if (!openWorkspaceText(text, file.name, replace)) {
        const ids = ws.importText(text, file.name);
        if (ids.length) names.push(file.name);
        imported.push(...ids);
      }
    } catch (e) {
      ws.notify({ level: 'error', text: `${file.name} could not be read: ${(e as Error).message}` });
    }
  }
  offerReplace(imported, names.length === 1 ? names[0]! : `${names.length} files`);
}
