/**
 * The Kyverno converter held to Kyverno's own engine (github.com/kyverno/kyverno v1.19.1, this
 * folder's oracle). For every converted rule of the Kyverno fixtures (fixtures/kyverno: policies of
 * the kyverno/policies library with their kyverno-tests), on the tests' resources and on mutants of
 * them (mutants.ts), both decide the same admission request: Kyverno the source policy, the
 * Workbench (src/policy, the apiserver's CEL) the produced admission policies. Verdicts per rule:
 * fail / pass / skip / error. A rule the converter calls `exact` must have no disagreement; the
 * imported kyverno-tests must pass on its produced policies.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { kindOf, nameOf, obj } from '../../src/base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../../src/base/releases';
import { evaluate, loadCel } from '../../src/cel';
import { convertPolicies } from '../../src/migrate';
import { importKyvernoTest } from '../../src/migrate/kyverno/kyverno-test';
import { runCases } from '../../src/policy';
import { ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { differential } from './differential';
import { fixtures, texts } from './fixtures';

vi.setConfig({ testTimeout: ORACLE_TEST_TIMEOUT, hookTimeout: ORACLE_TEST_TIMEOUT });

const cel = { evaluate };

const conversions = fixtures.map((f) => ({
  fixture: f,
  conversion: convertPolicies(f.policies, { kubernetesVersion: DEFAULT_KUBERNETES_VERSION, gatekeeper: 'standalone' }),
}));

describe('Kyverno converter against the Kyverno engine (v1.19.1)', () => {
  beforeAll(async () => {
    await loadCel();
  });

  it("every exact rule decides as Kyverno on the tests' resources and their mutants", async () => {
    const report: string[] = [];
    const disagreements: string[] = [];
    let tried = 0;
    for (const { fixture, conversion } of conversions) {
      for (const d of await differential(fixture.policies, conversion, fixture.resources, fixture.namespaceLabels)) {
        const r = d.rule;
        tried += d.tried;
        report.push(
          `${r.source.kind}/${r.source.name}/${r.source.rule}: ${r.status}, ${d.tried} resources, ${d.disagreements} disagreements (${d.verdictDifferences} alike with other verdicts)`,
        );
        if (r.status === 'exact') disagreements.push(...d.examples.map((e) => `${r.source.name}/${r.source.rule}: ${e}`));
      }
    }
    console.log(`kyverno differential: ${tried} decisions\n${report.join('\n')}`);
    expect(report.length).toBeGreaterThan(0);
    expect(disagreements).toEqual([]);
  });

  it('the imported kyverno-tests pass on the policies produced for exact rules', async () => {
    let total = 0;
    const failures: string[] = [];
    for (const { fixture, conversion } of conversions) {
      // `kyverno test` says fail whatever the failure action; bound with Deny, the failure is a denial
      const deny = {
        ...conversion,
        objects: conversion.objects.map((o) =>
          o.kind === 'ValidatingAdmissionPolicyBinding' ? { ...o, spec: { ...obj(o.spec), validationActions: ['Deny'] } } : o,
        ),
      };
      const imported = importKyvernoTest(fixture.test, texts, deny);
      for (const { policy, cases } of imported.policyCases) {
        const p = conversion.objects.find((o) => nameOf(o) === policy && kindOf(o).endsWith('AdmissionPolicy'))!;
        const rule = conversion.rules.find((r) => r.produced.includes(`${kindOf(p)}/${policy}`))!;
        const bindings = deny.objects.filter((o) => kindOf(o) === `${kindOf(p)}Binding`);
        const report = await runCases({ policy: p, bindings }, cases, cel);
        total += cases.length;
        if (rule.status === 'exact') for (const r of report.results) if (!r.pass) failures.push(`${fixture.test} ${r.name}: ${r.failures.join('; ')}`);
      }
    }
    console.log(`kyverno-tests: ${total} cases imported`);
    expect(total).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  });
});
