import { readdirSync, readFileSync } from 'node:fs';
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

/** The unit test files (the projects below split them). */
const TEST_DIRS = ['src', 'scripts', 'tools'];
const INCLUDE = TEST_DIRS.map((d) => `${d}/**/*.test.ts`);

/**
 * What a test file does that outlives it in a worker that runs other files after it: mocks and
 * stubs (vi.mock and its kin, stubbed globals or env), writes to process.env (CEL_ENGINE picks the
 * engine of every later loadCel), the working directory or globalThis, and the helpers that write
 * them for their caller (useEngine('native') sets CEL_ENGINE). A file that matches runs isolated, in
 * a fresh module graph; the others share their worker's (scripts/isolation.test.ts keeps this rule
 * and the helpers that write global state in step).
 */
export const ISOLATE_WHEN =
  /\bvi\.(mock|doMock|unmock|hoisted|stubGlobal|stubEnv|spyOn|useFakeTimers|resetModules)\b|process\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)|delete process\.env|Object\.assign\(process\.env|process\.chdir\(|globalThis\.\w+\s*=(?!=)|useEngine\('native'\)/;

/**
 * The differentials against the Go oracles (tools/, the Kyverno pattern converter's) run isolated
 * whatever they contain: each holds thousands of oracle answers, the engines of several releases
 * and an oracle's process for minutes, which a shared worker would carry into every file after
 * (in the one run where they shared workers, tests of later files ran 2 to 35 times slower than
 * in an isolated run beside it, check-paths 1 → 35 s), and their imports are a small part of their time.
 */
export const ISOLATED_DIRS = ['tools/', 'src/migrate/kyverno-pattern/'];

/** The test files (relative, `/`-separated) that run isolated: in ISOLATED_DIRS or matching ISOLATE_WHEN. */
export function isolatedFiles(root = '.'): string[] {
  return TEST_DIRS.flatMap((d) =>
    (readdirSync(`${root}/${d}`, { recursive: true }) as string[])
      .map((f) => `${d}/${f.split('\\').join('/')}`)
      .filter(
        (f) =>
          f.endsWith('.test.ts') &&
          !f.includes('node_modules/') &&
          (ISOLATED_DIRS.some((dir) => f.startsWith(dir)) || ISOLATE_WHEN.test(readFileSync(`${root}/${f}`, 'utf8'))),
      ),
  ).sort();
}

// The release artifacts' test packs the site's build (dist/): npm test runs it as a step of its
// own after `build` (test:package in scripts/test.mjs), with VITEST_PACKAGE=1.
const exclude = [...configDefaults.exclude, ...(process.env.VITEST_PACKAGE ? [] : ['scripts/package.test.ts'])];
const isolated = isolatedFiles(import.meta.dirname);

export default defineConfig({
  test: {
    environment: 'node',
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
    // Without isolation a worker keeps its modules (and the engine it loaded) from one file to the
    // next instead of importing them again for each: the files that leave global state behind keep
    // it (ISOLATE_WHEN, ISOLATED_DIRS). After SlowFirst's files, vitest orders by project ("isolated"
    // first), so the shared workers then take one shared file after another.
    projects: [
      // the benchmarks (vitest bench) run once, each file in a fresh worker as before
      { extends: true, test: { name: 'isolated', include: isolated, exclude, benchmark: { include: ['src/**/*.bench.ts'] } } },
      {
        extends: true,
        test: {
          name: 'shared',
          isolate: false,
          // each file starts from the app's stores as a fresh page has them
          setupFiles: ['./vitest.shared-setup.ts'],
          include: INCLUDE,
          exclude: [...exclude, ...isolated],
          benchmark: { include: [] },
        },
      },
    ],
  },
});
