#!/usr/bin/env node
// Builds the CEL engine (wasm/, Go) to public/cel/cel.wasm, with cel.wasm.br and
// cel.wasm.gz beside it (for servers that serve precompressed files), and copies Go's
// wasm_exec.js next to it. No dependencies. Skips the build when cel.wasm is newer than
// every file in wasm/ and this script (and wasm_exec.js exists). CEL_WASM_FORCE=1 rebuilds
// anyway; CEL_WASM_OUT=dir builds into another directory (engine development);
// CEL_SCHEMAS=0 skips the type checker's schema assets (build-schemas.mjs);
// CEL_WASM_COMPRESS=0 leaves the .br/.gz copies to a later `node scripts/build-wasm.mjs --compress`
// (npm test runs that beside the unit tests, which need only cel.wasm; =fast: quicker settings, below);
// CEL_WASM_PLAIN=1 builds without the weight patches (scripts/wasm-weight.mjs);
// CEL_WASM_SYMBOLS=1 keeps the function names (for `node scripts/wasm-size.mjs --by-package`
// and readable profiles; a larger file, not for serving).
//
// The build: wasm/ is copied to a temporary directory, its dependencies vendored there
// (`go mod vendor`, from the module cache) and patched, then built with -mod=vendor.
// Then the engine is started once in Node and cel.wasm rewritten to its state after the
// start (scripts/wasm-snapshot.mjs): a page load skips the package initialisers.
// CEL_WASM_SNAPSHOT=0 keeps the plain build.
//
// Every engine generation is built (scripts/engine-builds.mjs): cel.wasm from wasm/go.mod, and
// cel-<release>.wasm from each wasm/go.<release>.mod (the 1.38 engine: its cel-go import path
// rewritten, -tags k8s138, GOTOOLCHAIN from the modfile's `toolchain` line), loaded only for a
// target of its release. Such a build is skipped when cel-<release>.wasm.key holds the hash of
// everything that goes into it (sources, modfile, these scripts, the toolchain), so a checkout
// that only touches files' times does not rebuild it. CEL_ENGINE_BUILDS=1.37 builds only the
// ones named (comma-separated). A build another checkout of the machine made from the same inputs
// (and `go version`, flags) is taken from the user's cache (scripts/user-cache.mjs) instead.
import { execFileSync } from 'node:child_process';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotEngine } from './wasm-snapshot.mjs';
import { applyWeightPatches, INLINE_GCFLAGS } from './wasm-weight.mjs';
import { buildSchemas } from './build-schemas.mjs';
import { engineBuildKey, engineBuilds, engineGoEnv, engineSrcDir, prepareEngineTree } from './engine-builds.mjs';
import { fromCache, keepInCache } from './user-cache.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = engineSrcDir;
const outDir = process.env.CEL_WASM_OUT ? resolve(process.env.CEL_WASM_OUT) : join(root, 'public', 'cel');
const outExec = join(outDir, 'wasm_exec.js');
const BUILD_SCRIPTS = ['build-wasm.mjs', 'wasm-weight.mjs', 'wasm-snapshot.mjs', 'go-symtab.mjs', 'leb128.mjs', 'engine-builds.mjs', 'go-toolchain.mjs'];

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

const buildKey = (build) => engineBuildKey(build, BUILD_SCRIPTS, { plain: !!process.env.CEL_WASM_PLAIN });

