/**
 * Gatekeeper `gator verify` suites (`suite.yaml`, test.gatekeeper.sh/v1alpha1 Suite) as saved
 * cases of the converted policies. Each test names a template and a constraint (paths relative to
 * the suite) and cases with an object (a plain object or an AdmissionReview) and assertions
 * `violations: yes | no | N` (optionally with `message`).
 *
 * A case maps to one outcome of the policy generated for the template, run with the binding of the
 * test's constraint (`GatorTest.binding`, param = the constraint):
 * - violations yes or N > 0 → `deny` (the apiserver stops at the first failed validation, so a
 *   count above 1 is not checked; `message` patterns are kept in `messagePatterns`);
 * - no / 0 → `admit`, or `skip` when Gatekeeper's own match leaves the object out (match.ts):
 *   gator then reviews nothing, the generated policy's match conditions do not match.
 * gator reviews a plain object with an empty operation; the case uses CREATE (what the apiserver
 * sends; the library's CEL only tests for UPDATE).
 */
import { isObject, kindOf, nameOf, namespaceOf, obj, type Obj } from '../../base/json';
import { resourceForKind } from '../../k8s/resources';
import type { AdmissionRequest, PolicyCaseExpectation, PolicyTestCase } from '../../request/model';
import { parseDocuments } from '../../yaml/index';
import { bindingName } from './as-gatekeeper';
import { gatekeeperMismatch } from './match';
import { isConstraint, isTemplate, readTemplate } from './read';

export interface GatorTest {
  /** The suite file and the test's name in it. */
  suite: string;
  name: string;
  template: Obj;
  constraint: Obj;
  /** The generated policy's name (`gatekeeper-<template>`) and the constraint's binding's: run the cases with that binding only. */
  policy: string;
  binding: string;
  cases: PolicyTestCase[];
  /** Per case name, the `message` assertions: regular expressions (Go RE2 syntax) a denial's message must contain a match of. */
  messagePatterns: Record<string, string[]>;
}

export interface GatorSuiteImport {
  tests: GatorTest[];
  /** Every template and constraint the suites name, once each (to convert with convertPolicies). */
  objects: Obj[];
  /** What could not be read or has no counterpart, by file and YAML path; nothing is dropped silently. */
  problems: { file: string; path: string; message: string }[];
}

const isSuite = (o: unknown): boolean => isObject(o) && o.kind === 'Suite' && String(o.apiVersion ?? '').startsWith('test.gatekeeper.sh/');

/** `dir/rel`, with `.` and `..` resolved (posix paths). */
export function resolvePath(from: string, rel: string): string {
  const parts = [...from.split('/').slice(0, -1), ...rel.split('/')];
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..') out.pop();
    else out.push(p);
  }
  return (from.startsWith('/') ? '/' : '') + out.join('/');
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** The request gator reviews for an object file: the AdmissionReview's request, or CREATE of the object. */
function requestFor(doc: Obj): AdmissionRequest {
  const review = doc.kind === 'AdmissionReview' ? obj(doc.request) : undefined;
  const object = review ? (isObject(review.object) ? review.object : undefined) : doc;
  const oldObject = review && isObject(review.oldObject) ? review.oldObject : undefined;
  const subject = object ?? oldObject ?? {};
  const { group, version } = splitApiVersion(String(subject.apiVersion ?? ''));
  const kind = kindOf(subject);
  const givenKind = review ? obj(review.kind) : {};
  const operation = review && typeof review.operation === 'string' && review.operation ? review.operation : object ? 'CREATE' : 'DELETE';
  const namespace = (review && typeof review.namespace === 'string' ? review.namespace : '') || namespaceOf(subject);
  const request: Obj = {
    operation,
    kind: { group: String(givenKind.group ?? group), version: String(givenKind.version ?? version), kind: String(givenKind.kind ?? kind) },
    resource: { group, version, resource: resourceForKind(kind) },
    name: (review && typeof review.name === 'string' ? review.name : '') || nameOf(subject),
    namespace,
    userInfo: review && isObject(review.userInfo) ? review.userInfo : { username: '' },
  };
  if (object) request.object = object;
  if (oldObject) request.oldObject = oldObject;
  return request as unknown as AdmissionRequest;
}

type Assertion = { violations: 'yes' | 'no' | number; message?: string };

function readAssertions(v: unknown, where: string, problems: GatorSuiteImport['problems'], file: string): Assertion[] {
  const out: Assertion[] = [];
  (Array.isArray(v) ? v : []).forEach((a, i) => {
    const o = obj(a);
    let violations: Assertion['violations'] | undefined;
    const raw = o.violations;
    if (raw === 'yes' || raw === true) violations = 'yes';
    else if (raw === 'no' || raw === false || raw === 0) violations = 'no';
    else if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) violations = raw;
    else if (raw === undefined) violations = 'yes'; // gator: an assertion without violations means "at least one"
    if (violations === undefined) {
      problems.push({ file, path: `${where}.assertions[${i}].violations`, message: `unreadable violations ${JSON.stringify(raw)}` });
      return;
    }
    out.push({ violations, ...(typeof o.message === 'string' ? { message: o.message } : {}) });
  });
  return out;
}

