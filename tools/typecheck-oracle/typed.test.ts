/**
 * Differential test: src/k8s/typed apiserverObject (the generated type data of the release and
 * the conditional defaults of conditional.ts) against the release's own decoding —
 * tools/typecheck-oracle `decode`: legacyscheme.Codecs.UniversalDecoder (decode, default,
 * convert to the internal type), converted back to the object's version and written by
 * runtime.DefaultUnstructuredConverter.ToUnstructured, as admission hands an object to CEL.
 * On testdata/objects.json (the built-in objects of the external policy suites' requests, a
 * quarter of their Pods) and hand-written objects for every conditional default, at the three
 * releases the suite builds the oracle for. Also: the checked-in data (src/k8s/typed/data/<release>.json)
 * must be what the oracle derives now (`types`), and every release's file is laid out as the
 * generator writes it, from the modules its modfile pins.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { KUBERNETES_VERSIONS, type KubernetesVersion } from '../../src/base/releases';
import { apiserverObject, loadTypedData } from '../../src/k8s/typed';
import { schemaBuilds } from '../../scripts/generate-schemas.mjs';
import { formatTypedData, typedDataFile, typedDifferences } from '../../scripts/typed-data.mjs';
import { buildOracle, ORACLE_BUILDS, repoRoot, runOracle, type OracleBuild, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { CONDITIONAL_OBJECTS } from './typed-objects';

const dir = join(repoRoot, 'tools', 'typecheck-oracle');
/** Versions no release of the table serves (the simulator decodes only served kinds): their own defaulters are not modelled. */
const UNSERVED = new Set(['apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1', 'batch/v1beta1']);
const corpus = (JSON.parse(readFileSync(join(dir, 'testdata', 'objects.json'), 'utf8')) as Record<string, unknown>[]).filter(
  (o) => !UNSERVED.has(String(o.apiVersion)),
);
const objects: unknown[] = [...CONDITIONAL_OBJECTS, ...corpus];

const BUILT: Partial<Record<KubernetesVersion, OracleBuild>> = {
  '1.37': ORACLE_BUILDS['typecheck-oracle-1.37'],
  '1.36': ORACLE_BUILDS['typecheck-oracle-1.36'],
  '1.30': ORACLE_BUILDS['typecheck-oracle-1.30'],
};

const label = (o: unknown): string => {
  const x = o as { apiVersion?: string; kind?: string; metadata?: { name?: string } };
  return `${x.apiVersion}/${x.kind} ${x.metadata?.name ?? ''}`;
};

/** The paths where two JSON values differ (at most a few per object). */
function differences(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= 6) return out;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, out);
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path || '(root)'}: apiserver ${JSON.stringify(a)}, Workbench ${JSON.stringify(b)}`);
  return out;
}

describe('the checked-in type data', () => {
  const builds = schemaBuilds();
  for (const release of KUBERNETES_VERSIONS) {
    it(`${release}: laid out as schemas:generate writes it, from the modules its modfile pins`, () => {
      const text = readFileSync(typedDataFile(release), 'utf8');
      const data = JSON.parse(text) as { release: string; modules: Record<string, string>; kinds: Record<string, string> };
      expect(formatTypedData(data)).toBe(text);
      expect(data.release).toBe(release);
      expect(data.modules['k8s.io/kubernetes']).toBe(builds[release]!.kubernetes);
      expect(data.modules['k8s.io/api']).toBe(builds[release]!.modules['k8s.io/api']);
      expect(Object.keys(data.kinds).length).toBeGreaterThan(100);
    });
  }
});

for (const [release, build] of Object.entries(BUILT) as [KubernetesVersion, OracleBuild][]) {
  describe(`apiserverObject = the kube-apiserver ${release}'s decoding`, { timeout: 60_000 }, () => {
    let bin: string;
    let answers: { object?: unknown; error?: string }[];
    beforeAll(async () => {
      bin = buildOracle(build).path;
      await loadTypedData(release);
      answers = JSON.parse(await runOracle(bin, JSON.stringify(objects), ['decode'])) as typeof answers;
    }, ORACLE_TEST_TIMEOUT);

    it(`src/k8s/typed/data/${release}.json is what the oracle derives now`, () => {
      const work = mkdtempSync(join(tmpdir(), 'typed-'));
      try {
        execFileSync(bin, ['types', join(work, 'out.json')], { stdio: 'pipe' });
        const derived = formatTypedData(JSON.parse(readFileSync(join(work, 'out.json'), 'utf8')));
        const text = readFileSync(typedDataFile(release), 'utf8');
        expect(text === derived ? [] : typedDifferences(text, derived)).toEqual([]);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });

    it(`on ${CONDITIONAL_OBJECTS.length} hand-written objects and ${corpus.length} from the policy suites`, () => {
      expect(answers).toHaveLength(objects.length);
      const failures: string[] = [];
      let decoded = 0;
      for (const [i, o] of objects.entries()) {
        const want = answers[i]!;
        const got = apiserverObject(o, release);
        if (want.error) {
          // the apiserver refuses the object: the Workbench must say so too (or not know the kind)
          if (got.typed && !got.problems.length) failures.push(`${label(o)}: the apiserver refuses it (${want.error}); the Workbench decodes it`);
          continue;
        }
        decoded++;
        const diffs = differences(want.object, got.object);
        if (diffs.length) failures.push(`${label(o)}:\n    ${diffs.join('\n    ')}`);
      }
      expect(decoded).toBeGreaterThan(objects.length * 0.9);
      expect(failures, `${failures.length} objects differ:\n${failures.join('\n')}`).toEqual([]);
    });
  });
}
