#!/usr/bin/env node
// `npm run lint`: the format and lint checks, failing on any drift (docs/architecture.md, Formatting and lint).
//
//   biome  `biome ci`: the TypeScript and JavaScript formatted as `npm run format` writes them, and Biome's
//          lint rules (biome.jsonc); warnings fail too, so that none piles up
//   gofmt  `gofmt -l` on wasm/ and tools/: any file listed is not formatted
//   vet    `go vet` on every Go module under wasm/ and tools/ (each go.mod); wasm/ twice, as the
//          WebAssembly engine (GOOS=js GOARCH=wasm, main_js.go) and as the native one (main_native.go)
//   vet-engine  the native engine alone (wasm/, main_native.go): what npm test runs. go vet type-checks
//          every dependency from source for its facts, and on a fresh machine the oracles'
//          dependencies (Kubernetes, Kyverno, Gatekeeper, two toolchains) cost ~800 s of CPU, and
//          the WebAssembly build's (every package compiled again for js/wasm: build:wasm compiles
//          weight-patched copies, which vet cannot reuse) ~510 s, for main_js.go's 92 lines, which
//          build:wasm compiles anyway; the oracles are test code, compiled and run by npm test.
//          Both are vetted here, by `vet`
//
// `node scripts/lint.mjs biome gofmt` runs only the named checks (npm test runs vet as its own step,
// after the Go tests have compiled the same packages). Every check runs; the exit code is non-zero
// when any failed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GO_DIRS = ['wasm', 'tools'];

/** The directories under dir holding a go.mod (not inside node_modules or testdata). */
function goModules(dir) {
  const out = [];
  const walk = (d) => {
    const entries = readdirSync(d, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === 'go.mod')) out.push(d);
    for (const e of entries) if (e.isDirectory() && !['node_modules', 'testdata', 'vendor'].includes(e.name) && !e.name.startsWith('.')) walk(join(d, e.name));
  };
  walk(join(root, dir));
  return out.sort();
}

/** Runs a command in the foreground; true when it exited 0. */
function run(label, cmd, args, options = {}) {
  console.log(`lint: ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
  if (r.error) console.error(`lint: ${label}: ${r.error.message}`);
  return r.status === 0;
}

const CHECKS = {
  biome: () =>
    run('biome ci (format and lint)', process.execPath, [
      join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'),
      'ci',
      '--error-on-warnings',
      ...(process.stdout.isTTY ? [] : ['--colors=off']),
      '.',
    ]),
  gofmt: () => {
    console.log(`lint: gofmt -l ${GO_DIRS.join(' ')}`);
    const r = spawnSync('gofmt', ['-l', ...GO_DIRS], { cwd: root, encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      console.error(`lint: gofmt failed: ${r.error?.message ?? r.stderr}`);
      return false;
    }
    const files = r.stdout.split('\n').filter(Boolean);
    if (files.length) console.error(`lint: not gofmt-formatted (npm run format writes them):\n  ${files.join('\n  ')}`);
    return files.length === 0;
  },
  vet: () => vet(GO_DIRS.flatMap(goModules)),
  'vet-engine': () => vet(goModules('wasm'), { webAssembly: false }),
};

/**
 * `go vet ./...` in each module directory; wasm/ as both of its builds unless `webAssembly` is
 * false. The native build with build:native's settings (`CGO_ENABLED=0`, `-trimpath`), as
 * `npm run test:go` does, so that all three reuse one set of compiled packages.
 */
function vet(dirs, { webAssembly = true } = {}) {
  let ok = true;
  for (const dir of dirs) {
    const rel = relative(root, dir);
    const env = { ...process.env };
    delete env.GOOS;
    delete env.GOARCH;
    const native = rel === 'wasm' ? { args: ['-trimpath'], env: { ...env, CGO_ENABLED: '0' } } : { args: [], env };
    ok = run(`go vet ./... in ${rel}`, 'go', ['vet', ...native.args, './...'], { cwd: dir, env: native.env }) && ok;
    // the engine's WebAssembly build has its own main (main_js.go): vet that build too
    if (rel === 'wasm' && webAssembly)
      ok = run(`go vet ./... in ${rel} (GOOS=js GOARCH=wasm)`, 'go', ['vet', './...'], { cwd: dir, env: { ...env, GOOS: 'js', GOARCH: 'wasm' } }) && ok;
  }
  return ok;
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !CHECKS[w]);
if (unknown.length) {
  console.error(`lint: unknown check ${unknown.join(', ')} (the checks: ${Object.keys(CHECKS).join(', ')})`);
  process.exit(2);
}
// with no names: every check (vet-engine is a part of vet)
const failed = (wanted.length ? wanted : ['biome', 'gofmt', 'vet']).filter((name) => !CHECKS[name]());
if (failed.length) console.error(`lint: failed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
