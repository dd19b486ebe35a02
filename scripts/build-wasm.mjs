#!/usr/bin/env node
// Builds the CEL engine (wasm/, Go) to public/cel/cel.wasm, with cel.wasm.br and
// cel.wasm.gz beside it (for servers that serve precompressed files), and copies Go's
// wasm_exec.js next to it. No dependencies. Skips the build when cel.wasm is newer than
// every file in wasm/ and this script (and wasm_exec.js exists). CEL_WASM_FORCE=1 rebuilds
// anyway; CEL_WASM_OUT=dir builds into another directory (engine development);
// CEL_SCHEMAS=0 skips the type checker's schema assets (build-schemas.mjs);
// CEL_WASM_COMPRESS=0 leaves the .br/.gz copies to a later `node scripts/build-wasm.mjs --compress`
// (npm test runs that beside the unit tests, which need only cel.wasm);
// CEL_WASM_PLAIN=1 builds without the weight patches (scripts/wasm-weight.mjs);
// CEL_WASM_SYMBOLS=1 keeps the function names (for `node scripts/wasm-size.mjs --by-package`
// and readable profiles; a larger file, not for serving).
//
// The build: wasm/ is copied to a temporary directory, its dependencies vendored there
// (`go mod vendor`, from the module cache) and patched, then built with -mod=vendor.
// Then the engine is started once in Node and cel.wasm rewritten to its state after the
// start (scripts/wasm-snapshot.mjs): a page load skips the package initialisers.
// CEL_WASM_SNAPSHOT=0 keeps the plain build.
import { execFileSync } from 'node:child_process';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotEngine } from './wasm-snapshot.mjs';
import { applyWeightPatches, INLINE_GCFLAGS } from './wasm-weight.mjs';
import { buildSchemas } from './build-schemas.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'wasm');
const outDir = process.env.CEL_WASM_OUT ? resolve(process.env.CEL_WASM_OUT) : join(root, 'public', 'cel');
const outWasm = join(outDir, 'cel.wasm');
const outExec = join(outDir, 'wasm_exec.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

// The type checker's schema assets (scripts/build-schemas.mjs), lazily fetched beside the engine.
if (process.env.CEL_SCHEMAS !== '0' && !process.argv.includes('--compress')) buildSchemas(outDir);

const upToDate =
  !process.env.CEL_WASM_FORCE &&
  existsSync(outWasm) &&
  existsSync(outExec) &&
  statSync(outWasm).mtimeMs >
    Math.max(
      newestMtime(srcDir),
      ...['build-wasm.mjs', 'wasm-weight.mjs', 'wasm-snapshot.mjs', 'go-symtab.mjs', 'leb128.mjs'].map((f) => statSync(join(root, 'scripts', f)).mtimeMs),
    );
// Precompressed copies for static servers (nginx gzip_static/brotli_static, Caddy
// precompressed, scripts/serve.mjs); the engine is the app's largest file by far. Written when
// older than cel.wasm (or missing), so an up-to-date engine gets them too.
function compressEngine() {
  const fresh = (f) => existsSync(f) && statSync(f).mtimeMs >= statSync(outWasm).mtimeMs;
  if (fresh(`${outWasm}.br`) && fresh(`${outWasm}.gz`)) return undefined;
  const bytes = readFileSync(outWasm);
  const br = brotliCompressSync(bytes, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_LGWIN]: 24, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  const gz = gzipSync(bytes, { level: 9 });
  writeFileSync(`${outWasm}.br`, br);
  writeFileSync(`${outWasm}.gz`, gz);
  return { bytes: bytes.length, gz: gz.length, br: br.length };
}
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const compressNow = process.argv.includes('--compress') || process.env.CEL_WASM_COMPRESS !== '0';

if (process.argv.includes('--compress')) {
  if (!existsSync(outWasm)) {
    console.error('build-wasm --compress: no public/cel/cel.wasm to compress (build it first)');
    process.exit(1);
  }
  const t = Date.now();
  const sizes = compressEngine();
  console.log(
    sizes
      ? `build-wasm: compressed cel.wasm (${mb(sizes.gz)} gzip, ${mb(sizes.br)} brotli) in ${((Date.now() - t) / 1000).toFixed(1)} s`
      : 'build-wasm: cel.wasm.br and cel.wasm.gz are up to date',
  );
  process.exit(0);
}
if (upToDate) {
  if (compressNow) compressEngine();
  console.log('build-wasm: public/cel/cel.wasm is up to date');
  process.exit(0);
}

const go = 'go';
try {
  execFileSync(go, ['version'], { stdio: 'ignore' });
} catch {
  console.error('build-wasm: the Go toolchain (go 1.26+) is required to build public/cel/cel.wasm');
  process.exit(1);
}
mkdirSync(outDir, { recursive: true });
const t0 = Date.now();
const env = { ...process.env, GOOS: 'js', GOARCH: 'wasm' };
const snapshot = process.env.CEL_WASM_SNAPSHOT !== '0';
// The packages the engine links, by import path (the main package as `main`, its symbol prefix).
const linkedPackages = (cwd, flags) =>
  execFileSync(go, ['list', ...flags, '-deps', '-f', '{{if eq .Name "main"}}main{{else}}{{.ImportPath}}{{end}}', '.'], { cwd, env, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
let packages = [];
// go build leaves an output alone whose Go build ID matches; a snapshot keeps that ID but is
// no longer the linker's output, so the old file goes first.
rmSync(outWasm, { force: true });
// The snapshot reads the function names (it finds the package initialisers by name) and
// then drops them unless CEL_WASM_SYMBOLS asks to keep them: the same bytes as -s.
const ldflags = process.env.CEL_WASM_SYMBOLS || snapshot ? '-ldflags=-w' : '-ldflags=-s -w';
if (process.env.CEL_WASM_PLAIN) {
  execFileSync(go, ['build', '-trimpath', ldflags, '-o', outWasm, '.'], { cwd: srcDir, stdio: 'inherit', env });
  packages = linkedPackages(srcDir, []);
} else {
  const work = mkdtempSync(join(tmpdir(), 'cel-wasm-'));
  try {
    cpSync(srcDir, work, { recursive: true, filter: (p) => !p.endsWith('_test.go') && !p.includes('/vendor') });
    execFileSync(go, ['mod', 'vendor'], { cwd: work, stdio: 'inherit', env });
    const failed = await applyWeightPatches(join(work, 'vendor'));
    if (failed.length) {
      console.error(`build-wasm: weight patches that no longer apply (re-check scripts/wasm-weight.mjs):\n  ${failed.join('\n  ')}`);
      process.exit(1);
    }
    execFileSync(go, ['build', '-mod=vendor', '-trimpath', ldflags, ...INLINE_GCFLAGS, '-o', outWasm, '.'], { cwd: work, stdio: 'inherit', env });
    packages = linkedPackages(work, ['-mod=vendor']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
const goroot = execFileSync(go, ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
const candidates = [join(goroot, 'lib', 'wasm', 'wasm_exec.js'), join(goroot, 'misc', 'wasm', 'wasm_exec.js')];
const execJs = candidates.find((p) => existsSync(p));
if (!execJs) {
  console.error(`build-wasm: wasm_exec.js not found in ${candidates.join(' or ')}`);
  process.exit(1);
}
copyFileSync(execJs, outExec);
// The served engine is pre-initialised (scripts/wasm-snapshot.mjs); CEL_WASM_SNAPSHOT=0
// keeps the plain build, which starts by running every package initialiser.
if (snapshot) {
  const keepNames = Boolean(process.env.CEL_WASM_SYMBOLS);
  writeFileSync(outWasm, await snapshotEngine(readFileSync(outWasm), readFileSync(outExec, 'utf8'), { packages, keepNames }));
}
const sizes = compressNow ? compressEngine() : undefined;
const size = statSync(outWasm).size;
console.log(
  `build-wasm: built ${outWasm} (${mb(size)}${sizes ? `, ${mb(sizes.gz)} gzip, ${mb(sizes.br)} brotli` : ', not compressed yet'}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