const upToDate = (build, outWasm) => {
  if (process.env.CEL_WASM_FORCE || !existsSync(outWasm) || !existsSync(outExec)) return false;
  if (!build.isDefault) return existsSync(`${outWasm}.key`) && readFileSync(`${outWasm}.key`, 'utf8') === buildKey(build);
  return statSync(outWasm).mtimeMs > Math.max(newestMtime(srcDir), ...BUILD_SCRIPTS.map((f) => statSync(join(root, 'scripts', f)).mtimeMs));
};
// Precompressed copies for static servers (nginx gzip_static/brotli_static, Caddy
// precompressed, scripts/serve.mjs); the engine is the app's largest file by far. Written when
// older than cel.wasm (or missing), so an up-to-date engine gets them too.
// CEL_WASM_COMPRESS=fast (npm test's compress:wasm, whose package test checks that the copies are
// there and decompress to the engine, not their size): brotli 5 and gzip 6, ~2 s of CPU an engine
// instead of ~75 s, files ~20% larger. dist/ only: the next `npm run build` empties it.
const fastCompress = process.env.CEL_WASM_COMPRESS === 'fast';
function compressEngine(outWasm) {
  const fresh = (f) => existsSync(f) && statSync(f).mtimeMs >= statSync(outWasm).mtimeMs;
  if (fresh(`${outWasm}.br`) && fresh(`${outWasm}.gz`)) return undefined;
  const bytes = readFileSync(outWasm);
  const br = brotliCompressSync(bytes, {
    params: fastCompress
      ? { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length }
      : { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_LGWIN]: 24, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  const gz = gzipSync(bytes, { level: fastCompress ? 6 : 9 });
  writeFileSync(`${outWasm}.br`, br);
  writeFileSync(`${outWasm}.gz`, gz);
  return { bytes: bytes.length, gz: gz.length, br: br.length };
}
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const compressNow = process.argv.includes('--compress') || process.env.CEL_WASM_COMPRESS !== '0';
const only = process.env.CEL_ENGINE_BUILDS?.split(',').filter(Boolean);
const builds = engineBuilds().filter((b) => !only || only.includes(b.name));

if (process.argv.includes('--compress')) {
  for (const build of builds) {
    const outWasm = join(outDir, build.wasm);
    if (!existsSync(outWasm)) {
      console.error(`build-wasm --compress: no ${outWasm} to compress (build it first)`);
      process.exit(1);
    }
    const t = Date.now();
    const sizes = compressEngine(outWasm);
    console.log(
      sizes
        ? `build-wasm: compressed ${build.wasm} (${mb(sizes.gz)} gzip, ${mb(sizes.br)} brotli) in ${((Date.now() - t) / 1000).toFixed(1)} s`
        : `build-wasm: ${build.wasm}.br and ${build.wasm}.gz are up to date`,
    );
  }
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
const snapshot = process.env.CEL_WASM_SNAPSHOT !== '0';
// The packages the engine links, by import path (the main package as `main`, its symbol prefix).
const linkedPackages = (cwd, flags, env) =>
  execFileSync(go, ['list', ...flags, '-deps', '-f', '{{if eq .Name "main"}}main{{else}}{{.ImportPath}}{{end}}', '.'], { cwd, env, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

/** Links the engine into `outWasm` (not yet snapshotted); the packages it links, by import path. */
async function linkEngine(build, outWasm, env, tagFlags) {
  let packages = [];
  // The snapshot reads the function names (it finds the package initialisers by name) and
  // then drops them unless CEL_WASM_SYMBOLS asks to keep them: the same bytes as -s.
  const ldflags = process.env.CEL_WASM_SYMBOLS || snapshot ? '-ldflags=-w' : '-ldflags=-s -w';
  const work = mkdtempSync(join(tmpdir(), 'cel-wasm-'));
  try {
    prepareEngineTree(build, work);
    if (process.env.CEL_WASM_PLAIN) {
      execFileSync(go, ['build', ...tagFlags, '-trimpath', ldflags, '-o', outWasm, '.'], { cwd: work, stdio: 'inherit', env });
      packages = linkedPackages(work, tagFlags, env);
    } else {
      execFileSync(go, ['mod', 'vendor'], { cwd: work, stdio: 'inherit', env });
      const failed = await applyWeightPatches(join(work, 'vendor'));
      if (failed.length) {
        console.error(`build-wasm: weight patches that no longer apply (re-check scripts/wasm-weight.mjs):\n  ${failed.join('\n  ')}`);
        process.exit(1);
      }
      execFileSync(go, ['build', ...tagFlags, '-mod=vendor', '-trimpath', ldflags, ...INLINE_GCFLAGS, '-o', outWasm, '.'], {
        cwd: work,
        stdio: 'inherit',
        env,
      });
      packages = linkedPackages(work, [...tagFlags, '-mod=vendor'], env);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return packages;
}

async function buildEngine(build) {
  const outWasm = join(outDir, build.wasm);
  if (upToDate(build, outWasm)) {
    if (compressNow) compressEngine(outWasm);
    console.log(`build-wasm: ${outWasm} is up to date`);
    return;
  }
  const t0 = Date.now();
  const env = { ...engineGoEnv(build), GOOS: 'js', GOARCH: 'wasm' };
  const tagFlags = build.tags.length ? ['-tags', build.tags.join(',')] : [];
  let packages = [];
  // go build leaves an output alone whose Go build ID matches; a snapshot keeps that ID but is
  // no longer the linker's output, so the old file goes first.
  rmSync(outWasm, { force: true });
  // the same build another checkout of this machine made (scripts/user-cache.mjs)
  const cacheKey = engineBuildKey(build, BUILD_SCRIPTS, {
    plain: !!process.env.CEL_WASM_PLAIN,
    snapshot,
    symbols: !!process.env.CEL_WASM_SYMBOLS,
    go: execFileSync(go, ['version'], { encoding: 'utf8', env }).trim(),
  });
  const cached = fromCache('engines', build.wasm, cacheKey);
  if (cached) copyFileSync(cached, outWasm);
  else packages = await linkEngine(build, outWasm, env, tagFlags);
  // every generation's Go has the same wasm_exec.js so far (Go 1.26.8 and 1.27.3): the default build's is served
  if (!build.isDefault && !existsSync(outExec)) {
    console.error(`build-wasm: ${outExec} is missing (the default engine's build writes it)`);
    process.exit(1);
  }
  const goroot = execFileSync(go, ['env', 'GOROOT'], { encoding: 'utf8', env }).trim();
  const candidates = [join(goroot, 'lib', 'wasm', 'wasm_exec.js'), join(goroot, 'misc', 'wasm', 'wasm_exec.js')];
  const execJs = candidates.find((p) => existsSync(p));
  if (!execJs) {
    console.error(`build-wasm: wasm_exec.js not found in ${candidates.join(' or ')}`);
    process.exit(1);
  }
  if (build.isDefault) copyFileSync(execJs, outExec);
  else if (readFileSync(execJs, 'utf8') !== readFileSync(outExec, 'utf8')) {
    console.error(`build-wasm: the ${build.name} engine's Go has another wasm_exec.js than the default engine's (${execJs}): serve one per engine first`);
    process.exit(1);
  }
  if (!cached) {
    // The served engine is pre-initialised (scripts/wasm-snapshot.mjs); CEL_WASM_SNAPSHOT=0
    // keeps the plain build, which starts by running every package initialiser.
    if (snapshot) {
      const keepNames = Boolean(process.env.CEL_WASM_SYMBOLS);
      writeFileSync(outWasm, await snapshotEngine(readFileSync(outWasm), readFileSync(outExec, 'utf8'), { packages, keepNames }));
    }
    keepInCache('engines', build.wasm, cacheKey, outWasm);
  }
  const sizes = compressNow ? compressEngine(outWasm) : undefined;
  const size = statSync(outWasm).size;
  if (!build.isDefault) writeFileSync(`${outWasm}.key`, buildKey(build));
  console.log(
    `build-wasm: ${cached ? 'took' : 'built'} ${outWasm}${cached ? ' from the user cache' : ''} (${mb(size)}${sizes ? `, ${mb(sizes.gz)} gzip, ${mb(sizes.br)} brotli` : ', not compressed yet'}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}

for (const build of builds) await buildEngine(build);
