#!/usr/bin/env node
/**
 * admission-workbench: the command-line checker (src/cli). Runs the bundle in dist-cli/,
 * built by `npm install` (prepare) or `npm run build:cli`, and rebuilt here first when a
 * source file under src/ is newer than it. The CEL engine is public/cel/cel.wasm
 * (`npm run build:wasm`) unless CEL_WASM names another. Installed from the release tarball
 * (`npm run package`) there is no src/: the bundle and the engine come in the package.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist-cli', 'admission-workbench.mjs');

/** The newest modification time of the sources the bundle is made of. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'ui' && entry.name !== 'monaco' && entry.name !== 'store' && entry.name !== 'fixtures') newest = Math.max(newest, newestSource(p));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

const srcDir = join(root, 'src');
const stale = !existsSync(bundle) || (existsSync(srcDir) && newestSource(srcDir) > statSync(bundle).mtimeMs);
if (stale) {
  process.stderr.write('admission-workbench: building the CLI from src/ (npm run build:cli)…\n');
  try {
    const { build } = await import('vite');
    await build({ configFile: join(root, 'vite.cli.config.ts'), root, logLevel: 'error' });
  } catch (e) {
    process.stderr.write(`admission-workbench: the CLI could not be built: ${e instanceof Error ? e.message : String(e)}\n`);
    if (!existsSync(bundle)) process.exit(2);
  }
}
process.env.CEL_WASM ??= join(root, 'public', 'cel', 'cel.wasm');
await import(pathToFileURL(bundle).href);
