/** Reading opened or dropped files into the workspace, with a size limit checked before reading. */
import { workspace } from '../store';
import { openWorkspaceText } from '../store/share';

/** Larger files are refused before they are read (the YAML layer refuses more than 10 MiB of text too). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export async function readFiles(files: FileList | readonly File[]): Promise<void> {
  const ws = workspace.getState();
  for (const file of Array.from(files)) {
    if (file.size > MAX_FILE_BYTES) {
      ws.notify({
        level: 'error',
        text: `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; the Workbench opens files up to ${MAX_FILE_BYTES / 1024 / 1024} MB. Split it, or open the documents you need.`,
      });
      continue;
    }
    try {
      const text = await file.text();
      // A workspace file (Share… → Download workspace file) replaces the workspace; anything else is imported.
      const replace = (n: number) => window.confirm(`Open ${file.name}? Its ${n} document(s) replace the ${workspace.getState().docs.length} in this tab (Undo brings them back).`);
      if (!openWorkspaceText(text, file.name, replace)) ws.importText(text, file.name);
    } catch (e) {
      ws.notify({ level: 'error', text: `${file.name} could not be read: ${(e as Error).message}` });
    }
  }
}
