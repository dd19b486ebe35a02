#!/usr/bin/env node
// Writes the type checker's schema assets, public/cel/schemas-<release>.json (with .br and
// .gz beside them), one per release of SCHEMA_RELEASES (src/cel/schemas.ts): the OpenAPI
// definitions of the built-in kinds admission can match, from k8s.io/kubernetes'
// pkg/generated/openapi of that release, by tools/typecheck-oracle (`schemas OUT`). Run by
// build-wasm.mjs; skipped when every asset is newer than tools/typecheck-oracle's Go sources
// and module files (its tests and testdata do not count). Needs the
// k8s.io/kubernetes modules (as the oracles do). CEL_SCHEMAS_FORCE=1 rebuilds anyway.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { buildOracle } from '../tools/go-oracle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolDir = join(root, 'tools', 'typecheck-oracle');

/** release → how tools/typecheck-oracle is built on it (go.mod pins 1.37). Keep in step with SCHEMA_RELEASES. */
export const SCHEMA_BUILDS = {
  '1.30': ['-tags', 'k8s130', '-modfile', 'go.1.30.mod'],
  '1.36': ['-tags', 'k8s136', '-modfile', 'go.1.36.mod'],
  '1.37': [],
};

/** SCHEMA_BUILDS' go flags as a tools/go-oracle.mjs build (named as the type-check oracle's test names it). */
function oracleBuild(release, flags) {
  const after = (flag) => (flags.includes(flag) ? flags[flags.indexOf(flag) + 1] : undefined);
  return { dir: 'typecheck-oracle', name: `typecheck-oracle-${release}`, tags: after('-tags')?.split(','), modfile: after('-modfile') };
}

export function buildSchemas(outDir) {
  const inputs = readdirSync(toolDir).filter((f) => (f.endsWith('.go') && !f.endsWith('_test.go')) || /^go(\.[\d.]+)?\.(mod|sum)$/.test(f));
  const newest = Math.max(statSync(fileURLToPath(import.meta.url)).mtimeMs, ...inputs.map((f) => statSync(join(toolDir, f)).mtimeMs));
  const outs = Object.keys(SCHEMA_BUILDS).map((r) => join(outDir, `schemas-${r}.json`));
  if (!process.env.CEL_SCHEMAS_FORCE && outs.every((f) => existsSync(f) && existsSync(`${f}.br`) && statSync(f).mtimeMs > newest)) {
    console.log('build-schemas: public/cel/schemas-*.json are up to date');
    return;
  }
  mkdirSync(outDir, { recursive: true });
  for (const [release, flags] of Object.entries(SCHEMA_BUILDS)) {
    const t0 = Date.now();
    const out = join(outDir, `schemas-${release}.json`);
    // the oracles' cache (tools/go-oracle.mjs): the same binary typecheck-oracle/oracle.test.ts runs, linked once
    const { path: bin } = buildOracle(oracleBuild(release, flags));
    execFileSync(bin, ['schemas', out], { stdio: 'inherit' });
    const bytes = readFileSync(out);
    const br = brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    const gz = gzipSync(bytes, { level: 9 });
    writeFileSync(`${out}.br`, br);
    writeFileSync(`${out}.gz`, gz);
    const kb = (n) => `${(n / 1e3).toFixed(1)} kB`;
    console.log(`build-schemas: ${release}: ${kb(bytes.length)}, ${kb(gz.length)} gzip, ${kb(br.length)} brotli (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildSchemas(process.env.CEL_WASM_OUT ? resolve(process.env.CEL_WASM_OUT) : join(root, 'public', 'cel'));
}
