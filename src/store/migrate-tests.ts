/**
 * The source projects' tests open in the workspace (Kyverno CLI Test, gator Suite documents) run
 * on the conversion of the workspace's policies (src/migrate/source-tests.ts), for the Migration
 * view's Tests column. A test names its files by paths relative to itself; the workspace knows a
 * file by its documents' origin (the path the file was opened under: a file picker gives the
 * name alone, a folder the path inside it), so a path is found by its whole name, else by its
 * last part when one open file alone has it. A file not open is a problem naming it.
 */
import { evaluate } from '../cel';
import { isObject, kindOf, nameOf, obj, str } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import type { Conversion } from '../migrate';
import { objectRef, type RuleTests } from '../migrate/report';
import { isGatorSuite, isKyvernoTest, runSourceTestCases, sourceTestCases, type SourceCaseRun, type SourceTests } from '../migrate/source-tests';
import type { WorkspaceDoc } from './documents';
import { testInputs } from './test-inputs';
import { workspace } from './workspace';

/** The open files: origin → the text of its documents, in order (a file of several documents joined with `---`). */
export function openFiles(docs: readonly WorkspaceDoc[]): Map<string, string> {
  const parts = new Map<string, string[]>();
  for (const d of docs) if (d.origin) parts.set(d.origin, [...(parts.get(d.origin) ?? []), d.text]);
  return new Map([...parts].map(([origin, texts]) => [origin, texts.map((t) => t.replace(/\n*$/, '\n')).join('---\n')]));
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** `read(path)` over the open files: the whole path, else the one open file with its last part. */
export function fileReader(files: ReadonlyMap<string, string>): (path: string) => string | undefined {
  return (path) => {
    const whole = files.get(path) ?? files.get(path.replace(/^\/+/, ''));
    if (whole !== undefined) return whole;
    const same = [...files.keys()].filter((o) => baseName(o) === baseName(path));
    return same.length === 1 ? files.get(same[0]!) : undefined;
  };
}

/** The tests open in the workspace: the origins of its Kyverno Test and gator Suite documents. */
export function openSourceTests(docs: readonly WorkspaceDoc[]): SourceTests {
  const origins = (want: (o: unknown) => boolean) => [...new Set(docs.filter((d) => d.origin && want(d.object)).map((d) => d.origin!))];
  return { kyverno: origins(isKyvernoTest), gator: origins(isGatorSuite) };
}

export interface WorkspaceSourceTests {
  /** Parallel to conversion.rules: the counts (undefined: no test names the rule). */
  tests: (RuleTests | undefined)[];
  /** Parallel to conversion.rules: each case's run. */
  runs: SourceCaseRun[][];
  /** What could not be imported (a file not open, a result on a rule not converted). */
  problems: string[];
}

/** Runs the open tests on `conversion` (of the workspace's documents); undefined when no test is open. */
export async function runWorkspaceSourceTests(
  docs: readonly WorkspaceDoc[],
  conversion: Conversion,
  kubernetesVersion: KubernetesVersion,
): Promise<WorkspaceSourceTests | undefined> {
  const found = openSourceTests(docs);
  if (!found.kyverno.length && !found.gator.length) return undefined;
  const objects = docs.flatMap((d) => (isObject(d.object) ? [d.object] : []));
  const cases = sourceTestCases(found, fileReader(openFiles(docs)), objects, conversion);
  const { tests, runs } = await runSourceTestCases(cases, { evaluate }, kubernetesVersion);
  return { tests, runs, problems: cases.problems };
}

/**
 * After Convert: the open tests' cases saved as cases of the produced policies that are documents
 * of the workspace, so that they run with the policy's other cases (the policy panel, `check
 * --cases` on a workspace file). A saved case runs with every binding of its policy in the
 * workspace; a gator test is of one constraint, so its cases are saved only where the policy has
 * that one binding (as Gatekeeper generates it, a template's policy has one per constraint: the
 * Migration view runs those per constraint). gator `message` patterns are checked in the Migration
 * view only (a saved case compares whole messages). A Kyverno mutate rule's case whose expected
 * object is its whole policy's (patch-chain.ts) is not one of the policy alone: not saved either.
 * Returns what was saved, and what was not (each with why).
 */
export function saveSourceCases(conversion: Conversion): { saved: number; left: { name: string; why: string }[] } {
  const docs = workspace.getState().docs;
  const found = openSourceTests(docs);
  if (!found.kyverno.length && !found.gator.length) return { saved: 0, left: [] };
  const objects = docs.flatMap((d) => (isObject(d.object) ? [d.object] : []));
  const cases = sourceTestCases(found, fileReader(openFiles(docs)), objects, conversion, { asBound: true });
  const byRef = new Map(docs.map((d) => [objectRef(d.object), d]));
  const bindings = (policy: unknown) =>
    conversion.objects.filter((o) => kindOf(o) === `${kindOf(policy)}Binding` && str(obj(o.spec).policyName) === nameOf(policy)).length;
  let saved = 0;
  const left: { name: string; why: string }[] = [];
  for (const sc of cases.byRule.flat()) {
    const doc = byRef.get(objectRef(sc.target.policy));
    if (!doc) continue;
    if (sc.tool === 'gator' && bindings(sc.target.policy) > 1) {
      left.push({
        name: `${nameOf(sc.target.policy)}: ${sc.case.name}`,
        why: "the policy has several constraints' bindings; the Migration view runs them per constraint",
      });
      continue;
    }
    // its expected object is its whole Kyverno policy's, made by other produced policies too
    if (sc.chain) {
      left.push({
        name: `${nameOf(sc.target.policy)}: ${sc.case.name}`,
        why: "the expected object is the whole Kyverno policy's; the Migration view runs them so",
      });
      continue;
    }
    testInputs.getState().savePolicyCase(doc.id, sc.case);
    saved++;
  }
  return { saved, left };
}
