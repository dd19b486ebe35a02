#!/usr/bin/env node
// Builds the CEL engine (wasm/, Go) natively for the CLI: node_modules/.cache/admission-workbench/cel-native
// (ignored by git; CEL_NATIVE=path builds there instead). The same Go program as cel.wasm,
// built without the js/wasm tags: main_native.go's `serve` answers ops.go's operations over
// stdin/stdout (src/cel/native.ts is the other side). A plain `go build` of the module (no
// vendored weight patches: the binary is not downloaded). Skips the build when the binary is
// newer than every file in wasm/ and this script; CEL_NATIVE_FORCE=1 rebuilds anyway.
// Needs Go 1.26+ and the module proxy (or a module cache holding wasm/go.sum's modules).
// `--optional` (npm install's prepare, npm run build): without Go, or when the build fails, it
// says so and that the CLI will use the WebAssembly engine, and exits 0: the fast path is
// wanted wherever it can be built, and its absence must not fail an install.
// Every engine generation (scripts/engine-builds.mjs) is built: another one (the 1.38 engine) as
// `cel-native-<release>` beside the default, from a prepared copy of wasm/ (its modfile, the
// k8s<release> tag, GOTOOLCHAIN from the modfile), skipped when `<binary>.key` holds the hash of
// its inputs. CEL_ENGINE_BUILDS=1.37 builds only the ones named.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineBuildKey, engineBuilds, engineGoEnv, prepareEngineTree } from './engine-builds.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'wasm');
const optional = process.argv.includes('--optional');
const out = process.env.CEL_NATIVE ? resolve(process.env.CEL_NATIVE) : join(root, 'node_modules', '.cache', 'admission-workbench', 'cel-native');

/** Newest modification time of the engine's sources (what src/cel/native.ts compares too). */
function newestSource(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (!e.name.endsWith('_test.go')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Why the engine was not built: an error, or with --optional a notice and success. */
function notBuilt(why) {
  if (!optional) {
    console.error(`build-native: ${why}`);
    process.exit(1);
  }
  console.warn(
    `build-native: the native CEL engine was not built: ${why}.\n` +
      'build-native: the CLI will use the WebAssembly engine (slower impact replays); `npm run build:native` builds the native one once Go is there.',
  );
  process.exit(0);
}

// an installed package has no engine sources: nothing to build (it carries the WebAssembly engine)
if (!existsSync(join(srcDir, 'go.mod'))) {
  if (optional) process.exit(0);
  notBuilt(`no engine sources in ${srcDir}`);
}
const buildKey = (build) => engineBuildKey(build, ['build-native.mjs', 'engine-builds.mjs', 'go-toolchain.mjs']);

const only = process.env.CEL_ENGINE_BUILDS?.split(',').filter(Boolean);
let checkedGo = false;
for (const build of engineBuilds().filter((b) => !only || only.includes(b.name))) {
  const bin = build.isDefault ? out : `${out}-${build.name}`;
  const fresh = build.isDefault
    ? existsSync(bin) && statSync(bin).mtimeMs > Math.max(newestSource(srcDir), statSync(fileURLToPath(import.meta.url)).mtimeMs)
    : existsSync(bin) && existsSync(`${bin}.key`) && readFileSync(`${bin}.key`, 'utf8') === buildKey(build);
  if (!process.env.CEL_NATIVE_FORCE && fresh) {
    console.log(`build-native: the native CEL engine${build.isDefault ? '' : ` of ${build.name}`} is up to date`);
    continue;
  }
  if (!checkedGo) {
    try {
      execFileSync('go', ['version'], { stdio: 'ignore' });
    } catch {
      notBuilt('the Go toolchain (go 1.26+) is required to build it and `go` was not found');
    }
    checkedGo = true;
  }
  mkdirSync(dirname(bin), { recursive: true });
  const t0 = Date.now();
  // go build leaves an output alone whose build ID matches: remove it so the mtime says "built now".
  rmSync(bin, { force: true });
  rmSync(`${bin}.key`, { force: true });
  const env = { ...engineGoEnv(build), CGO_ENABLED: '0' };
  delete env.GOOS;
  delete env.GOARCH;
  if (optional) console.log('build-native: building the native CEL engine for the CLI (Go; a few minutes the first time, seconds with a warm Go cache)…');
  // the default engine builds in wasm/ itself; another generation from a prepared copy
  const work = build.isDefault ? srcDir : mkdtempSync(join(tmpdir(), 'cel-native-'));
  try {
    if (!build.isDefault) prepareEngineTree(build, work);
    const tags = build.tags.length ? ['-tags', build.tags.join(',')] : [];
    execFileSync('go', ['build', ...tags, '-trimpath', '-ldflags=-s -w', '-o', bin, '.'], { cwd: work, stdio: 'inherit', env });
  } catch (e) {
    rmSync(bin, { force: true });
    notBuilt(
      `go build${build.isDefault ? '' : ` of the ${build.name} engine`} failed (${e.status !== null && e.status !== undefined ? `exit ${e.status}` : e.message})`,
    );
  } finally {
    if (!build.isDefault) rmSync(work, { recursive: true, force: true });
  }
  if (!build.isDefault) writeFileSync(`${bin}.key`, buildKey(build));
  console.log(`build-native: built ${bin} (${(statSync(bin).size / 1e6).toFixed(1)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