/**
 * Reads every suite among `files` (path → text; the templates, constraints and objects they name
 * must be among them, by the path relative to the suite).
 */
export function importGatorSuite(files: Readonly<Record<string, string>>): GatorSuiteImport {
  const problems: GatorSuiteImport['problems'] = [];
  const tests: GatorTest[] = [];
  const objects: Obj[] = [];
  const parsed = new Map<string, Obj[]>();
  const docsOf = (path: string): Obj[] | undefined => {
    if (parsed.has(path)) return parsed.get(path);
    const text = files[path];
    if (text === undefined) return undefined;
    const r = parseDocuments(text);
    for (const e of r.errors) problems.push({ file: path, path: '', message: `line ${e.line}: ${e.message}` });
    const docs = r.documents.map((d) => d.object).filter(isObject);
    parsed.set(path, docs);
    return docs;
  };
  const one = (suite: string, rel: unknown, where: string, want: (o: Obj) => boolean, what: string): Obj | undefined => {
    if (typeof rel !== 'string' || !rel) {
      problems.push({ file: suite, path: where, message: `no ${what} file named` });
      return undefined;
    }
    const path = resolvePath(suite, rel);
    const docs = docsOf(path);
    if (!docs) {
      problems.push({ file: suite, path: where, message: `${rel}: file not given (${path})` });
      return undefined;
    }
    const hit = docs.find(want);
    if (!hit) problems.push({ file: suite, path: where, message: `${rel}: no ${what} in it` });
    return hit;
  };
  const keep = (o: Obj) => {
    if (!objects.includes(o)) objects.push(o);
  };

  for (const suitePath of Object.keys(files).sort()) {
    if (!/\.ya?ml$/.test(suitePath)) continue;
    const suite = docsOf(suitePath)?.find(isSuite);
    if (!suite) continue;
    (Array.isArray(suite.tests) ? suite.tests : []).forEach((t, ti) => {
      const test = obj(t);
      const where = `tests[${ti}]`;
      const template = one(suitePath, test.template, `${where}.template`, isTemplate, 'ConstraintTemplate');
      const constraint = one(suitePath, test.constraint, `${where}.constraint`, isConstraint, 'constraint');
      if (!template || !constraint) return;
      keep(template);
      keep(constraint);
      const info = readTemplate(template);
      const cases: PolicyTestCase[] = [];
      const patterns: Record<string, string[]> = {};
      (Array.isArray(test.cases) ? test.cases : []).forEach((c, ci) => {
        const gc = obj(c);
        const cw = `${where}.cases[${ci}]`;
        const name = `${String(test.name ?? `test ${ti}`)} / ${String(gc.name ?? `case ${ci}`)}`;
        if (gc.inventory !== undefined)
          problems.push({ file: suitePath, path: `${cw}.inventory`, message: 'inventory (referential data) has no counterpart in native admission: left out' });
        const object = one(suitePath, gc.object, `${cw}.object`, () => true, 'object');
        if (!object) return;
        const assertions = readAssertions(gc.assertions, cw, problems, suitePath);
        const positive = assertions.filter((a) => a.violations !== 'no');
        let expect: PolicyCaseExpectation;
        const request = requestFor(object);
        if (positive.length) {
          const messages = positive.filter((a) => a.message !== undefined);
          expect = { outcome: 'deny' };
          // gator matches `message` as a regular expression anywhere in a violation's message; a saved
          // case compares whole messages, so the patterns are kept beside the cases
          if (messages.length) patterns[name] = messages.map((m) => m.message!);
          if (positive.some((a) => typeof a.violations === 'number' && a.violations > 1))
            problems.push({
              file: suitePath,
              path: `${cw}.assertions`,
              message: 'a count above 1 is not checked: the apiserver stops at the first failed validation',
            });
        } else {
          const subject = obj(request.object ?? request.oldObject);
          const left = gatekeeperMismatch(constraint, subject);
          expect = { outcome: left ? 'skip' : 'admit' };
        }
        cases.push({ name, input: { request }, expect });
      });
      tests.push({
        suite: suitePath,
        name: String(test.name ?? `test ${ti}`),
        template,
        constraint,
        policy: `gatekeeper-${info.name}`,
        binding: bindingName(kindOf(constraint), nameOf(constraint)),
        cases,
        messagePatterns: patterns,
      });
    });
  }
  return { tests, objects, problems };
}
