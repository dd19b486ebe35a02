#!/usr/bin/env node
// npm run schemas:generate [-- --check] [-- 1.31 1.32 …]
//
// Regenerates the checked-in schema data (tools/typecheck-oracle/schemas/<release>.json, see
// scripts/schema-data.mjs) from the Go modules: for each release, tools/typecheck-oracle is built
// on that release's k8s.io modules (go.mod for the newest, `-modfile go.1.N.mod` for the others)
// and its `schemas` command writes the definitions. One Go build of k8s.io/kubernetes'
// generated OpenAPI per release (a few minutes for all on a warm cache), which is why the build
// reads the checked-in data instead.
//
// A release with type-checking fixtures (tools/typecheck-oracle/testdata/warnings-<release>.json)
// also runs the oracle's Go test on its modules, which rewrites that file (UPDATE=1).
//
// --check writes nothing and exits 1 when a release's data differs from a regeneration (the
// names of the definitions that differ are printed) or its warnings from the real type
// checker's: how the releases the test suite does not build the oracle for (1.31–1.35) are
// checked. Without release arguments: every modfile's release.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSchemaData, schemaDataFile } from './schema-data.mjs';
import { deriveTypedData, typedDataFile, typedDifferences } from './typed-data.mjs';
import { goEnvFor } from './go-toolchain.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolDir = join(root, 'tools', 'typecheck-oracle');

/**
 * release → the modfile tools/typecheck-oracle is built with for it and the k8s.io module
 * versions it pins (a `replace` target, else the requirement): go.mod for the release of the
 * k8s.io/kubernetes it requires, go.1.N.mod for the others.
 */
export function schemaBuilds() {
  const builds = {};
  for (const f of readdirSync(toolDir)) {
    if (f !== 'go.mod' && !/^go\.1\.\d+\.mod$/.test(f)) continue;
    const text = readFileSync(join(toolDir, f), 'utf8');
    const modules = {};
    for (const m of text.matchAll(/^\s*(k8s\.io\/[\w.-]+) (v[^\s]+)\s*(?:\/\/.*)?$/gm)) modules[m[1]] ??= m[2];
    for (const m of text.matchAll(/^\s*(k8s\.io\/[\w.-]+) => \S+ (v[^\s]+)\s*$/gm)) modules[m[1]] = m[2];
    const v = /^v1\.(\d+)\.\d+(?:-[\w.]+)?$/.exec(modules['k8s.io/kubernetes'] ?? '');
    if (!v) throw new Error(`tools/typecheck-oracle/${f}: no k8s.io/kubernetes requirement`);
    builds[`1.${v[1]}`] = { modfile: f, kubernetes: modules['k8s.io/kubernetes'], modules };
  }
  return builds;
}

/** The oracle's asset for a release, parsed (builds the oracle into `work`). */
export function deriveSchemas(release, modfile, work) {
  const bin = join(work, `typecheck-oracle-${release}`);
  const out = join(work, `schemas-${release}.json`);
  const flags = modfile === 'go.mod' ? [] : [`-modfile=${modfile}`];
  execFileSync('go', ['build', ...flags, '-o', bin, '.'], {
    cwd: toolDir,
    stdio: 'inherit',
    env: { ...goEnvFor(join(toolDir, modfile)), GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim() },
  });
  execFileSync(bin, ['schemas', out], { stdio: 'inherit' });
  const asset = JSON.parse(readFileSync(out, 'utf8'));
  if (asset.release !== release) throw new Error(`${modfile} built release ${asset.release}, expected ${release}`);
  return asset;
}

/**
 * The oracle's own test (TestFixtures: the real type checker on testdata/cases.json against
 * testdata/warnings-<release>.json) on a release's modules, when that release has the file;
 * `update` rewrites it. false when the test failed (its output printed).
 */
export function checkWarnings(release, modfile, update) {
  if (!existsSync(join(toolDir, 'testdata', `warnings-${release}.json`))) return true;
  const flags = modfile === 'go.mod' ? [] : [`-modfile=${modfile}`];
  try {
    execFileSync('go', ['test', '-count=1', '-vet=off', ...flags, '.'], {
      cwd: toolDir,
      stdio: 'inherit',
      env: { ...goEnvFor(join(toolDir, modfile)), GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim(), ...(update ? { UPDATE: '1' } : {}) },
    });
    return true;
  } catch {
    return false;
  }
}

/** The definitions and GVKs whose lines differ between two data texts. */
export function dataDifferences(a, b) {
  const x = JSON.parse(a);
  const y = JSON.parse(b);
  const out = [];
  for (const key of ['release', 'generatedBy', 'modules']) if (JSON.stringify(x[key]) !== JSON.stringify(y[key])) out.push(key);
  for (const part of ['gvks', 'definitions']) {
    const names = new Set([...Object.keys(x[part] ?? {}), ...Object.keys(y[part] ?? {})]);
    for (const n of [...names].sort()) if (JSON.stringify(x[part]?.[n]) !== JSON.stringify(y[part]?.[n])) out.push(`${part}.${n}`);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const builds = schemaBuilds();
  const releases = args.filter((a) => !a.startsWith('--'));
  for (const r of releases) if (!builds[r]) throw new Error(`no modfile for ${r} in tools/typecheck-oracle (go.${r}.mod)`);
  const work = mkdtempSync(join(tmpdir(), 'schemas-'));
  let stale = 0;
  try {
    for (const [release, { modfile }] of Object.entries(builds)) {
      if (releases.length && !releases.includes(release)) continue;
      const t0 = Date.now();
      const text = formatSchemaData(deriveSchemas(release, modfile, work));
      const file = schemaDataFile(release);
      const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
      const seconds = ((Date.now() - t0) / 1000).toFixed(0);
      if (old === text) console.log(`schemas:generate: ${release} (${modfile}) unchanged (${seconds} s)`);
      else if (check) {
        stale++;
        const diff = old ? dataDifferences(old, text) : ['(no data file)'];
        console.error(
          `schemas:generate: ${release} (${modfile}): the checked-in data differs from a regeneration in ${diff.length}: ${diff.slice(0, 20).join(', ')}${diff.length > 20 ? ', …' : ''}`,
        );
      } else {
        writeFileSync(file, text);
        console.log(`schemas:generate: ${release} (${modfile}) written, ${(text.length / 1e3).toFixed(0)} kB (${seconds} s)`);
      }
      // the same binary's `types`: how the release's apiserver decodes built-in kinds (src/k8s/typed/data)
      const typed = deriveTypedData(join(work, `typecheck-oracle-${release}`), work, release);
      const typedFile = typedDataFile(release);
      const oldTyped = existsSync(typedFile) ? readFileSync(typedFile, 'utf8') : '';
      if (oldTyped === typed) console.log(`schemas:generate: ${release} type data unchanged`);
      else if (check) {
        stale++;
        const diff = oldTyped ? typedDifferences(oldTyped, typed) : ['(no data file)'];
        console.error(`schemas:generate: ${release}: the checked-in type data differs from a regeneration in ${diff.length}: ${diff.slice(0, 20).join(', ')}`);
      } else {
        writeFileSync(typedFile, typed);
        console.log(`schemas:generate: ${release} type data written, ${(typed.length / 1e3).toFixed(0)} kB`);
      }
      if (!checkWarnings(release, modfile, !check)) {
        stale++;
        console.error(`schemas:generate: ${release}: the real type checker's warnings differ from testdata/warnings-${release}.json`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (stale) {
    console.error('schemas:generate: run `npm run schemas:generate` and commit tools/typecheck-oracle/schemas/, testdata/ and src/k8s/typed/data/');
    process.exit(1);
  }
}
