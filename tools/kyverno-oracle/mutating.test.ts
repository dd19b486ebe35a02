/**
 * The MutatingPolicy converter held to Kyverno's own CEL mutating engine (v1.19.1, this folder's
 * oracle): every MutatingPolicy of the Kyverno fixtures (the kyverno/policies library's, with their
 * kyverno-tests) is converted, and its produced MutatingAdmissionPolicy and Kyverno mutate the
 * tests' resources and MUTANTS mutants of each (mutating.ts). A conversion called `exact` must
 * have no disagreement. KYVERNO_MPOL_REPORT=<file> writes every policy's result as JSON.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../../src/base/releases';
import { useEngine } from '../../src/cel/test-helpers';
import { convertPolicies } from '../../src/migrate';
import { fixtures } from './fixtures';
import { describeDifferential, type MutatingDifferential, mutatingDifferential } from './mutating';
import { ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';

useEngine();

const MUTANTS = Number(process.env.KYVERNO_MPOL_MUTANTS ?? 30);
const MUTATING = ['MutatingPolicy', 'NamespacedMutatingPolicy'];

describe('Kyverno MutatingPolicy conversions against the Kyverno engine (v1.19.1)', () => {
  it('every exact conversion mutates as Kyverno does, on the tests’ resources and their mutants', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const results: MutatingDifferential[] = [];
    const report: string[] = [];
    for (const fixture of fixtures)
      for (const policy of fixture.policies.filter((p) => MUTATING.includes(kindOf(p)))) {
        const conversion = convertPolicies([policy], { kubernetesVersion: DEFAULT_KUBERNETES_VERSION, gatekeeper: 'standalone' });
        const rule = conversion.rules[0]!;
        if (rule.status === 'unsupported') {
          report.push(`${rule.source.kind}/${rule.source.name}: unsupported (${rule.reason})`);
          continue;
        }
        const d = await mutatingDifferential(policy, conversion, fixture.resources, fixture.namespaceLabels, MUTANTS);
        results.push(d);
        report.push(describeDifferential(d));
      }
    console.log(`kyverno MutatingPolicy differential:\n${report.join('\n')}`);
    if (process.env.KYVERNO_MPOL_REPORT)
      writeFileSync(
        process.env.KYVERNO_MPOL_REPORT,
        JSON.stringify(
          results.map((r) => ({ ...r, count: r.disagreements.length, disagreements: r.disagreements.slice(0, 2) })),
          null,
          1,
        ),
      );
    expect(results.length).toBeGreaterThan(20);
    // the differential must see Kyverno act: a seed set none of whose requests Kyverno mutates proves nothing
    expect(results.filter((r) => r.acted > 0).length).toBeGreaterThan(20);
    // a policy's selectors are probed both ways (mutating.ts): requests they select, which Kyverno acts on, and requests they do not
    const unprobed = results
      .filter((r) => r.selectors && !(r.selectors.selected > 0 && r.selectors.actedSelected > 0 && r.selectors.unselected > 0))
      .map((r) => `${r.rule.source.name}: ${JSON.stringify(r.selectors)}`);
    expect(unprobed).toEqual([]);
    // a Pod policy's autogen policies are held to Kyverno's on controllers it really mutates (its
    // autogen leaves JSONPatch expressions as written: some mutate no controller, on either side)
    const autogenActing = results.filter((r) => r.rule.produced.some((p) => p.includes('-autogen-')) && Object.keys(r.actedKinds).some((k) => k !== 'Pod'));
    expect(autogenActing.length).toBeGreaterThanOrEqual(10);
    const wrong = results
      .filter((r) => r.rule.status === 'exact' && r.disagreements.length > 0)
      .map((r) => `${r.rule.source.name}: ${r.disagreements.length} of ${r.tried} disagree; smallest: ${JSON.stringify(r.disagreements[0]).slice(0, 1500)}`);
    expect(wrong).toEqual([]);
  });
});
