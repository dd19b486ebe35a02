#!/usr/bin/env node
// `npm run package`: the release artifacts, in dist-package/ (ignored by git), named after
// package.json's version:
//
//   admission-workbench-site-<version>.tar.gz (+ .sha256)  the static site (dist/, `npm run build`),
//       its files at the archive's top level, to unpack into any directory of a static host
//       (the build uses relative paths: base './')
//   admission-workbench-<version>.tgz (+ .sha256)          the CLI, `npm pack` of what package.json's
//       `files` selects: bin/, the bundle with its npm packages inside (dist-cli/) and the
//       WebAssembly CEL engine with its schema assets (public/cel); no dependencies to install
//
// The CLI is packed from a copy (dist-package/cli/) whose package.json has no scripts and no
// devDependencies: an installed package with a `prepare` script makes npm warn about install
// scripts, and that script (a Vite build) could not run there.
// The .sha256 files are in sha256sum's format (`sha256sum -c` checks them).
//   --no-build   packs the dist/ already built (npm test's package step runs after its build)
//   --prepack    npm pack's `prepack` (also run when npm installs from git): builds the engine
//                the CLI carries when it is missing or older than wasm/ (Go needed then),
//                without the precompressed copies only the site serves, and fails when a file
//                of it is missing, rather than pack a CLI without its engine.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaDataReleases } from './schema-data.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outDir = join(root, 'dist-package');

/** The engine files the CLI's tarball must hold (package.json `files`): the engine, Go's loader and the schema asset of every release (build-schemas.mjs). */
const engineFiles = () => ['cel.wasm', 'wasm_exec.js', ...schemaDataReleases().map((v) => `schemas-${v}.json`)];

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

/** Runs a command in `cwd` (its output shown, or returned with `capture`); fails the packaging when it fails. */
function run(command, args, { env = {}, cwd = root, capture = false } = {}) {
  const r = spawnSync(command, args, {
    cwd,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...env },
    shell: process.platform === 'win32',
  });
  if (r.status !== 0) fail(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  return r.stdout;
}

/** npm itself: the one running this script when there is one (npm run package), else npm on the PATH. */
const npm = (args, options) =>
  /npm-cli\.js$/.test(process.env.npm_execpath ?? '') ? run(process.execPath, [process.env.npm_execpath, ...args], options) : run('npm', args, options);

/** The engine for the CLI: built when missing or stale (no .br/.gz copies), then every file checked. */
function prepareEngine() {
  run(process.execPath, [join(root, 'scripts', 'build-wasm.mjs')], { env: { CEL_WASM_COMPRESS: '0' } });
  const missing = engineFiles().filter((f) => !existsSync(join(root, 'public', 'cel', f)));
  if (missing.length) fail(`public/cel/ lacks ${missing.join(', ')}: the CLI's tarball would have no CEL engine (npm run build:wasm)`);
}

/** Writes `<file>.sha256` in sha256sum's format; returns the digest. */
function writeSha256(file) {
  const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
  writeFileSync(`${file}.sha256`, `${digest}  ${basename(file)}\n`);
  return digest;
}

const mb = (file) => `${(statSync(file).size / 1e6).toFixed(1)} MB`;

if (process.argv.includes('--prepack')) {
  prepareEngine();
  process.exit(0);
}

if (!process.argv.includes('--no-build')) npm(['run', 'build']);
for (const f of ['index.html', 'cel/cel.wasm'])
  if (!existsSync(join(root, 'dist', f))) fail(`dist/${f} is missing: build the site first (npm run build), or leave out --no-build`);

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

// The site: dist/'s files at the top of the archive, with their build times (a static server's
// Last-Modified and ETag come from them: equal times across releases would validate an old cel.wasm).
const site = join(outDir, `admission-workbench-site-${version}.tar.gz`);
run('tar', ['-czf', site, '-C', join(root, 'dist'), '.']);
const siteSha = writeSha256(site);

// The CLI: the engine and the bundle, the files `npm pack` selects copied with a package.json for
// users, packed there. The bundle is built into the stage, not dist-cli/: the CLI's tests may be
// running it meanwhile (npm test runs this beside them), and a build empties its folder first.
prepareEngine();
const stage = join(outDir, 'cli');
run(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.cli.config.ts', '--outDir', join(stage, 'dist-cli')]);
const [listing] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], { capture: true }));
for (const { path } of listing.files) if (path !== 'package.json' && !path.startsWith('dist-cli/')) cpSync(join(root, path), join(stage, path));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const key of ['scripts', 'devDependencies']) delete manifest[key]; // the bundle holds every npm package it uses: none left to declare
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
npm(['pack', '--pack-destination', outDir], { cwd: stage, capture: true });
rmSync(stage, { recursive: true });
const cli = join(outDir, `admission-workbench-${version}.tgz`);
if (!existsSync(cli)) fail(`npm pack wrote no ${basename(cli)}`);
const cliSha = writeSha256(cli);

console.log(`package: ${basename(site)} (${mb(site)}, sha256 ${siteSha})`);
console.log(`package: ${basename(cli)} (${mb(cli)}, sha256 ${cliSha})`);
