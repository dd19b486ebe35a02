/**
 * The source projects' own tests (Kyverno CLI `kyverno-test.yaml`, gator `suite.yaml`) as cases of
 * the converted policies, rule by rule, and their run: one home for `admission-workbench convert`
 * (files read from disk) and the app's Migration view (files open in the workspace). The files a
 * test names are read through `read(path)`, the path resolved against the test's own path; a file
 * `read` does not have is a problem naming it, and the rest still run.
 */
import { isObject, kindOf, nameOf, namespaceOf, obj, str, strList, type Obj } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import { celAtRelease } from '../check/cases';
import { runCases, type CaseResult, type CaseTarget, type PolicyTestCase } from '../policy/cases';
import { runMutatingPolicy } from '../policy/mutate';
import type { PolicyCel } from '../policy/expressions';
import { admittedInput } from '../request/admitted';
import { discoveryFor, gvString, notServedText } from '../admission/discovery';
import { markAdmitted } from '../k8s/typed';
import { setIn } from '../k8s/edit';
import type { PathSegment } from '../base/path';
import { formatPath } from '../base/path-format';
import { parseDocuments } from '../yaml';
import { importGatorSuite, resolvePath } from './gatekeeper/suite';
import { importKyvernoTest, isKyvernoTest, joinPath } from './kyverno/kyverno-test';
import type { RuleTests } from './report';
import { isKyvernoPolicy, kyvernoOccurrence } from './kyverno';
import type { Conversion, RuleResult } from './types';

export { isKyvernoTest, resolvePath };

/** Whether a parsed YAML object is a gator test suite (test.gatekeeper.sh Suite). */
export const isGatorSuite = (o: unknown): boolean => isObject(o) && o.kind === 'Suite' && str(o.apiVersion).startsWith('test.gatekeeper.sh/');

/** Whether an object is a source project's test manifest (Kyverno CLI Test, gator Suite). */
export const isSourceTest = (o: unknown): boolean => isKyvernoTest(o) || isGatorSuite(o);

export const docsOf = (text: string): Obj[] =>
  parseDocuments(text)
    .documents.map((d) => d.object)
    .filter(isObject);

export interface SourceTests {
  /** Paths of Kyverno CLI test manifests. */
  kyverno: string[];
  /** Paths of gator suites. */
  gator: string[];
}

/** The test manifests among `files` (path → text). */
export function findSourceTests(files: ReadonlyMap<string, string>): SourceTests {
  const with_ = (want: (o: unknown) => boolean) => [...files].filter(([, text]) => docsOf(text).some(want)).map(([path]) => path);
  return { kyverno: with_(isKyvernoTest), gator: with_(isGatorSuite) };
}

/** One imported case of a rule: what it runs on, and what the source tool asserts beyond the outcome. */
export interface SourceCase {
  /** `kyverno` or `gator`: the tool whose test it is. */
  tool: 'kyverno' | 'gator';
  /** The test file it came from. */
  file: string;
  case: PolicyTestCase;
  target: CaseTarget;
  /** gator `message` assertions: regular expressions (Go RE2) a denial's message must contain a match of. */
  messagePatterns: string[];
  /**
   * A Kyverno mutate rule whose test compares its whole policy's object (kyverno/patch-chain.ts): the
   * produced policies run on the request's object before the case, and on the case's object before
   * it is compared. Such a case is not one of its policy alone (not saved as one).
   */
  chain?: { before: CaseTarget[]; after: CaseTarget[] };
}

export interface SourceTestCases {
  /** Parallel to conversion.rules: the imported cases of each rule (empty: none). */
  byRule: SourceCase[][];
  /** What could not be imported (a missing file, a result on a rule not converted), by file. */
  problems: string[];
}

/**
 * Every test in `found` as cases of `conversion` (of `objects`, every document given). The
 * Kyverno cases run with the bindings set to Deny: `kyverno test` judges a rule's decision
 * whatever its failure action (Audit included). `asBound`: the cases expect what the produced
 * bindings do instead (a failing rule bound with Audit alone admits), as saved cases of the
 * converted policies, run with the workspace's bindings, must.
 */
