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

/** A file and the path it was opened under: its path inside an opened or dropped folder, else its name. */
export interface OpenedFile {
  file: File;
  path: string;
}

/** Files a folder holds that are read (the rest are named in a notice, never dropped silently). */
const READ_IN_FOLDERS = /\.(ya?ml|json)$/i;

const opened = (f: File | OpenedFile): OpenedFile => ('file' in f ? f : { file: f, path: f.webkitRelativePath || f.name });

/**
 * Reads files into the workspace, each document's origin the path the file was opened under (a
 * test's kyverno-test.yaml or suite.yaml names its other files by such paths). Of a folder's
 * files, the YAML and JSON ones are read.
 */
export async function readFiles(files: FileList | readonly (File | OpenedFile)[]): Promise<void> {
  const ws = workspace.getState();
  const imported: string[] = [];
  const names: string[] = [];
  const all = Array.from(files as ArrayLike<File | OpenedFile>, opened);
  const inFolder = (f: OpenedFile) => f.path.includes('/');
  const skipped = all.filter((f) => inFolder(f) && !READ_IN_FOLDERS.test(f.path));
  if (skipped.length)
    ws.notify({
      level: 'info',
      text: `Not read (neither YAML nor JSON): ${skipped
        .slice(0, 5)
        .map((f) => f.path)
        .join(', ')}${skipped.length > 5 ? ` and ${skipped.length - 5} more` : ''}.`,
    });
  for (const { file, path } of all.filter((f) => !skipped.includes(f))) {
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
      const { text, bom } = decoded;
      // A workspace file (Share… → Download workspace file) replaces the workspace; anything else is imported.
      const replace = (n: number) =>
        window.confirm(`Open ${file.name}? Its ${n} document(s) replace the ${workspace.getState().docs.length} in this tab (Undo brings them back).`);
      if (!openWorkspaceText(text, path, replace)) {
        // the file's own text, its BOM included: import keeps it for the export (an untouched file exports byte-identical)
        const ids = ws.importText(bom ? `\ufeff${text}` : text, path);
        if (ids.length) names.push(path);
        imported.push(...ids);
      }
    } catch (e) {
      ws.notify({ level: 'error', text: `${file.name} could not be read: ${(e as Error).message}` });
    }
  }
  offerReplace(imported, names.length === 1 ? names[0]! : `${names.length} files`);
}

/** Every file under the dropped items, folders walked, each with its path inside the drop. */
export async function droppedFiles(items: DataTransferItemList): Promise<OpenedFile[] | undefined> {
  const entries = Array.from(items, (i) => (i.kind === 'file' ? i.webkitGetAsEntry?.() : null)).filter((e): e is FileSystemEntry => !!e);
  if (!entries.some((e) => e.isDirectory)) return undefined;
  const out: OpenedFile[] = [];
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const path = `${prefix}${entry.name}`;
    if (entry.isFile) {
      out.push({ file: await new Promise<File>((ok, fail) => (entry as FileSystemFileEntry).file(ok, fail)), path });
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in batches until an empty one
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const e of batch) await walk(e, `${path}/`);
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}
