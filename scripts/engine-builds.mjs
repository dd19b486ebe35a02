// The CEL engine builds, one per engine generation, all from the one wasm/ tree. wasm/go.mod is
// the default engine (public/cel/cel.wasm, the native `cel-native`); every wasm/go.<release>.mod
// (with its go.<release>.sum) is another generation named by that release (cel-<release>.wasm,
// `cel-native-<release>`): the same sources on that release's k8s.io modules, built with the
// build tag k8s<major><minor> (`k8s138`: the few files that follow an API change of its cel-go or
// k8s.io/apiserver) and GOTOOLCHAIN from the modfile's `toolchain` line. A modfile whose cel-go
// is cel.dev/cel-go (the module's path from v0.30) gets the sources' github.com/google/cel-go
// imports rewritten in the build's copy. The release table names each row's engine
// (src/base/releases.ts `engine`); src/cel/engine-builds.test.ts checks every one has a build.
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolchainOf } from './go-toolchain.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const engineSrcDir = join(root, 'wasm');

const OLD_CEL_GO = 'github.com/google/cel-go';
const NEW_CEL_GO = 'cel.dev/cel-go';

/** The release a modfile's k8s.io/apiserver is (v0.37.2 → 1.37). */
function apiserverRelease(text, file) {
  const m = /^\s*k8s\.io\/apiserver v0\.(\d+)\.\d+\S*/m.exec(text);
  if (!m) throw new Error(`wasm/${file}: no k8s.io/apiserver requirement`);
  return `1.${m[1]}`;
}

/** Every engine build, the default (wasm/go.mod) first. */
export function engineBuilds(dir = engineSrcDir) {
  const builds = [];
  for (const f of readdirSync(dir).sort()) {
    const named = /^go\.(1\.\d+)\.mod$/.exec(f);
    if (f !== 'go.mod' && !named) continue;
    const text = readFileSync(join(dir, f), 'utf8');
    const name = apiserverRelease(text, f);
    if (named && named[1] !== name) throw new Error(`wasm/${f} builds on k8s.io/apiserver of ${name}, not ${named[1]}`);
    const isDefault = f === 'go.mod';
    builds.push({
      name,
      isDefault,
      modfile: f,
      sumfile: f.replace(/\.mod$/, '.sum'),
      wasm: isDefault ? 'cel.wasm' : `cel-${name}.wasm`,
      native: isDefault ? 'cel-native' : `cel-native-${name}`,
      tags: isDefault ? [] : [`k8s${name.replace('.', '')}`],
      toolchain: toolchainOf(text),
      rewriteCelGo: new RegExp(`^\\s*${NEW_CEL_GO.replace('.', '\\.')} v`, 'm').test(text),
    });
  }
  builds.sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
  return builds;
}

/** The build named `name` (undefined: the default). */
export function engineBuild(name) {
  const all = engineBuilds();
  const b = name ? all.find((x) => x.name === name) : all[0];
  if (!b) throw new Error(`no engine build ${name} (wasm/go.${name}.mod): ${all.map((x) => x.name).join(', ')}`);
  return b;
}

/**
 * Copies wasm/ into `work` as the module `build` compiles: its modfile as go.mod (and go.sum),
 * the other generations' modfiles left out, the cel-go imports rewritten when its cel-go is
 * cel.dev/cel-go. `keepTests` keeps the _test.go files (go vet / go test of a build).
 */
export function prepareEngineTree(build, work, { keepTests = false } = {}) {
  cpSync(engineSrcDir, work, {
    recursive: true,
    filter: (p) => {
      const base = p.slice(p.lastIndexOf('/') + 1);
      if (p.includes('/vendor')) return false;
      if (!keepTests && base.endsWith('_test.go')) return false;
      return !/^go(\.1\.\d+)?\.(mod|sum)$/.test(base);
    },
  });
  writeFileSync(join(work, 'go.mod'), readFileSync(join(engineSrcDir, build.modfile)));
  writeFileSync(join(work, 'go.sum'), readFileSync(join(engineSrcDir, build.sumfile)));
  if (!build.rewriteCelGo) return;
  for (const f of readdirSync(work)) {
    if (!f.endsWith('.go')) continue;
    const p = join(work, f);
    const text = readFileSync(p, 'utf8');
    if (text.includes(`"${OLD_CEL_GO}`)) writeFileSync(p, text.replaceAll(`"${OLD_CEL_GO}`, `"${NEW_CEL_GO}`));
  }
}

/** The environment of the go command for `build` (GOTOOLCHAIN from its modfile's `toolchain` line). */
export function engineGoEnv(build, env = process.env) {
  return build.toolchain ? { ...env, GOTOOLCHAIN: build.toolchain } : env;
}

/**
 * The hash of what a build's output is built from: its sources, modfile pair, tags, toolchain, the
 * `scripts` that build it and `extra` settings (a non-default build's skip key, kept beside it as `.key`).
 */
export function engineBuildKey(build, scripts, extra = {}) {
  const h = createHash('sha256').update(JSON.stringify({ tags: build.tags, toolchain: build.toolchain ?? '', ...extra }));
  const files = readdirSync(engineSrcDir).filter((f) => (f.endsWith('.go') && !f.endsWith('_test.go')) || f === build.modfile || f === build.sumfile);
  for (const f of files.sort())
    h.update(f)
      .update('\0')
      .update(readFileSync(join(engineSrcDir, f)))
      .update('\0');
  for (const f of scripts) h.update(readFileSync(join(root, 'scripts', f)));
  return h.digest('hex');
}