export function sourceTestCases(
  found: SourceTests,
  read: (path: string) => string | undefined,
  objects: readonly Obj[],
  conversion: Conversion,
  options: { asBound?: boolean } = {},
): SourceTestCases {
  const byRule: SourceCase[][] = conversion.rules.map(() => []);
  const problems: string[] = [];
  const deny: Conversion = options.asBound
    ? conversion
    : {
        ...conversion,
        objects: conversion.objects.map((o) =>
          kindOf(o) === 'ValidatingAdmissionPolicyBinding' ? { ...o, spec: { ...obj(o.spec), validationActions: ['Deny'] } } : o,
        ),
      };
  for (const testPath of found.kyverno) {
    const text = read(testPath);
    const test = text === undefined ? undefined : docsOf(text).find(isKyvernoTest);
    if (!test || text === undefined) continue;
    // importKyvernoTest names files by joinPath(dir of the test, relative path)
    const dir = testPath.includes('/') ? testPath.slice(0, testPath.lastIndexOf('/')) : '';
    const named = [
      ...strList(test.policies),
      ...strList(test.resources),
      str(test.resource),
      str(test.variables),
      ...(Array.isArray(test.results) ? test.results : []).map((r) => str(obj(r).patchedResources)),
    ].filter(Boolean);
    const texts: Record<string, string> = { [testPath]: text };
    for (const rel of named) {
      const t = read(resolvePath(testPath, rel));
      if (t !== undefined) texts[joinPath(dir, rel)] = t;
    }
    // the policies are converted from the documents given; a policy file the test names that is not among them is said
    for (const rel of strList(test.policies))
      if (texts[joinPath(dir, rel)] === undefined) problems.push(`${testPath}: policies: ${joinPath(dir, rel)}: file not given`);
    const imported = importKyvernoTest(testPath, texts, { ...deny, rules: ownRules(testPath, dir, test, texts, objects, conversion, problems) });
    // each problem names the test it comes from (a missing file: the file too)
    for (const p of imported.problems) problems.push(`${p.path.startsWith(testPath) ? '' : `${testPath}: `}${p.path}: ${p.message}`);
    // produced names are unique: two policies of one kind and name are converted apart (SourceRule.occurrence)
    const targetOf = (policy: string): CaseTarget => {
      const p = deny.objects.find((o) => nameOf(o) === policy && kindOf(o).endsWith('AdmissionPolicy'))!;
      return { policy: p, bindings: deny.objects.filter((o) => kindOf(o) === `${kindOf(p)}Binding` && str(obj(o.spec).policyName) === policy) };
    };
    for (const { policy, cases, chains } of imported.policyCases) {
      const target = targetOf(policy);
      const index = conversion.rules.findIndex((r) => r.produced.includes(`${kindOf(target.policy)}/${policy}`));
      cases.forEach((c, i) => {
        const chain = chains[i] && { before: chains[i].before.map(targetOf), after: chains[i].after.map(targetOf) };
        byRule[index]?.push({ tool: 'kyverno', file: testPath, case: c, target, messagePatterns: [], ...(chain ? { chain } : {}) });
      });
    }
  }

  // gator suites: the files they name, keyed as importGatorSuite resolves them
  const suites: Record<string, string> = {};
  for (const path of found.gator) {
    const text = read(path);
    const suite = text === undefined ? undefined : docsOf(text).find(isGatorSuite);
    if (!suite || text === undefined) continue;
    suites[path] = text;
    for (const t of Array.isArray(suite.tests) ? suite.tests : []) {
      const cases: unknown[] = Array.isArray(obj(t).cases) ? (obj(t).cases as unknown[]) : [];
      for (const rel of [obj(t).template, obj(t).constraint, ...cases.map((c) => obj(c).object)]) {
        if (typeof rel !== 'string' || !rel) continue;
        const at = resolvePath(path, rel);
        const t2 = read(at);
        if (t2 !== undefined) suites[at] = t2;
      }
    }
  }
  const gator = importGatorSuite(suites);
  for (const p of gator.problems) problems.push(`${p.file}: ${p.path}: ${p.message}`);
  for (const t of gator.tests) {
    // The constraint's rule. A kind and name given more than once (the library's samples reuse
    // names) are told apart by their order: the n-th such constraint among the inputs has the n-th
    // such rule, and its objects are the n-th of their names.
    const same = (kind: string, name: string) => kind === kindOf(t.constraint) && name === nameOf(t.constraint);
    const alike = objects.filter((o) => same(kindOf(o), nameOf(o)));
    const nth = Math.max(
      0,
      alike.findIndex((o) => JSON.stringify(o) === JSON.stringify(t.constraint)),
    );
    const constraintRules = conversion.rules.flatMap((r, i) => (r.source.kind !== 'ConstraintTemplate' && same(r.source.kind, r.source.name) ? [i] : []));
    const index = constraintRules[nth] ?? -1;
    const rule = conversion.rules[index];
    if (!rule || rule.status === 'unsupported') {
      problems.push(
        `${t.suite}: test ${t.name}: constraint ${kindOf(t.constraint)}/${nameOf(t.constraint)} is not converted${rule?.reason ? `: ${rule.reason}` : ''}`,
      );
      continue;
    }
    // its own object of a kind (standalone: the policy and binding; as Gatekeeper: the binding), else the template's (as Gatekeeper: the policy)
    const objectOf = (kind: string, name: string) => {
      const own = rule.produced.find((p) => p.startsWith(`${kind}/`));
      if (!own) return conversion.objects.find((o) => kindOf(o) === kind && nameOf(o) === name);
      const before = constraintRules.filter((i) => i < index && conversion.rules[i]!.produced.includes(own)).length;
      return conversion.objects.filter((o) => `${kindOf(o)}/${nameOf(o)}` === own)[before];
    };
    const target: CaseTarget = {
      policy: objectOf('ValidatingAdmissionPolicy', t.policy),
      bindings: [objectOf('ValidatingAdmissionPolicyBinding', t.binding)],
      paramDocuments: [t.constraint],
    };
    for (const c of t.cases) byRule[index]!.push({ tool: 'gator', file: t.suite, case: c, target, messagePatterns: t.messagePatterns[c.name] ?? [] });
  }
  return { byRule, problems };
}

