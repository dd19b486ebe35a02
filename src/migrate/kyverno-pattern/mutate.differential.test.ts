/**
 * The mutate differential against the Kyverno engine: for every converted mutate rule of the
 * fixture policies, Kyverno v1.19 (tools/kyverno-oracle, pkg/engine Mutate) and the Workbench's
 * MutatingAdmissionPolicy evaluation mutate the rule's test resources and at least MUTANTS mutants
 * of them; the objects the apiserver would store must be the same for a rule called exact.
 * KYVERNO_MUTATE_CORPUS=<folder> runs it over another library; KYVERNO_MUTATE_REPORT=<file>
 * writes the per-rule counts as JSON.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { decideKyverno, type KyvernoRequest } from '../../../tools/kyverno-oracle/oracle';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { type MutateAnswer, type MutateDifferential, mutateDifferential } from './mutate-helpers';
import { convertPatternRule } from './rule';
import { type DifferentialRequest, readKyvernoFolders } from './test-helpers';
import { ORACLE_TEST_TIMEOUT } from '../../../tools/go-oracle.mjs';

useEngine('native');

const MUTANTS = Number(process.env.KYVERNO_MUTATE_MUTANTS ?? 200);
const ROOT = process.env.KYVERNO_MUTATE_CORPUS ?? fixturePath('kyverno-mutate');

describe('Kyverno mutate rules against the Kyverno engine', () => {
  it('every mutate rule called exact patches as Kyverno does, on its test resources and their mutants', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const decide = async (policy: Obj, requests: DifferentialRequest[]): Promise<MutateAnswer[]> =>
      (await decideKyverno(
        requests.map(({ admitted, operation, ...world }): KyvernoRequest => ({ policy, resource: admitted, operation, ...world })),
      )) as MutateAnswer[];
    const results: MutateDifferential[] = [];
    const all: { policy: string; rule: string; type: string; status: string; reason?: string }[] = [];
    for (const folder of readKyvernoFolders(ROOT)) {
      for (const policy of folder.policies) {
        for (const rule of ((policy.spec as Obj).rules as Obj[]) ?? []) {
          if (!rule.mutate) continue;
          const c = convertPatternRule(policy, rule);
          all.push({ policy: String((policy.metadata as Obj).name), rule: String(rule.name), type: c.type, status: c.status, reason: c.reason });
          if (c.status === 'unsupported') continue;
          results.push(await mutateDifferential(policy, rule, folder.resources, MUTANTS, decide));
        }
      }
    }
    if (process.env.KYVERNO_MUTATE_REPORT)
      writeFileSync(
        process.env.KYVERNO_MUTATE_REPORT,
        JSON.stringify(
          { rules: all, differential: results.map((r) => ({ ...r, disagreements: r.disagreements.slice(0, 2), count: r.disagreements.length })) },
          null,
          1,
        ),
      );
    const exact = results.filter((r) => r.status === 'exact');
    expect(exact.length).toBeGreaterThan(0);
    const wrong = exact
      .filter((r) => r.disagreements.length > 0 || r.objects < MUTANTS)
      .map(
        (r) =>
          `${r.policy}/${r.rule}: ${r.disagreements.length} of ${r.tried} disagree (${r.objects} objects); smallest: ${JSON.stringify(r.disagreements[0] ?? {}).slice(0, 1500)}`,
      );
    expect(wrong).toEqual([]);
  });
});
