/**
 * Differential test: typeCheckPolicy (the engine's copy of the type checker, schemas from the
 * release's asset) against kube-controller-manager's type checking (tools/typecheck-oracle:
 * the real validating.TypeChecker with resolver.NewDefinitionsSchemaResolver over
 * k8s.io/kubernetes' generated definitions) on testdata/cases.json, per release.
 * The oracle's own Go test (TestFixtures: the same cases against the committed
 * testdata/warnings-<release>.json) runs first.
 *
 * The oracle is built here for 1.30, 1.36 and 1.37 (BUILT): for those the live checker's answers
 * are compared, and the checked-in schema data (tools/typecheck-oracle/schemas/<release>.json,
 * which the build serves) must be what the oracle derives now, so stale data cannot pass. The
 * other releases are compared with their committed testdata/warnings-<release>.json, and their
 * data's provenance with their go.1.N.mod; `npm run schemas:generate -- --check` re-derives them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCel } from '../../src/cel';
import { typeCheckMappings, typeCheckPolicy } from '../../src/admission';
import { KUBERNETES_VERSIONS } from '../../src/base/releases';
import { dataDifferences, schemaBuilds } from '../../scripts/generate-schemas.mjs';
import { formatSchemaData, schemaDataFile, schemaDataReleases, type SchemaData } from '../../scripts/schema-data.mjs';
import { buildOracle, ORACLE_BUILDS, repoRoot, runOracle, type OracleBuild, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';

const dir = join(repoRoot, 'tools', 'typecheck-oracle');
const cases = JSON.parse(readFileSync(join(dir, 'testdata', 'cases.json'), 'utf8')) as { name: string; policy: unknown; mappings: unknown[] }[];

/** The releases the suite builds the oracle for (one Go build of k8s.io/kubernetes' generated OpenAPI each; `npm run schemas:generate` builds them all). */
const BUILT: Record<'1.30' | '1.36' | '1.37', OracleBuild> = {
  '1.37': ORACLE_BUILDS['typecheck-oracle-1.37'],
  '1.36': ORACLE_BUILDS['typecheck-oracle-1.36'],
  '1.30': ORACLE_BUILDS['typecheck-oracle-1.30'],
};
type Warning = { fieldRef: string; warning: string };
const committedWarnings = (release: string): Warning[][] | undefined => {
  const file = join(dir, 'testdata', `warnings-${release}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { warnings: Warning[] }[]).map((a) => a.warnings) : undefined;
};

/** The kind's type name carries time.Now().Nanosecond() (generateUniqueTypeName). */
const normalise = (w: Warning[]) => w.map((x) => ({ fieldRef: x.fieldRef, warning: x.warning.replace(/\b([A-Z][A-Za-z]*)\d{1,9}\b/g, '$1') }));

beforeAll(async () => {
  await loadCel();
});

describe('typecheck-oracle fixtures (go test)', () => {
  it('the real type checker still gives testdata/warnings-1.37.json', { timeout: ORACLE_TEST_TIMEOUT }, () => {
    const bin = buildOracle(ORACLE_BUILDS['typecheck-oracle-1.37']);
    execFileSync(bin.path, ['-test.count=1'], { cwd: dir, stdio: 'pipe' });
  });
});

describe('the checked-in schema data', () => {
  const builds = schemaBuilds();
  it('one file per release of the release table, each with a modfile', () => {
    expect(schemaDataReleases()).toEqual([...KUBERNETES_VERSIONS]);
    expect(Object.keys(builds).sort()).toEqual([...KUBERNETES_VERSIONS]);
  });
  for (const release of KUBERNETES_VERSIONS) {
    it(`${release}: laid out as schemas:generate writes it, from the modules its modfile pins`, () => {
      const text = readFileSync(schemaDataFile(release), 'utf8');
      const data = JSON.parse(text) as SchemaData;
      expect(formatSchemaData(data)).toBe(text);
      expect(data.release).toBe(release);
      const pinned = builds[release]!.modules;
      expect(data.modules['k8s.io/kubernetes']).toBe(builds[release]!.kubernetes);
      for (const [path, version] of Object.entries(data.modules)) expect(`${path} ${version}`).toBe(`${path} ${pinned[path]}`);
      expect(Object.keys(data.modules).sort()).toEqual([
        'k8s.io/api',
        'k8s.io/apiextensions-apiserver',
        'k8s.io/apimachinery',
        'k8s.io/apiserver',
        'k8s.io/kube-openapi',
        'k8s.io/kubernetes',
      ]);
      expect(Object.keys(data.gvks).length).toBeGreaterThan(100);
    });
  }
});

for (const release of KUBERNETES_VERSIONS) {
  const build = (BUILT as Record<string, OracleBuild | undefined>)[release];
  const committed = committedWarnings(release);
  if (!build && !committed) continue;
  // The first check of a release reads its schema asset into the engine and builds the kinds' types.
  describe(`typeCheckPolicy = kube-controller-manager ${release}${build ? '' : ' (testdata/warnings)'}`, { timeout: 60_000 }, () => {
    let oracle: Warning[][];
    beforeAll(async () => {
      if (!build) {
        oracle = committed!;
        return;
      }
      const bin = buildOracle(build);
      // The REST mapping the Workbench uses for the release (every served resource): the same for both sides.
      const input = cases.map((c) => ({ policy: c.policy, mappings: typeCheckMappings(release, []) }));
      oracle = (JSON.parse(await runOracle(bin.path, JSON.stringify(input), ['check'])) as { warnings: Warning[] }[]).map((a) => a.warnings);
    }, ORACLE_TEST_TIMEOUT);

    for (const [i, c] of cases.entries()) {
      it(c.name, async () => {
        const ours = await typeCheckPolicy(c.policy, { kubernetesVersion: release });
        expect(normalise(ours)).toEqual(normalise(oracle[i]!));
      });
    }

    it('finds the fixtures’ mistakes (the comparison is not vacuous)', () => {
      expect(oracle.filter((o) => o.length > 0).length).toBeGreaterThanOrEqual(10);
    });

    if (build && committed) {
      // The committed warnings (the cases' own REST mappings) are the live checker's with the Workbench's mapping,
      // so the releases compared only with their committed file are compared on the same terms.
      it(`testdata/warnings-${release}.json is the live checker's answer with the Workbench's REST mapping`, () => {
        expect(oracle.map(normalise)).toEqual(committed.map(normalise));
      });
    }

    if (build) {
      it(`tools/typecheck-oracle/schemas/${release}.json is what the oracle derives now`, async () => {
        const bin = buildOracle(build);
        const work = mkdtempSync(join(tmpdir(), 'schemas-'));
        try {
          execFileSync(bin.path, ['schemas', join(work, 'out.json')], { stdio: 'pipe' });
          const derived = formatSchemaData(JSON.parse(readFileSync(join(work, 'out.json'), 'utf8')) as SchemaData);
          const text = readFileSync(schemaDataFile(release), 'utf8');
          // the names of what differs, not a 400 kB diff; `npm run schemas:generate` rewrites the data
          expect(text === derived ? [] : dataDifferences(text, derived)).toEqual([]);
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
      });
    }
  });
}
