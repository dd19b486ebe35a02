/**
 * No tracked file names a path of one machine or of material outside the repository:
 * absolute directories of one machine (work, home, root, tmp, farm or Users right under the root;
 * C:\Users\…) and
 * the reference folders beside the checkout (../shared/…, shared/reference/…).
 * Runs with the unit tests (vitest includes the test files of scripts/).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What a machine-specific or outside-the-repo path looks like (not URL paths such as https://x/home/y). */
const MACHINE_PATH =
  /(?<![\w.~/:-])\/(?:work|home|root|tmp|farm|Users)\/[\w.-]|\b[A-Za-z]:\\Users\\|(?:\.\.\/)+shared\/|(?<![\w./-])shared\/(?:reference|corpus)\//;

function offending(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (MACHINE_PATH.test(line) ? [`${i + 1}: ${line.trim().slice(0, 120)}`] : []));
}

describe('no absolute machine paths in tracked files', () => {
  it('the pattern finds them and leaves URLs and in-repo paths alone', () => {
    // built from parts, so that this file does not name such paths itself (the before-stop hook reads it too)
    const root = (dir: string, rest: string) => `/${dir}/${rest}`;
    const bad = [
      `see ${root('work', 'shared/x.md')}`,
      `resolve('${root('home', 'me/repo')}')`,
      `\`${root('root', '.cache')}\``,
      `go build -o ${root('tmp', 'vo')} .`,
      'C:\\Users\\me',
      "resolve(dir, '../../shared/corpus')",
      'after shared/reference/anchors.md §3',
    ];
    const good = ['https://example.com/home/page', 'src/k8s/path.ts', 'docs/architecture.md', '~/work/x is yours', 'a /workspace path', 'metadata.labels[app]'];
    expect(bad.filter((l) => !MACHINE_PATH.test(l))).toEqual([]);
    expect(good.filter((l) => MACHINE_PATH.test(l))).toEqual([]);
  });

  it('holds for every tracked text file', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const f of files) {
      if (f === 'scripts/check-paths.test.ts') continue; // its own examples
      let buf: Buffer;
      try {
        buf = readFileSync(join(root, f));
      } catch {
        continue; // deleted in the working tree
      }
      if (buf.includes(0)) continue; // binary (wasm, images)
      for (const hit of offending(buf.toString('utf8'))) found.push(`${f}:${hit}`);
    }
    expect(found).toEqual([]);
  });
});