/**
 * The rules a Kyverno test's results are of: those of the policies in the files its `policies:`
 * names, not whatever has their names elsewhere in the input (a library holds a ClusterPolicy and a
 * ValidatingPolicy of one name, or two ClusterPolicies of one name in two folders). A policy of
 * those files that is not among the converted documents is a problem. When none of the files could
 * be read (said already), every rule: importKyvernoTest refuses a name that several documents have.
 */
function ownRules(
  testPath: string,
  dir: string,
  test: Obj,
  texts: Readonly<Record<string, string>>,
  objects: readonly Obj[],
  conversion: Conversion,
  problems: string[],
): RuleResult[] {
  const files = strList(test.policies).map((rel) => joinPath(dir, rel));
  if (!files.some((f) => texts[f] !== undefined)) return conversion.rules;
  const own: { kind: string; namespace: string; name: string; occurrence: number }[] = [];
  for (const [i, file] of files.entries())
    for (const policy of docsOf(texts[file] ?? '').filter(isKyvernoPolicy)) {
      const occurrence = kyvernoOccurrence(objects, policy);
      if (occurrence === undefined)
        problems.push(
          `${testPath}: policies: ${resolvePath(testPath, strList(test.policies)[i]!)}: ${kindOf(policy)}/${nameOf(policy)} is not among the documents converted`,
        );
      else own.push({ kind: kindOf(policy), namespace: namespaceOf(policy), name: nameOf(policy), occurrence });
    }
  return conversion.rules.filter((r) =>
    own.some(
      (o) => o.kind === r.source.kind && o.namespace === (r.source.namespace ?? '') && o.name === r.source.name && o.occurrence === (r.source.occurrence ?? 1),
    ),
  );
}

