/**
 * `admission-workbench convert`: the source project's own tests among the inputs (Kyverno CLI
 * `kyverno-test.yaml`, gator `suite.yaml`) run on the converted policies, rule by rule
 * (src/migrate/source-tests.ts). The files a test names (resources, values, templates,
 * constraints, objects) are read through the CLI's file system, relative to the test file.
 * Kyverno's policy repositories keep a policy's test in a hidden `.kyverno-test/` directory beside
 * it, which a directory walk skips: it is looked for there too.
 */
import type { Obj } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import type { Conversion } from '../migrate';
import type { RuleTests } from '../migrate/report';
import { findSourceTests as findAmong, runSourceTestCases, sourceTestCases, type SourceTests } from '../migrate/source-tests';
import type { PolicyCel } from '../policy/expressions';
import type { FileSystem, InputFile } from './inputs';

export interface SourceTestRun {
  /** Parallel to conversion.rules: the tests run on each rule's objects (undefined: none). */
  tests: (RuleTests | undefined)[];
  /** What could not be imported or run (a missing file, a result on a rule not converted), by file. */
  problems: string[];
}

function readText(fs: FileSystem, path: string): string | undefined {
  try {
    return new TextDecoder().decode(fs.readFile(path));
  } catch {
    return undefined;
  }
}

const exists = (fs: FileSystem, path: string): boolean => {
  try {
    return fs.stat(path).isFile();
  } catch {
    return false;
  }
};

/** The tests among the inputs and beside them (a policy's `.kyverno-test/kyverno-test.yaml`). */
export function findSourceTests(files: readonly InputFile[], fs: FileSystem): SourceTests {
  const found = findAmong(new Map(files.map((f) => [f.name, f.text])));
  // a policy's test in `.kyverno-test/` beside it (skipped by the directory walk as a hidden directory)
  for (const dir of new Set(files.filter((f) => f.name !== '<stdin>').map((f) => fs.dirname(f.name)))) {
    const path = fs.join(fs.join(dir, '.kyverno-test'), 'kyverno-test.yaml');
    if (!found.kyverno.includes(path) && exists(fs, path)) found.kyverno.push(path);
  }
  return found;
}

/** Runs every Kyverno test and gator suite `found` among `files` (and beside them) on `conversion` (of `objects`, the inputs' documents). */
export async function runSourceTests(
  found: SourceTests,
  files: readonly InputFile[],
  objects: readonly Obj[],
  conversion: Conversion,
  fs: FileSystem,
  engine: PolicyCel,
  kubernetesVersion: KubernetesVersion,
): Promise<SourceTestRun> {
  const given = new Map(files.map((f) => [f.name, f.text]));
  const cases = sourceTestCases(found, (path) => given.get(path) ?? readText(fs, path), objects, conversion);
  const { tests } = await runSourceTestCases(cases, engine, kubernetesVersion);
  return { tests, problems: cases.problems };
}
