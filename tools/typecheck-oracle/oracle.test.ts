/**
 * Differential test: typeCheckPolicy (the engine's copy of the type checker, schemas from the
 * release's asset) against kube-controller-manager's type checking (tools/typecheck-oracle:
 * the real validating.TypeChecker with resolver.NewDefinitionsSchemaResolver over
 * k8s.io/kubernetes' generated definitions) on testdata/cases.json, per schema release.
 * The oracle's own Go test (TestFixtures: the same cases against the committed
 * testdata/warnings-<release>.json) runs first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCel } from '../../src/cel';
import { typeCheckMappings, typeCheckPolicy } from '../../src/admission';
import type { KubernetesVersion } from '../../src/base/releases';
import { buildOracle, ORACLE_BUILDS, repoRoot, runOracle, type OracleBuild } from '../go-oracle.mjs';

const dir = join(repoRoot, 'tools', 'typecheck-oracle');
const cases = JSON.parse(readFileSync(join(dir, 'testdata', 'cases.json'), 'utf8')) as { name: string; policy: unknown; mappings: unknown[] }[];

/** One program per schema release (scripts/build-schemas.mjs builds the assets the same way). */
const RELEASES: Record<'1.30' | '1.36' | '1.37', OracleBuild> = {
  '1.37': ORACLE_BUILDS['typecheck-oracle-1.37'],
  '1.36': ORACLE_BUILDS['typecheck-oracle-1.36'],
  '1.30': ORACLE_BUILDS['typecheck-oracle-1.30'],
};

/** The kind's type name carries time.Now().Nanosecond() (generateUniqueTypeName). */
const normalise = (w: { fieldRef: string; warning: string }[]) => w.map((x) => ({ fieldRef: x.fieldRef, warning: x.warning.replace(/\b([A-Z][A-Za-z]*)\d{1,9}\b/g, '$1') }));

beforeAll(async () => {
  await loadCel();
});

describe('typecheck-oracle fixtures (go test)', () => {
  it('the real type checker still gives testdata/warnings-1.37.json', { timeout: 600_000 }, () => {
    const bin = buildOracle(ORACLE_BUILDS['typecheck-oracle-test-1.37']);
    execFileSync(bin.path, ['-test.count=1'], { cwd: dir, stdio: 'pipe' });
  });
});

for (const [release, build] of Object.entries(RELEASES)) {
  // The first check of a release reads its schema asset into the engine and builds the kinds' types.
  describe(`typeCheckPolicy = kube-controller-manager ${release}`, { timeout: 60_000 }, () => {
    let oracle: { warnings: { fieldRef: string; warning: string }[] }[];
    beforeAll(async () => {
      const bin = buildOracle(build);
      // The REST mapping the Workbench uses for the release (every served resource): the same for both sides.
      const input = cases.map((c) => ({ policy: c.policy, mappings: typeCheckMappings(release as KubernetesVersion, []) }));
      oracle = JSON.parse(await runOracle(bin.path, JSON.stringify(input), ['check']));
    }, 600_000);

    for (const [i, c] of cases.entries()) {
      it(c.name, async () => {
        const ours = await typeCheckPolicy(c.policy, { kubernetesVersion: release as KubernetesVersion });
        expect(normalise(ours)).toEqual(normalise(oracle[i]!.warnings));
      });
    }

    it('finds the fixtures’ mistakes (the comparison is not vacuous)', () => {
      expect(oracle.filter((o) => o.warnings.length > 0).length).toBeGreaterThanOrEqual(10);
    });
  });
}
