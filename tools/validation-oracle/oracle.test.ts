/**
 * Differential test: validate() against the kube-apiserver's own create path
 * (tools/validation-oracle, k8s.io/kubernetes 1.38, 1.37, 1.36 and 1.30), on the validation
 * fixtures, the real-world corpus and deterministic mutants of them. What
 * "agree" means: compare.ts. Every disagreement fails the test and is printed
 * with the mutant's origin, its changes and both sides' errors.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../../fixtures';
import { createCachedCompiler, loadCelFor } from '../../src/cel';
import type { CelCompiler } from '../../src/cel/types';
import { decodeErrors } from '../../src/k8s/registry';
import { validate } from '../../src/k8s/validate-all';
import type { KubernetesVersion } from '../../src/base/releases';
import { buildOracleAsync, ORACLE_BUILDS, runOracle, type OracleBuild, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { compare, oracleLine, ourLine, type Disagreement, type OracleResult, type Ours } from './compare';
import { mutants } from './mutants';

/** Mutants per run (kept at 2,000 or more) and the PRNG seed: change the seed to explore, keep it fixed in CI. */
const MUTANTS = 2500;
const SEED = 0x5eed_2026;

/** One program, four releases: go.mod pins 1.36; `-tags k8s13x -modfile go.1.3x.mod` builds it on 1.38, 1.37 and 1.30. */
const RELEASES: Record<string, OracleBuild> = {
  '1.38': ORACLE_BUILDS['validation-oracle-1.38'],
  '1.37': ORACLE_BUILDS['validation-oracle-1.37'],
  '1.36': ORACLE_BUILDS['validation-oracle-1.36'],
  '1.30': ORACLE_BUILDS['validation-oracle-1.30'],
};

const ADMISSION_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

interface Case {
  id: string;
  changes: string[];
  object: unknown;
}

/** The admission objects of every YAML file in `dir` (a `v1 List` unwrapped: kubectl sends its items one by one), as JSON values. */
function seedsIn(dir: string, label: string): Case[] {
  const out: Case[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => /\.ya?ml$/.test(x))
    .sort()) {
    let i = 0;
    for (const doc of loadAll(readFileSync(join(dir, f), 'utf8'))) {
      const d = doc as { kind?: unknown; items?: unknown } | null;
      const items = d && d.kind === 'List' && Array.isArray(d.items) ? (d.items as unknown[]) : [d];
      for (const item of items) {
        const kind = (item as { kind?: unknown } | null)?.kind;
        if (typeof kind === 'string' && ADMISSION_KINDS.has(kind))
          out.push({ id: `${label}/${f}#${i++}`, changes: [], object: JSON.parse(JSON.stringify(item)) });
      }
    }
  }
  return out;
}

const seeds = [...seedsIn(fixturePath('validation'), 'validation-fixtures'), ...seedsIn(fixturePath('realworld'), 'realworld')];
const cases: Case[] = [
  ...seeds,
  ...mutants(
    seeds.map((s) => ({ id: s.id, object: s.object })),
    MUTANTS,
    SEED,
  ).map((m, i) => ({ id: `mutant ${i} of ${m.from}`, changes: m.changes, object: m.object })),
];

function ours(object: unknown, cel: CelCompiler, kubernetesVersion: KubernetesVersion): Ours {
  const all = validate(object, { cel, kubernetesVersion });
  const errors = all.filter((e) => e.severity !== 'warning');
  const decoded = decodeErrors(object);
  const decoder = new Set(decoded.filter((e) => e.severity !== 'warning').map(ourLine));
  const decoderWarnings = new Set(decoded.filter((e) => e.severity === 'warning').map(ourLine));
  const warnings = all.filter((e) => e.severity === 'warning' && !decoderWarnings.has(ourLine(e))).map((e) => `${e.field}: ${e.message}`);
  return { errors, decodeClass: errors.filter((e) => decoder.has(ourLine(e)) || e.message.includes('illegal base64 data')), warnings };
}