/** A gator message pattern (Go RE2) as a JavaScript regular expression; one JavaScript cannot read matches nothing. */
const matches = (pattern: string, message: string): boolean => {
  try {
    return new RegExp(pattern).test(message);
  } catch {
    return false;
  }
};

const TOOL = { kyverno: '`kyverno test`', gator: '`gator verify`' } as const;

/** Runs one case; passed when its outcome and gator message patterns hold. */
async function runOne(sc: SourceCase, c: PolicyTestCase, cel: PolicyCel, kubernetesVersion: KubernetesVersion): Promise<{ result: CaseResult; why: string[] }> {
  if (sc.chain) return runChained(sc, sc.chain, c, cel, kubernetesVersion);
  const [r] = (await runCases(sc.target, [c], cel, { kubernetesVersion })).results;
  // gator's `message` is a regular expression matched anywhere in a violation's message
  const unmatched = sc.messagePatterns.filter((p) => !matches(p, r!.actual.message ?? ''));
  return {
    result: r!,
    why: [...r!.failures, ...unmatched.map((p) => `message does not match ${JSON.stringify(p)}: ${JSON.stringify(r!.actual.message ?? '')}`)],
  };
}

/**
 * A Kyverno mutate rule's case on its whole policy's object: the request's object patched by the
 * chain's policies before it, the case run on that (its outcome is the rule's), its object patched by
 * those after it, then compared. A chained policy's error fails the case (the object is not known).
 */
async function runChained(
  sc: SourceCase,
  chain: NonNullable<SourceCase['chain']>,
  c: PolicyTestCase,
  cel: PolicyCel,
  kubernetesVersion: KubernetesVersion,
): Promise<{ result: CaseResult; why: string[] }> {
  const errors: string[] = [];
  // the case's param (a ConfigMap from the test's values) is its own rule's: another rule's policy reads its paramRef
  const { params: _, ...shared } = c.input;
  const through = async (targets: readonly CaseTarget[], object: unknown) => {
    for (const t of targets) {
      const request = { ...c.input.request, object: markAdmitted(object) };
      const r = await runMutatingPolicy({ ...t, ...shared, request, kubernetesVersion }, cel);
      if (r.errors.length) errors.push(`${nameOf(t.policy)}: ${r.errors.join('; ')}`);
      object = r.object;
    }
    return object;
  };
  const input = await admittedInput(c.input, kubernetesVersion);
  const object = await through(chain.before, input.request.object);
  const names = (ts: readonly CaseTarget[]) => ts.map((t) => nameOf(t.policy));
  const what = `the object its whole policy patched (${[...names(chain.before), nameOf(sc.target.policy), ...names(chain.after)].join(', ')})`;
  const own = { ...c, input: { ...c.input, request: { ...c.input.request, object: markAdmitted(object) } } };
  const [r] = (await runCases(sc.target, [own], cel, { kubernetesVersion, compareAfter: { run: (o) => through(chain.after, o), what } })).results;
  return { result: r!, why: [...r!.failures, ...errors.map((e) => `a policy of the chain failed: ${e}`)] };
}

/** The case with its request's object as given (marked decoded: the run takes it as it is). */
const withObject = (c: PolicyTestCase, object: Obj): PolicyTestCase => ({
  ...c,
  input: { ...c.input, request: { ...c.input.request, object: markAdmitted(object) } },
});

/** Fields of `decoded` absent from `written`, each at the first level it is absent (a list's items by index). */
function added(written: unknown, decoded: unknown, path: PathSegment[] = [], out: { path: PathSegment[]; value: unknown }[] = []) {
  if (Array.isArray(decoded) && Array.isArray(written)) decoded.forEach((v, i) => i < written.length && added(written[i], v, [...path, i], out));
  else if (isObject(decoded) && isObject(written))
    for (const [k, v] of Object.entries(decoded)) {
      if (!(k in written)) out.push({ path: [...path, k], value: v });
      else added(written[k], v, [...path, k], out);
    }
  return out;
}

