/**
 * `admission-workbench convert`: the source project's own tests among the inputs (Kyverno CLI
 * `kyverno-test.yaml`, gator `suite.yaml`) run on the converted policies, rule by rule. The files a
 * test names (resources, values, templates, constraints, objects) are read through the CLI's file
 * system, relative to the test file. Kyverno's policy repositories keep a policy's test in a hidden
 * `.kyverno-test/` directory beside it, which a directory walk skips: it is looked for there too.
 */
import { isObject, kindOf, nameOf, obj, str, strList, type Obj } from '../base/json';
import type { Conversion } from '../migrate';
import { importGatorSuite, resolvePath } from '../migrate/gatekeeper/suite';
import { importKyvernoTest, isKyvernoTest, joinPath } from '../migrate/kyverno/kyverno-test';
import type { RuleTests } from '../migrate/report';
import type { KubernetesVersion } from '../base/releases';
import { celAtRelease } from '../check/cases';
import { runCases } from '../policy/cases';
import type { PolicyCel } from '../policy/expressions';
import { parseDocuments } from '../yaml';
import type { FileSystem, InputFile } from './inputs';

export interface SourceTestRun {
  /** Parallel to conversion.rules: the tests run on each rule's objects (undefined: none). */
  tests: (RuleTests | undefined)[];
  /** What could not be imported or run (a missing file, a result on a rule not converted), by file. */
  problems: string[];
}

const isSuite = (o: unknown): boolean => isObject(o) && o.kind === 'Suite' && str(o.apiVersion).startsWith('test.gatekeeper.sh/');

const docsOf = (text: string): Obj[] =>
  parseDocuments(text)
    .documents.map((d) => d.object)
    .filter(isObject);

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

export interface SourceTests {
  /** Paths of Kyverno CLI test manifests: among the inputs, or in `.kyverno-test/` beside one. */
  kyverno: string[];
  /** Input files holding a gator Suite. */
  gator: string[];
}

/** The tests among the inputs and beside them. */
export function findSourceTests(files: readonly InputFile[], fs: FileSystem): SourceTests {
  const kyverno = files.filter((f) => docsOf(f.text).some(isKyvernoTest)).map((f) => f.name);
  // a policy's test in `.kyverno-test/` beside it (skipped by the directory walk as a hidden directory)
  for (const dir of new Set(files.filter((f) => f.name !== '<stdin>').map((f) => fs.dirname(f.name)))) {
    const path = fs.join(fs.join(dir, '.kyverno-test'), 'kyverno-test.yaml');
    if (!kyverno.includes(path) && exists(fs, path)) kyverno.push(path);
  }
  return { kyverno, gator: files.filter((f) => docsOf(f.text).some(isSuite)).map((f) => f.name) };
}

/** A gator message pattern (Go RE2) as a JavaScript regular expression; one JavaScript cannot read matches nothing. */
const matches = (pattern: string, message: string): boolean => {
  try {
    return new RegExp(pattern).test(message);
  } catch {
    return false;
  }
};

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
  const cel = celAtRelease(engine, kubernetesVersion);
  const tests: (RuleTests | undefined)[] = conversion.rules.map(() => undefined);
  const problems: string[] = [];
  const record = (index: number, passed: boolean, name: string, why: string) => {
    const t = (tests[index] ??= { passed: 0, failed: [] });
    if (passed) t.passed++;
    else t.failed.push({ name, why });
  };

  const given = new Map(files.map((f) => [f.name, f.text]));
  const deny: Conversion = {
    ...conversion,
    objects: conversion.objects.map((o) =>
      kindOf(o) === 'ValidatingAdmissionPolicyBinding' ? { ...o, spec: { ...obj(o.spec), validationActions: ['Deny'] } } : o,
    ),
  };
  for (const testPath of found.kyverno) {
    const text = given.get(testPath) ?? readText(fs, testPath);
    const test = text === undefined ? undefined : docsOf(text).find(isKyvernoTest);
    if (!test || text === undefined) continue;
    // importKyvernoTest names files by joinPath(dir of the test, relative path): read each from the real directory
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
      const t = readText(fs, fs.join(fs.dirname(testPath), rel));
      if (t !== undefined) texts[joinPath(dir, rel)] = t;
    }
    // `kyverno test` judges the rule's decision whatever its failure action (Audit included): run with the bindings set to Deny
    const imported = importKyvernoTest(testPath, texts, deny);
    for (const p of imported.problems) problems.push(`${p.path}: ${p.message}`);
    for (const { policy, cases } of imported.policyCases) {
      const p = conversion.objects.find((o) => nameOf(o) === policy && kindOf(o).endsWith('AdmissionPolicy'))!;
      const index = conversion.rules.findIndex((r) => r.produced.includes(`${kindOf(p)}/${policy}`));
      const bindings = deny.objects.filter((o) => kindOf(o) === `${kindOf(p)}Binding` && str(obj(o.spec).policyName) === policy);
      const report = await runCases({ policy: p, bindings }, cases, cel, { kubernetesVersion });
      for (const r of report.results) record(index, r.pass, r.name, r.failures.join('; '));
    }
  }

  // gator suites: the files they name, keyed as importGatorSuite resolves them
  const suites: Record<string, string> = {};
  for (const f of files) {
    if (!found.gator.includes(f.name)) continue;
    const suite = docsOf(f.text).find(isSuite)!;
    suites[f.name] = f.text;
    for (const t of Array.isArray(suite.tests) ? suite.tests : []) {
      const cases: unknown[] = Array.isArray(obj(t).cases) ? (obj(t).cases as unknown[]) : [];
      const rels = [obj(t).template, obj(t).constraint, ...cases.map((c) => obj(c).object)];
      for (const rel of rels) {
        if (typeof rel !== 'string' || !rel) continue;
        const path = resolvePath(f.name, rel);
        const t2 = given.get(path) ?? readText(fs, path);
        if (t2 !== undefined) suites[path] = t2;
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
    const policy = objectOf('ValidatingAdmissionPolicy', t.policy);
    const binding = objectOf('ValidatingAdmissionPolicyBinding', t.binding);
    const report = await runCases({ policy, bindings: [binding], paramDocuments: [t.constraint] }, t.cases, cel, { kubernetesVersion });
    for (const r of report.results) {
      // gator's `message` is a regular expression matched anywhere in a violation's message
      const unmatched = (t.messagePatterns[r.name] ?? []).filter((p) => !matches(p, r.actual.message ?? ''));
      const why = [...r.failures, ...unmatched.map((p) => `message does not match ${JSON.stringify(p)}: ${JSON.stringify(r.actual.message ?? '')}`)];
      record(index, why.length === 0, r.name, why.join('; '));
    }
  }
  return { tests, problems };
}
