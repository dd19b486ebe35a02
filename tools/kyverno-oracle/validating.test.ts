/**
 * A ValidatingPolicy's namespaceSelector and objectSelector held to Kyverno's engine (v1.19.1). The
 * library's ValidatingPolicies have none, so each convertible one is tried with selectors added: a
 * namespaceSelector (Kyverno's autogen carries it to the Pod-controller policies), an objectSelector
 * (which turns autogen off) and both; on its test's resources and mutants, in Namespaces and with
 * object labels that meet every requirement and that break each one. A conversion called `exact`
 * must have no disagreement, and the selectors must be seen to select and to leave out.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { kindOf, namespaceOf, obj, type Obj } from '../../src/base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../../src/base/releases';
import { loadCel } from '../../src/cel';
import { isClusterScoped } from '../../src/k8s/resources';
import { convertPolicies } from '../../src/migrate';
import { ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { differential } from './differential';
import { fixtures } from './fixtures';
import { selectorChanges } from './mutants';

vi.setConfig({ testTimeout: ORACLE_TEST_TIMEOUT, hookTimeout: ORACLE_TEST_TIMEOUT });

const MUTANTS = Number(process.env.KYVERNO_VPOL_MUTANTS ?? 2);
const VARIANTS: Obj[] = [
  { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['production'] }] } },
  { objectSelector: { matchLabels: { team: 'a' } } },
  { namespaceSelector: { matchLabels: { team: 'a' } }, objectSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } },
];

/** The label changes tried: everything selected, then one requirement broken at a time (Namespace, then object). */
function probes(variant: Obj) {
  const none = { holds: true, change: (l: Record<string, string>) => l };
  const ns = selectorChanges(variant.namespaceSelector);
  const ob = selectorChanges(variant.objectSelector);
  const [nsAll = none, ...nsBroken] = ns;
  const [obAll = none, ...obBroken] = ob;
  return [[nsAll, obAll], ...nsBroken.map((n) => [n, obAll]), ...obBroken.map((o) => [nsAll, o])] as const;
}

describe('Kyverno ValidatingPolicy selectors against the Kyverno engine (v1.19.1)', () => {
  beforeAll(async () => {
    await loadCel();
  });

  it('namespaceSelector and objectSelector decide as Kyverno, selecting and leaving out', async () => {
    const report: string[] = [];
    const wrong: string[] = [];
    const unprobed: string[] = [];
    for (const fixture of fixtures)
      for (const source of fixture.policies.filter((p) => kindOf(p) === 'ValidatingPolicy'))
        for (const variant of VARIANTS) {
          const spec = obj(source.spec);
          const policy = { ...source, spec: { ...spec, matchConstraints: { ...obj(spec.matchConstraints), ...variant } } };
          const conversion = convertPolicies([policy], { kubernetesVersion: DEFAULT_KUBERNETES_VERSION, gatekeeper: 'standalone' });
          const rule = conversion.rules[0]!;
          if (rule.status === 'unsupported') continue;
          let selectedDecided = 0;
          let unselectedSkipped = 0;
          for (const [n, o] of probes(variant)) {
            const namespaces = new Set(fixture.resources.filter((r) => !isClusterScoped(kindOf(r))).map((r) => namespaceOf(r) || 'default'));
            const labels = new Map([...namespaces].map((ns) => [ns, n.change(fixture.namespaceLabels.get(ns) ?? {})]));
            const resources = fixture.resources.map((r) => ({
              ...r,
              metadata: { ...obj(r.metadata), labels: o.change((obj(r.metadata).labels ?? {}) as Record<string, string>) },
            }));
            for (const d of await differential([policy], conversion, resources, labels, MUTANTS)) {
              if (n.holds && o.holds) selectedDecided += d.kyverno.fail + d.kyverno.pass + d.kyverno.error;
              else unselectedSkipped += d.kyverno.skip;
              report.push(
                `${String(obj(source.metadata).name)} ${JSON.stringify(variant)} ${d.rule.status}: ${d.tried} requests, ${d.disagreements} disagreements`,
              );
              if (d.rule.status === 'exact') wrong.push(...d.examples);
            }
          }
          if (!selectedDecided || !unselectedSkipped)
            unprobed.push(
              `${String(obj(source.metadata).name)} ${JSON.stringify(variant)}: ${selectedDecided} selected decided, ${unselectedSkipped} left out`,
            );
        }
    console.log(`kyverno ValidatingPolicy selectors:\n${report.join('\n')}`);
    expect(report.length).toBeGreaterThan(0);
    expect(unprobed).toEqual([]);
    expect(wrong).toEqual([]);
  });
});