/** At most this many fields are tried one by one. */
const MAX_TRIED = 40;

/**
 * Why the source tool and the apiserver decide a failing case differently, when they do: the
 * tools review the object as written, the apiserver decodes it first (defaults, and a list field
 * without omitempty in its Go type, a Pod's `spec.containers`, left out becomes `null`). Held by
 * runs: the case passes with the object as written, and fails with it plus the fields named
 * (each tried alone, added as the apiserver decodes it). Undefined when it fails as written too.
 */
export async function decodeDifference(sc: SourceCase, cel: PolicyCel, release: KubernetesVersion): Promise<string | undefined> {
  const written = sc.case.input.request.object;
  if (!isObject(written)) return undefined;
  if ((await runOne(sc, withObject(sc.case, structuredClone(written)), cel, release)).why.length) return undefined;
  const decoded = (await admittedInput(sc.case.input, release)).request.object;
  const fields = added(written, decoded);
  const culprits: typeof fields = [];
  for (const f of fields.slice(0, MAX_TRIED)) {
    const one = setIn(structuredClone(written), f.path, f.value) as Obj;
    if ((await runOne(sc, withObject(sc.case, one), cel, release)).why.length) culprits.push(f);
  }
  const named = culprits.length ? culprits : fields.slice(0, 3);
  const list = named.map((f) => `${formatPath(f.path)}: ${f.value === null ? 'null' : JSON.stringify(f.value)}`).join(', ');
  return `the apiserver decodes the object with ${list}${culprits.length || fields.length <= 3 ? '' : ', …'} (absent in the file, which ${TOOL[sc.tool]} reviews as written)`;
}

/**
 * Why a failing case is one the apiserver never admits: its resource is a built-in version the
 * release does not serve (a test written for an older cluster: `batch/v1beta1` CronJob).
 * `kyverno test` and gator match a rule by kind, whatever the version; the apiserver answers 404.
 */
export function unservedDifference(sc: SourceCase, release: KubernetesVersion): string | undefined {
  const { resource } = sc.case.input.request;
  if (!resource) return undefined;
  const discovery = discoveryFor([], release);
  const { info, unserved } = discovery.lookup(resource);
  if (info || !unserved) return undefined;
  return `${notServedText(`${gvString(resource)} ${resource.resource}`, unserved, discovery.minor)} (${TOOL[sc.tool]} reviews it whatever its version)`;
}

/** One case run: passed, or why not, and whether the source tool sees its object otherwise (decodeDifference). */
export interface SourceCaseRun {
  name: string;
  pass: boolean;
  why: string;
  differs?: string;
  result: CaseResult;
}

/** Runs every imported case; per rule its counts (RuleTests) and each case's run. */
export async function runSourceTestCases(
  cases: SourceTestCases,
  engine: PolicyCel,
  kubernetesVersion: KubernetesVersion,
): Promise<{ tests: (RuleTests | undefined)[]; runs: SourceCaseRun[][] }> {
  const cel = celAtRelease(engine, kubernetesVersion);
  const runs: SourceCaseRun[][] = [];
  for (const rule of cases.byRule) {
    const out: SourceCaseRun[] = [];
    for (const sc of rule) {
      const { result, why } = await runOne(sc, sc.case, cel, kubernetesVersion);
      const pass = why.length === 0;
      const differs = pass ? undefined : (unservedDifference(sc, kubernetesVersion) ?? (await decodeDifference(sc, cel, kubernetesVersion)));
      out.push({ name: result.name, pass, why: why.join('; '), ...(differs ? { differs } : {}), result });
    }
    runs.push(out);
  }
  const tests = runs.map((rule, i): RuleTests | undefined =>
    cases.byRule[i]!.length
      ? {
          passed: rule.filter((r) => r.pass).length,
          failed: rule.filter((r) => !r.pass && !r.differs).map((r) => ({ name: r.name, why: r.why })),
          differs: rule.filter((r) => r.differs).map((r) => ({ name: r.name, why: r.why, differs: r.differs! })),
        }
      : undefined,
  );
  return { tests, runs };
}
