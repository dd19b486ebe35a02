#!/usr/bin/env node
// Writes the type checker's schema assets, public/cel/schemas-<release>.json (with .br and
// .gz beside them), one per release of the release table: the checked-in schema data
// (tools/typecheck-oracle/schemas/<release>.json, scripts/schema-data.mjs) minified. No Go
// build: `npm run schemas:generate` regenerates the data from k8s.io/kubernetes' generated
// OpenAPI definitions. Run by build-wasm.mjs; skipped when every asset is newer than its data
// file and these scripts. CEL_SCHEMAS_FORCE=1 rebuilds anyway.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { assetFromData, schemaDataFile, schemaDataReleases } from './schema-data.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function buildSchemas(outDir) {
  const scripts = ['build-schemas.mjs', 'schema-data.mjs'].map((f) => statSync(join(root, 'scripts', f)).mtimeMs);
  const stale = schemaDataReleases().filter((release) => {
    const out = join(outDir, `schemas-${release}.json`);
    return (
      process.env.CEL_SCHEMAS_FORCE ||
      !existsSync(out) ||
      !existsSync(`${out}.br`) ||
      !existsSync(`${out}.gz`) ||
      statSync(out).mtimeMs <= Math.max(statSync(schemaDataFile(release)).mtimeMs, ...scripts)
    );
  });
  if (!stale.length) {
    console.log('build-schemas: public/cel/schemas-*.json are up to date');
    return;
  }
  mkdirSync(outDir, { recursive: true });
  const t0 = Date.now();
  for (const release of stale) {
    const out = join(outDir, `schemas-${release}.json`);
    const bytes = Buffer.from(assetFromData(readFileSync(schemaDataFile(release), 'utf8')));
    const br = brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    const gz = gzipSync(bytes, { level: 9 });
    // the compressed copies first: the plain file's time says all three are written
    writeFileSync(`${out}.br`, br);
    writeFileSync(`${out}.gz`, gz);
    writeFileSync(out, bytes);
    const kb = (n) => `${(n / 1e3).toFixed(1)} kB`;
    console.log(`build-schemas: ${release}: ${kb(bytes.length)}, ${kb(gz.length)} gzip, ${kb(br.length)} brotli`);
  }
  console.log(`build-schemas: ${stale.length} assets in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildSchemas(process.env.CEL_WASM_OUT ? resolve(process.env.CEL_WASM_OUT) : join(root, 'public', 'cel'));
}
