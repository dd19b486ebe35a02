#!/usr/bin/env node
/**
 * Migration benchmark (part of npm run bench): `admission-workbench convert`, as a user or CI runs it
 * (a new Node process each run, engine start included), on the repository's Gatekeeper and Kyverno
 * fixtures with their tests, and on whole libraries named by BENCH_MIGRATE_LIBRARY (folders,
 * comma-separated: e.g. a checkout of kyverno/policies; target: under 10 s each). Each row gives the
 * median wall time of 3 runs beside its floor (the engine's start: `check` of an empty file), the
 * rules by source kind and status as `convert --format json` reports them, and the imported tests.
 *
 * "exact" here is the converter's own word. What makes it true is the differential against the
 * projects' engines (tools/kyverno-oracle, tools/gatekeeper-oracle, in npm test); the share of a
 * pattern library's rules that hold there is measured by scripts/kyverno-pattern-measure.mjs, which
 * this runs when BENCH_KYVERNO_PATTERN_LIBRARY names the library (it takes tens of minutes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, timeCli as time } from './bench-cli-run.mjs';

buildCli();

/** "ValidatingPolicy 80 exact, 5 different, 7 not convertible; …" and the tests, from convert's JSON. */
function summary(json) {
  const byKind = new Map();
  let passed = 0;
  let failed = 0;
  let differs = 0;
  for (const r of json.rules) {
    const row = byKind.get(r.source.kind) ?? { exact: 0, different: 0, unsupported: 0 };
    row[r.status]++;
    byKind.set(r.source.kind, row);
    passed += r.tests?.passed ?? 0;
    failed += r.tests?.failed.length ?? 0;
    differs += r.tests?.differs?.length ?? 0;
  }
  const counts = (r) => ['exact', 'different', 'unsupported'].filter((s) => r[s]).map((s) => `${r[s]} ${s === 'unsupported' ? 'not convertible' : s}`);
  const kinds = [...byKind].map(([k, r]) => `${k} ${counts(r).join(', ')}`);
  return `${json.rules.length} rules: ${kinds.join('; ')}; imported tests ${passed} passed, ${failed} failed, ${differs} decided differently by the source tool${json.unread?.length ? `; ${json.unread.length} documents no converter reads` : ''}`;
}

const dir = mkdtempSync(join(tmpdir(), 'aw-bench-migrate-'));
try {
  writeFileSync(join(dir, 'empty.yaml'), '');
  console.log('\n## Migration: admission-workbench convert (a new Node process each run, engine start included; median of 3)');
  const floor = time(['check', join(dir, 'empty.yaml')]);
  console.log(`floor, the engine's start (check of an empty file): ${floor.ms.toFixed(0)} ms`);
  const fixtures = ['fixtures/kyverno', 'fixtures/gatekeeper', 'fixtures/kyverno-pattern', 'fixtures/kyverno-mutate'];
  const libraries = (process.env.BENCH_MIGRATE_LIBRARY ?? '').split(',').filter(Boolean);
  for (const folder of [...fixtures, ...libraries]) {
    const r = time(['convert', folder, '--format', 'json']);
    let line;
    try {
      line = summary(JSON.parse(r.stdout));
    } catch {
      line = `no report (exit ${r.code}): ${r.stderr.trim().split('\n').pop()}`;
    }
    const target = libraries.includes(folder) ? ' (target < 10 s)' : '';
    console.log(`${folder}: ${(r.ms / 1000).toFixed(2)} s${target}, exit ${r.code}; ${line}`);
  }
  const library = process.env.BENCH_KYVERNO_PATTERN_LIBRARY;
  if (library) {
    console.log(`\n## Kyverno pattern library against the Kyverno engine (${library}, 200 mutants a rule)`);
    spawnSync('node', ['scripts/kyverno-pattern-measure.mjs', library, '200'], { stdio: 'inherit' });
  } else console.log('(the pattern library against the Kyverno engine: BENCH_KYVERNO_PATTERN_LIBRARY=<folder> npm run bench)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
