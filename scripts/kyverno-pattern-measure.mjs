#!/usr/bin/env node
/**
 * The share of a Kyverno pattern library's rules converted exactly, per rule type:
 *   node scripts/kyverno-pattern-measure.mjs <library folder> [mutants per rule]
 * Runs src/migrate/kyverno-pattern/differential.test.ts over the folder (each converted rule against
 * the Kyverno engine on its test resources and their mutants) and counts a rule exact only when the
 * converter calls it exact and the differential found no disagreement.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const mutateOnly = args.includes('--mutate');
const [folder, mutants = '200'] = args.filter((a) => a !== '--mutate');
if (!folder) {
  console.error('usage: node scripts/kyverno-pattern-measure.mjs [--mutate] <library folder> [mutants per rule]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'aw-kyverno-'));
const runTest = (file, prefix) => {
  const report = join(dir, `${prefix}.json`);
  const run = spawnSync('npx', ['vitest', 'run', file], {
    stdio: 'inherit',
    env: { ...process.env, [`${prefix}_CORPUS`]: resolve(folder), [`${prefix}_MUTANTS`]: mutants, [`${prefix}_REPORT`]: report },
  });
  return { status: run.status, ...JSON.parse(readFileSync(report, 'utf8')) };
};
const mutate = runTest('src/migrate/kyverno-pattern/mutate.differential.test.ts', 'KYVERNO_MUTATE');
const pattern = mutateOnly ? { status: 0, rules: [], differential: [] } : runTest('src/migrate/kyverno-pattern/differential.test.ts', 'KYVERNO_PATTERN');
const rules = [...pattern.rules.filter((r) => r.type !== 'mutate'), ...mutate.rules];
const differential = [...pattern.differential, ...mutate.differential];
const run = { status: pattern.status || mutate.status };
const held = new Map(differential.map((d) => [`${d.policy}/${d.rule}`, d]));
const rows = {};
let tried = 0;
let disagreeing = 0;
for (const r of rules) {
  const row = (rows[r.type] ??= { rules: 0, exact: 0, different: 0, unsupported: 0, refuted: 0 });
  row.rules++;
  const d = held.get(`${r.policy}/${r.rule}`);
  if (d) tried += d.tried;
  if (d?.count) disagreeing++;
  // validate rules: objects that reached the rule (Kyverno evaluated it); mutate rules: objects tried
  if (r.status === 'exact' && d && d.count === 0 && (d.reached ?? d.objects) >= Number(mutants)) row.exact++;
  else if (r.status === 'exact') row.refuted++;
  else row[r.status]++;
}
console.log(
  '\n| type | rules | exact | different | not convertible | called exact, not held (a disagreement, or fewer resources than asked) |\n| --- | --- | --- | --- | --- | --- |',
);
for (const [type, r] of Object.entries(rows))
  console.log(`| ${type} | ${r.rules} | ${r.exact} (${Math.round((100 * r.exact) / r.rules)}%) | ${r.different} | ${r.unsupported} | ${r.refuted} |`);
const validate = Object.entries(rows).filter(([t]) => ['pattern', 'anyPattern', 'deny', 'podSecurity', 'foreach', 'cel'].includes(t));
const v = validate.reduce((a, [, r]) => ({ rules: a.rules + r.rules, exact: a.exact + r.exact }), { rules: 0, exact: 0 });
const m = rows.mutate ?? { rules: 0, exact: 0 };
console.log(`mutate rules exact: ${m.exact}/${m.rules} (${Math.round((100 * m.exact) / Math.max(1, m.rules))}%)`);
console.log(
  `\nvalidate rules exact: ${v.exact}/${v.rules} (${Math.round((100 * v.exact) / Math.max(1, v.rules))}%); resources tried ${tried}; rules with a disagreement ${disagreeing}`,
);
process.exit(run.status ?? 1);
