/**
 * The CLI's inputs: files and directories (recursive; .yaml, .yml, .json) and `-` for stdin,
 * read as UTF-8 text. What cannot be read becomes a problem of its own line (missing,
 * unreadable, binary, over the size limit, too many files) and the rest is still read.
 * Node only; the file system is passed in (`FileSystem`), so tests can use a real temp dir.
 */
import { MAX_TEXT_LENGTH } from '../yaml/limits';
import { decodeText } from '../yaml/decode';

export const INPUT_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;
/** More files than this in one run: the rest are not read (a clear problem, never a hang). */
export const MAX_FILES = 20_000;
/** Bytes of one file (the YAML parser's own limit is on characters; bytes are checked before reading). */
export const MAX_FILE_BYTES = MAX_TEXT_LENGTH;

export interface InputFile {
  /** As given on the command line or found under a directory; `<stdin>` for `-`. */
  name: string;
  text: string;
}

export interface InputProblem {
  file: string;
  message: string;
}

/** What the CLI needs of node:fs (sync), and stdin. */
export interface FileSystem {
  stat(path: string): { isDirectory(): boolean; isFile(): boolean; size: number };
  readdir(path: string): string[];
  readFile(path: string): Uint8Array;
  join(a: string, b: string): string;
  dirname(path: string): string;
  readStdin(): Promise<Uint8Array>;
  /** A file (or `-`, standard input) read in chunks, never whole (audit logs). */
  readStream?(path: string): AsyncIterable<Uint8Array>;
  /** Write a text file, making its directories (check --export-manifests, --coverage-out, --lcov). */
  writeFile?(path: string, text: string): void;
}

const hasInputExtension = (name: string): boolean => INPUT_EXTENSIONS.some((e) => name.toLowerCase().endsWith(e));

const errorText = (e: unknown): string => {
  const err = e as { code?: string; message?: string };
  switch (err.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return err.message ?? String(e);
  }
};

/**
 * Writes the files in order; at the first that cannot be written (a path through a file, a
 * directory in its place, no permission, a file system that cannot write) says why on stderr, as
 * `<who>: cannot write <path>: <why>`, and answers false.
 */
export function writeFiles(fs: FileSystem, files: readonly (readonly [path: string, text: string])[], stderr: (s: string) => void, who: string): boolean {
  for (const [path, text] of files) {
    try {
      if (!fs.writeFile) throw new Error('this file system cannot write');
      fs.writeFile(path, text);
    } catch (e) {
      const code = (e as { code?: string }).code;
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way of its directory' : errorText(e);
      stderr(`${who}: cannot write ${path}: ${why}\n`);
      return false;
    }
  }
  return true;
}

const tooLarge = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB: larger than the ${MAX_FILE_BYTES / 1024 / 1024} MB limit, not read`;

/** A file to read (`-` for standard input, size unknown) or why one is not read, in the order given. */
export type InputEntry = { path: string; size: number } | InputProblem;

export interface ListOptions {
  /** Directories also give the `.gz` of their input files (impact's snapshots). */
  gzip?: boolean;
  /**
   * What a directory named on the command line should hold (`admission configuration file`): one
   * under which no such file is found is a problem of its own, as a missing path is, so that a
   * run pointed at the wrong directory does not pass having checked nothing.
   */
  expected?: string;
}

/** `check`'s inputs (with or without --upgrade-from): a directory without any is said so. */
export const CHECK_INPUTS: ListOptions = { expected: 'admission configuration file' };

/**
 * The files the paths name, in order; directories recursively (sorted, hidden entries and
 * node_modules skipped; only .yaml, .yml, .json, and with `gzip` also their `.gz`). A file named
 * on the command line is taken whatever its extension. Nothing is read.
 */
export function listInputs(paths: readonly string[], fs: FileSystem, options: ListOptions = {}): InputEntry[] {
  const out: InputEntry[] = [];
  let count = 0;
  let capped = false;
  const take = (path: string, size: number) => {
    if (++count > MAX_FILES) {
      if (!capped) out.push({ file: path, message: `more than ${MAX_FILES} files: this and the following files were not read` });
      capped = true;
      return;
    }
    out.push({ path, size });
  };
  const listed = (name: string) => hasInputExtension(options.gzip ? name.replace(/\.gz$/i, '') : name);

  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = fs.readdir(dir).sort();
    } catch (e) {
      out.push({ file: dir, message: `cannot read directory: ${errorText(e)}` });
      return;
    }
    for (const entry of entries) {
      if (capped) return;
      if (entry.startsWith('.') || entry === 'node_modules') continue;
      const path = fs.join(dir, entry);
      let st: ReturnType<FileSystem['stat']>;
      try {
        st = fs.stat(path);
      } catch (e) {
        out.push({ file: path, message: `cannot read: ${errorText(e)}` });
        continue;
      }
      if (st.isDirectory()) walk(path);
      else if (st.isFile() && listed(entry)) take(path, st.size);
    }
  };

  for (const path of paths) {
    if (capped) break;
    if (path === '-') {
      out.push({ path, size: -1 });
      continue;
    }
    let st: ReturnType<FileSystem['stat']>;
    try {
      st = fs.stat(path);
    } catch (e) {
      out.push({ file: path, message: errorText(e) });
      continue;
    }
    if (st.isDirectory()) {
      const before = out.length;
      walk(path);
      if (options.expected && out.length === before)
        out.push({ file: path, message: `no ${options.expected} (${INPUT_EXTENSIONS.join(', ')}) found under this directory` });
    } else take(path, st.size);
  }
  return out;
}

/** Reads the paths in order (`listInputs`), each file whole, up to MAX_FILE_BYTES. */
export async function readInputs(
  paths: readonly string[],
  fs: FileSystem,
  options: Pick<ListOptions, 'expected'> = {},
): Promise<{ files: InputFile[]; problems: InputProblem[] }> {
  const files: InputFile[] = [];
  const problems: InputProblem[] = [];
  for (const entry of listInputs(paths, fs, options)) {
    if ('message' in entry) {
      problems.push(entry);
      continue;
    }
    const { path, size } = entry;
    if (path === '-') {
      const bytes = await fs.readStdin();
      if (bytes.byteLength > MAX_FILE_BYTES) problems.push({ file: '<stdin>', message: tooLarge(bytes.byteLength) });
      else {
        const r = decodeText(bytes);
        if ('error' in r) problems.push({ file: '<stdin>', message: r.error });
        else files.push({ name: '<stdin>', text: r.text });
      }
      continue;
    }
    if (size > MAX_FILE_BYTES) {
      problems.push({ file: path, message: tooLarge(size) });
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = fs.readFile(path);
    } catch (e) {
      problems.push({ file: path, message: `cannot read: ${errorText(e)}` });
      continue;
    }
    const r = decodeText(bytes);
    if ('error' in r) problems.push({ file: path, message: r.error });
    else files.push({ name: path, text: r.text });
  }
  return { files, problems };
}
