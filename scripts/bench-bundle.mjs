/**
 * Benchmarks of our own code measure it as it ships: Vite bundles src/ into modules where
 * calls between our files are plain calls (scope hoisting). Vitest instead runs every source
 * file through its module runner, where a call into another file reads a property of that
 * file's module object. Validation makes thousands of such calls per workspace: run from the
 * sources, its 1,000-webhook bench took about 1.5× as long as the bundled code (min 5.7–6.1 vs
 * 3.9–4.1 ms, alternating runs; the YAML rows, where js-yaml does most of the work, showed no
 * difference).
 *
 * bundled(entry) builds one source file with Vite (SSR for Node 20, not minified, as the CLI's
 * bundle is built, but with npm packages left as imports) into a temporary folder and imports it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @param {URL | string} entry a source file (a file URL, or a path from the project root) */
export async function bundled(entry) {
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), 'aw-bench-'));
  try {
    await build({
      configFile: false,
      root,
      logLevel: 'error',
      publicDir: false,
      build: {
        ssr: entry instanceof URL ? fileURLToPath(entry) : join(root, entry),
        outDir,
        target: 'node20',
        minify: false,
        rollupOptions: { output: { entryFileNames: 'bundle.mjs', codeSplitting: false } },
      },
    });
    return await import(pathToFileURL(join(outDir, 'bundle.mjs')).href);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
