#!/usr/bin/env node
// Builds the CEL engine (wasm/, Go) to public/cel/cel.wasm and copies Go's wasm_exec.js
// next to it. No dependencies. Skips the build when cel.wasm is newer than every file in
// wasm/ (and wasm_exec.js exists). Set CEL_WASM_FORCE=1 to rebuild anyway.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'wasm');
const outDir = join(root, 'public', 'cel');
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

const upToDate =
  !process.env.CEL_WASM_FORCE &&
  existsSync(outWasm) &&
  existsSync(outExec) &&
  statSync(outWasm).mtimeMs > newestMtime(srcDir);
if (upToDate) {
  console.log('build-wasm: public/cel/cel.wasm is up to date');
  process.exit(0);
}

let go = 'go';
try {
  execFileSync(go, ['version'], { stdio: 'ignore' });
} catch {
  console.error('build-wasm: the Go toolchain (go 1.26+) is required to build public/cel/cel.wasm');
  process.exit(1);
}
mkdirSync(outDir, { recursive: true });
const t0 = Date.now();
execFileSync(go, ['build', '-trimpath', '-ldflags=-s -w', '-o', outWasm, '.'], {
  cwd: srcDir,
  stdio: 'inherit',
  env: { ...process.env, GOOS: 'js', GOARCH: 'wasm' },
});
const goroot = execFileSync(go, ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
const candidates = [join(goroot, 'lib', 'wasm', 'wasm_exec.js'), join(goroot, 'misc', 'wasm', 'wasm_exec.js')];
const execJs = candidates.find((p) => existsSync(p));
if (!execJs) {
  console.error(`build-wasm: wasm_exec.js not found in ${candidates.join(' or ')}`);
  process.exit(1);
}
copyFileSync(execJs, outExec);
const size = statSync(outWasm).size;
console.log(`build-wasm: built public/cel/cel.wasm (${(size / 1e6).toFixed(1)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
