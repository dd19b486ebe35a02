/**
 * Differential test of the standalone conversion (src/migrate/gatekeeper/standalone.ts) against
 * Gatekeeper v3.23's own CEL driver (tools/gatekeeper-oracle review, driver.ts): every library
 * template with CEL and the constraints of its samples, on the samples' objects and mutants of them.
 * The constraints the Workbench converts must be decided alike on every request; the counts are
 * pinned so that a change in coverage shows.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../../src/cel/test-helpers';
import { buildOracleAsync, ORACLE_BUILDS, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { libraryCases } from './cases';
import type { Obj } from '../../src/base/json';
import { driverDifferential } from './driver';

useEngine();

describe("standalone equals Gatekeeper v3.23's CEL driver", () => {
  it('decides the library samples and their mutants as Gatekeeper does', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const bin = await buildOracleAsync(ORACLE_BUILDS['gatekeeper-oracle']);
    const cases = libraryCases();
    const t0 = Date.now();
    const results = await driverDifferential(bin.path, cases, 8);
    const tried = results.reduce((n, r) => n + r.tried, 0);
    const disagreeing = results
      .filter((r) => r.disagreements > 0)
      .map((r) => `${r.template}/${r.constraint}: ${r.disagreements} of ${r.tried}\n  ${r.examples.join('\n  ')}`);
    console.info(
      `Gatekeeper CEL driver differential: ${cases.length} templates, ${results.length} constraints, ${tried} decisions, ${disagreeing.length} constraints disagreeing, in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    expect(disagreeing).toEqual([]);
    for (const r of results) expect(r.rule.status, `${r.template}/${r.constraint}: ${r.rule.reason}`).not.toBe('unsupported');
  });

  it('matches a Namespace by its own name, and by scope, as Gatekeeper does', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const bin = await buildOracleAsync(ORACLE_BUILDS['gatekeeper-oracle']);
    const template = {
      apiVersion: 'templates.gatekeeper.sh/v1',
      kind: 'ConstraintTemplate',
      metadata: { name: 'k8sbadlabel' },
      spec: {
        crd: { spec: { names: { kind: 'K8sBadLabel' } } },
        targets: [
          {
            target: 'admission.k8s.gatekeeper.sh',
            code: [
              {
                engine: 'K8sNativeValidation',
                source: {
                  validations: [
                    { expression: '!has(variables.anyObject.metadata.labels) || !("bad" in variables.anyObject.metadata.labels)', message: 'bad label' },
                  ],
                },
              },
            ],
          },
        ],
      },
    };
    const constraint = (name: string, match: Obj) => ({
      apiVersion: 'constraints.gatekeeper.sh/v1beta1',
      kind: 'K8sBadLabel',
      metadata: { name },
      spec: { match },
    });
    const bad = { bad: 'yes' };
    const objects: Obj[] = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-foo', labels: bad } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod-a', labels: bad } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'prod-a', labels: bad } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'kube-foo', labels: bad } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', labels: bad } },
    ];
    const cases = [
      {
        name: 'namespace-matching',
        template,
        constraints: [
          constraint('excluded', { excludedNamespaces: ['kube-*'] }),
          constraint('only-prod', { namespaces: ['prod-*'] }),
          constraint('cluster', { scope: 'Cluster' }),
          constraint('namespaced', { scope: 'Namespaced' }),
        ],
      },
    ];
    const results = await driverDifferential(bin.path, cases, 0, () => objects);
    expect(results.map((r) => `${r.constraint}: ${r.disagreements} of ${r.tried}${r.examples.length ? `\n  ${r.examples.join('\n  ')}` : ''}`)).toEqual([
      'excluded: 0 of 10',
      'only-prod: 0 of 10',
      'cluster: 0 of 10',
      'namespaced: 0 of 10',
    ]);
  });
});
