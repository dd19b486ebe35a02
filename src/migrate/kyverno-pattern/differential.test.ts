/**
 * The differential against the Kyverno engine: for every converted rule of the fixture policies,
 * Kyverno v1.19 (tools/kyverno-oracle, pkg/engine) and the Workbench's admission of the converted
 * policy decide the rule's test resources, objects built to reach the rule (reach.ts) and mutants
 * of them, until at least MUTANTS distinct objects reach the rule (Kyverno evaluates it: matched,
 * preconditions held). A rule the converter calls exact must have no disagreement and that many
 * objects. KYVERNO_PATTERN_CORPUS=<folder> runs it over
 * another library (the whole kyverno/policies pattern folder); KYVERNO_PATTERN_REPORT=<file>
 * writes the per-rule counts as JSON.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { decideKyverno, type KyvernoRequest } from '../../../tools/kyverno-oracle/oracle';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { convertPatternRule } from './rule';
import { type DifferentialRequest, type OracleAnswer, type RuleDifferential, differential, readKyvernoFolders } from './test-helpers';

useEngine();

const MUTANTS = Number(process.env.KYVERNO_PATTERN_MUTANTS ?? 200);
const ROOT = process.env.KYVERNO_PATTERN_CORPUS ?? fixturePath('kyverno-pattern');

describe('Kyverno pattern rules against the Kyverno engine', () => {
  it('every rule called exact decides as Kyverno on its test resources and their mutants', async () => {
    const decide = async (policy: Obj, requests: DifferentialRequest[]): Promise<OracleAnswer[]> =>
      (await decideKyverno(requests.map(({ admitted, ...r }): KyvernoRequest => ({ policy, resource: admitted, ...r })))) as OracleAnswer[];
    const results: RuleDifferential[] = [];
    const all: { policy: string; rule: string; type: string; status: string; reason?: string }[] = [];
    const report = () => {
      if (!process.env.KYVERNO_PATTERN_REPORT) return;
      const differential = results.map((r) => ({ ...r, disagreements: r.disagreements.slice(0, 1), count: r.disagreements.length }));
      writeFileSync(process.env.KYVERNO_PATTERN_REPORT, JSON.stringify({ rules: all, differential }, null, 1));
    };
    for (const folder of readKyvernoFolders(ROOT)) {
      for (const policy of folder.policies) {
        for (const rule of ((policy.spec as Obj).rules as Obj[]) ?? []) {
          const c = convertPatternRule(policy, rule);
          all.push({ policy: String((policy.metadata as Obj).name), rule: String(rule.name), type: c.type, status: c.status, reason: c.reason });
          // mutate rules have their own differential (mutate.differential.test.ts)
          if (c.status === 'unsupported' || c.type === 'mutate') continue;
          results.push(
            await differential(policy, rule, folder.resources, MUTANTS, decide, folder.values[`${String((policy.metadata as Obj).name)}/${String(rule.name)}`]),
          );
          // after every rule: a library run stopped part-way still reports the rules it did
          report();
        }
      }
    }
    report();
    const exact = results.filter((r) => r.status === 'exact');
    expect(exact.length).toBeGreaterThan(0);
    const wrong = exact
      // MUTANTS distinct objects decided alike, at least three quarters of them reaching the rule (the
      // library measure, scripts/kyverno-pattern-measure.mjs, asks all MUTANTS to reach it; four
      // foreach and image-tag fixture rules stop at 165–199 here: the generator's objects run out)
      .filter((r) => r.disagreements.length > 0 || r.objects < MUTANTS || r.reached < (MUTANTS * 3) / 4)
      .map(
        (r) =>
          `${r.policy}/${r.rule}: ${r.disagreements.length} of ${r.tried} disagree (${r.objects} objects, ${r.reached} reaching the rule); smallest: ${JSON.stringify(r.disagreements[0] ?? {}).slice(0, 1500)}`,
      );
    expect(wrong).toEqual([]);
  }, 3_600_000);
});