function report(c: Case, d: Disagreement, theirs: OracleResult): string {
  const json = JSON.stringify(c.object);
  return [
    `✗ ${c.id}${c.changes.length ? ` — ${c.changes.join('; ')}` : ''}`,
    `  ${d.why}`,
    ...d.missing.map((l) => `  apiserver only: ${l}`),
    ...d.extra.map((l) => `  validate() only: ${l}`),
    ...(theirs.decodeError ? [] : theirs.errors.length ? [`  apiserver: ${theirs.errors.map(oracleLine).join(' ‖ ')}`] : []),
    ...(theirs.warnings?.length ? [`  apiserver warnings: ${theirs.warnings.join(' ‖ ')}`] : []),
    `  object: ${json.length > 600 ? `${json.slice(0, 600)}…` : json}`,
  ].join('\n');
}

/** A release's oracle: its `-release` answer and its results on every case. */
async function runRelease(build: OracleBuild): Promise<{ release: string; results: OracleResult[] }> {
  const bin = await buildOracleAsync(build);
  if (bin.built) console.info(`built ${build.name} in ${bin.seconds.toFixed(1)} s`);
  const release = (await runOracle(bin.path, '', ['-release'])).trim();
  return { release, results: JSON.parse(await runOracle(bin.path, JSON.stringify(cases.map((c) => c.object)))) as OracleResult[] };
}

// Every release's oracle starts at once, in its own process: each runs while the worker compares
// the answers of another (a rejection is handled where it is awaited, in the release's beforeAll).
const runs = new Map<string, Promise<{ release: string; results: OracleResult[] }>>();
let cel: CelCompiler;
beforeAll(async () => {
  for (const [release, build] of Object.entries(RELEASES)) {
    const run = runRelease(build);
    run.catch(() => {});
    runs.set(release, run);
  }
  // every release's engine generation (the 1.38 engine too): validate()'s compiles are synchronous
  for (const release of Object.keys(RELEASES)) await loadCelFor(release);
  // the app's own compiler (the browser's): a result kept by expression, context and options (the
  // release among them), so an expression the mutants share with their seed compiles once a release
  cel = createCachedCompiler(() => {});
}, 120_000);

describe.each(Object.entries(RELEASES))('validate() agrees with the apiserver %s', (release, build) => {
  const version = release as KubernetesVersion;
  let results: OracleResult[];

  beforeAll(async () => {
    const run = await runs.get(release)!;
    expect(run.release, `${build.name} -release`).toBe(release);
    results = run.results;
  }, ORACLE_TEST_TIMEOUT);

  it(`on ${seeds.length} fixture and corpus objects and ${MUTANTS} mutants (seed ${SEED})`, () => {
    expect(results).toHaveLength(cases.length);
    const failures: string[] = [];
    let withErrors = 0;
    cases.forEach((c, i) => {
      const theirs = results[i]!;
      if (theirs.decodeError || theirs.errors.length) withErrors++;
      const d = compare(theirs, ours(c.object, cel, version));
      if (d) failures.push(report(c, d, theirs));
    });
    // ORACLE_REPORT=file: every disagreement, not just the first 40 (for working through them)
    if (process.env.ORACLE_REPORT) writeFileSync(`${process.env.ORACLE_REPORT}.${release}.txt`, failures.join('\n\n'));
    console.info(`apiserver ${release}: ${cases.length} objects compared (${withErrors} rejected by the apiserver), ${failures.length} disagreements`);
    // the mutants must exercise rejections, or the comparison says little
    expect(withErrors).toBeGreaterThan(cases.length / 4);
    expect(failures, `${failures.length} disagreements with the apiserver ${release}:\n\n${failures.slice(0, 40).join('\n\n')}`).toEqual([]);
    // validate() on every case compiles thousands of expressions: 10-30 s on a busy 2-core machine
  }, 600_000);
});
