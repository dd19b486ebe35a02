/**
 * The file-length rule of docs/architecture.md (File names): no tracked source file (.ts .tsx
 * .mts .mjs .js .go, anywhere in the repository) is over MAX_LINES lines, tests and generated
 * code aside. A long file is split along its seams, not listed in EXCEPTIONS. Run as
 * `npm run check:imports` (scripts/check-length.test.ts, beside the import rule).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MAX_LINES = 500;

/** What the rule counts: source files by extension (declaration files such as x.d.mts included). */
const SOURCE = /\.(ts|tsx|mts|mjs|js|go)$/;

/** Tests: vitest's and Playwright's (*.test.ts, *.spec.ts; e2e/ holds the latter) and Go's (*_test.go). */
const TEST = /(\.test\.ts|\.spec\.ts|_test\.go)$/;

/** Go's marker of generated code (go.dev/s/generatedcode), the one any generator here would write: `// Code generated … DO NOT EDIT.` */
const GENERATED = /^\/\/ Code generated .* DO NOT EDIT\.$/m;

/**
 * Files allowed over the limit, each with why. Kept empty: a file that grows past the limit is
 * split (a stale entry, for a file now within the limit or gone, is reported too).
 */
export const EXCEPTIONS: Readonly<Record<string, string>> = {};

export interface SourceText {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  text: string;
}

/** Whether the rule applies to a file of this path and text. */
export function counted(file: string, text: string): boolean {
  if (!SOURCE.test(file) || TEST.test(file)) return false;
  // the marker stands before the first declaration: only the file's head is read
  return !GENERATED.test(text.slice(0, 2000));
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/** Every broken rule: one message per file over the limit, then one per stale exception. */
export function lengthViolations(files: readonly SourceText[], exceptions: Readonly<Record<string, string>> = EXCEPTIONS, max = MAX_LINES): string[] {
  const out: string[] = [];
  const lengths = new Map<string, number>();
  for (const { file, text } of files) {
    if (!counted(file, text)) continue;
    const n = lineCount(text);
    lengths.set(file, n);
    if (n > max && !(file in exceptions)) out.push(`${file}: ${n} lines, over ${max}: split it along its seams (docs/architecture.md, File names)`);
  }
  for (const file of Object.keys(exceptions)) {
    const n = lengths.get(file);
    if (n === undefined) out.push(`${file}: listed in EXCEPTIONS (scripts/check-length.ts) but not a tracked source file: remove the entry`);
    else if (n <= max) out.push(`${file}: listed in EXCEPTIONS (scripts/check-length.ts) but ${n} lines, within ${max}: remove the entry`);
  }
  return out;
}

/** The tracked files of the repository at `root` that the rule counts, with their text (files deleted in the work tree skipped). */
export function trackedSources(root: string): SourceText[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((f) => SOURCE.test(f));
  const out: SourceText[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    out.push({ file, text });
  }
  return out;
}

/** Every broken rule of the repository at `root`. */
export const checkLength = (root: string): string[] => lengthViolations(trackedSources(root));
