import { availableParallelism } from 'node:os';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';

// VITEST_JSON=path also writes a JSON report (.ci/run counts tests from it).
const json = process.env.VITEST_JSON;

/**
 * The files that take longest (the differential tests against the Go oracles: their binaries and
 * apiservers run beside the worker), started first so that the short files fill the other workers
 * around them instead of one of them running alone at the end.
 */
const SLOW_FIRST = [
  'tools/kyverno-oracle/oracle.test.ts',
  'tools/validation-oracle/oracle.test.ts',
  'src/migrate/kyverno-pattern/differential.test.ts',
  'tools/kyverno-oracle/mutating.test.ts',
  'tools/kyverno-oracle/validating.test.ts',
  'tools/admission-oracle/oracle.test.ts',
  'tools/typecheck-oracle/oracle.test.ts',
  'src/cel/native.test.ts',
  'tools/manifest-oracle/oracle.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((s) => f.moduleId.endsWith(`/${s}`));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'tools/**/*.test.ts'],
    // The release artifacts' test packs the site's build (dist/): npm test runs it as a step of its
    // own after `build` (test:package in scripts/test.mjs), with VITEST_PACKAGE=1.
    exclude: [...configDefaults.exclude, ...(process.env.VITEST_PACKAGE ? [] : ['scripts/package.test.ts'])],
    environment: 'node',
    benchmark: { include: ['src/**/*.bench.ts'] },
    reporters: json ? ['default', 'json'] : ['default'],
    outputFile: json ? { json } : undefined,
    // vitest's default is one worker fewer than the cores: a single worker on a 2-core runner,
    // while much of the run waits on Go processes (oracles, the native engine, apiservers).
    // VITEST_MAX_WORKERS=n overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || Math.max(2, availableParallelism()),
    sequence: { sequencer: SlowFirst },
    // A limit that catches a hang, not a speed check (speed is npm run bench's): vitest's 5 s
    // default failed tests that run the real engine when the 2-core runner is shared.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
