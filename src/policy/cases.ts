/**
 * Saved test cases for a policy: run them (pass/fail with reasons and a summary), and
 * export them as a kaptest (github.com/pfnet/kaptest) test manifest so they can run in CI.
 *
 * Outcomes: `admit`, `deny`, `warn` (admitted with warnings), `skip` (the policy did not
 * apply) are the run's outcome; `error` passes when the run met an evaluation or
 * configuration error, whatever the failurePolicy then did with it. For a
 * MutatingAdmissionPolicy, `admit` means "admitted" (mutated or not); `expect.object`
 * is compared with the mutated object, and a policy that did not apply (`skip`) admits the
 * object as it came, so `admit` with that object expected passes too (Kyverno's mutate `skip`,
 * "no patches applied", imports so). `admit` with `orSkip` passes on a skip whatever the policy
 * (a Kyverno pattern rule's `skip`, src/migrate/kyverno/kyverno-test.ts).
 */
import type { KubernetesVersion } from '../base/releases';
import { admittedObject } from '../request/admitted';
import { serializeDocuments } from '../yaml/index';
import { expectedOutcome, type CaseOutcome, type PolicyTestCase, type TestInput } from '../request/model';
import { withDefaults } from '../k8s/defaults';
import { admitBinding, policyBindings } from './dispatch';
import { runMutatingPolicy, type MutatingRunResult } from './mutate';
import type { PolicyCel } from './expressions';
import { runValidatingPolicy, type ValidatingRunResult } from './run';
import { deepEqual, isObject, nameOf, namespaceOf, obj, str } from '../base/json';

export type { CaseOutcome, PolicyCaseExpectation, PolicyTestCase } from '../request/model';

/** The policy under test and its workspace context. */
export interface CaseTarget {
  policy: unknown;
  bindings: readonly unknown[];
  paramDocuments?: readonly unknown[];
  paramScope?: 'Namespaced' | 'Cluster';
}

export interface CaseResult {
  name: string;
  pass: boolean;
  /** Why it failed (empty when it passed). */
  failures: string[];
  actual: { outcome: Exclude<CaseOutcome, 'error'>; errors: string[]; message?: string; warnings: string[]; object?: unknown };
  run: ValidatingRunResult | MutatingRunResult;
}

export interface CasesReport {
  results: CaseResult[];
  summary: { total: number; passed: number; failed: number };
}

const isMutating = (policy: unknown) => obj(policy).kind === 'MutatingAdmissionPolicy';

function messageMatches(expected: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  if (actual === expected) return true;
  const marker = actual.indexOf(' denied request: ');
  if (marker >= 0 && actual.slice(marker + ' denied request: '.length) === expected) return true;
  // warnings: "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': <message>"
  const w = /^Validation failed for ValidatingAdmissionPolicy '[^']*' with binding '[^']*': ([\s\S]*)$/.exec(actual);
  return !!w && w[1] === expected;
}

/** trace: record sub-expression values in the runs (for coverage.ts); results are the same. kubernetesVersion: the release whose apiserver decodes the cases' objects. */
export interface RunCaseOptions {
  trace?: boolean;
  kubernetesVersion?: KubernetesVersion;
  /**
   * The object compared with `expect.object` is the run's as `run` leaves it, named `what` in a
   * failure (a Kyverno mutate rule's case: the policies of the rules after it in its policy run on
   * it, src/migrate/kyverno/patch-chain.ts).
   */
  compareAfter?: { run: (object: unknown) => Promise<unknown>; what: string };
}

export async function runCase(target: CaseTarget, c: PolicyTestCase, cel: PolicyCel, options: RunCaseOptions = {}): Promise<CaseResult> {
  const input = {
    policy: target.policy,
    bindings: target.bindings,
    paramDocuments: target.paramDocuments,
    paramScope: target.paramScope,
    ...c.input,
    ...(options.trace ? { trace: true } : {}),
    ...(options.kubernetesVersion ? { kubernetesVersion: options.kubernetesVersion } : {}),
  };
  const failures: string[] = [];
  let actual: CaseResult['actual'];
  let run: ValidatingRunResult | MutatingRunResult;
  if (isMutating(target.policy)) {
    const r = await runMutatingPolicy(input, cel);
    run = r;
    actual = { outcome: r.outcome, errors: r.errors, message: r.decision.message, warnings: [], object: r.object };
  } else {
    const r = await runValidatingPolicy(input, cel);
    run = r;
    actual = { outcome: r.outcome, errors: r.errors, message: r.decision.message, warnings: r.warnings };
  }
  const e = c.expect;
  if (e.outcome === 'error') {
    if (actual.errors.length === 0) failures.push(`expected an error, got ${actual.outcome} without errors`);
  } else if (
    e.outcome !== actual.outcome &&
    !(e.outcome === 'admit' && actual.outcome === 'skip' && ((isMutating(target.policy) && e.object !== undefined) || e.orSkip))
  ) {
    failures.push(`expected ${expectedOutcome(e)}, got ${actual.outcome}${actual.message ? `: ${actual.message}` : ''}`);
  }
  if (e.message !== undefined) {
    const candidates = [actual.message, ...actual.warnings];
    if (!candidates.some((m) => messageMatches(e.message!, m))) {
      failures.push(`expected message ${JSON.stringify(e.message)}, got ${JSON.stringify(actual.message ?? actual.warnings[0] ?? '')}`);
    }
  }
  // the expected object as the apiserver would decode it, like the run's (src/request/admitted.ts)
  if (e.object !== undefined) {
    const compared = options.compareAfter ? await options.compareAfter.run(actual.object) : actual.object;
    if (!deepEqual(admittedObject(e.object, input), compared))
      failures.push(`${options.compareAfter?.what ?? 'the mutated object'} differs from the expected object`);
  }
  return { name: c.name, pass: failures.length === 0, failures, actual, run };
}

/** Runs every case in order. */
export async function runCases(target: CaseTarget, cases: readonly PolicyTestCase[], cel: PolicyCel, options: RunCaseOptions = {}): Promise<CasesReport> {
  const results: CaseResult[] = [];
  for (const c of cases) results.push(await runCase(target, c, cel, options));
  const passed = results.filter((r) => r.pass).length;
  return { results, summary: { total: results.length, passed, failed: results.length - passed } };
}

// ---------------------------------------------------------------------------
// kaptest export

export interface KaptestExport {
  /** File name → YAML text: `kaptest.yaml` (the manifest), `policy.yaml`, `resources.yaml`. */
  files: Record<string, string>;
  /** What kaptest cannot express, per case. */
  warnings: string[];
}

interface NameWithGVK {
  group?: string;
  version?: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** The first param the policy's bindings resolve for a request (their paramRef against the target's documents), without CEL. */
function resolvedParam(target: CaseTarget, input: TestInput): unknown {
  const policy = withDefaults(target.policy);
  const spec = obj(obj(policy).spec);
  const run = { ...input, paramDocuments: target.paramDocuments, paramScope: target.paramScope };
  for (const b of policyBindings(nameOf(policy), target.bindings).own) {
    const pr = admitBinding({ name: nameOf(b), applies: false, reason: '' }, spec, obj(b.spec), run, 'validate');
    const p = pr?.params.find(isObject);
    if (p) return p;
  }
  return undefined;
}

/**
 * Exports cases as a kaptest v1alpha1 test manifest (internal/tester/manifest.go):
 * `version`, `policies`, `resources`, `vapTestSuites` / `mapTestSuites` with tests
 * `{object, oldObject, param, userInfo, expect, deniedMessage}` /
 * `{object, oldObject, param, userInfo, expect, expectObject}`; objects are referred to
 * by kind/namespace/name and stored in resources.yaml (with the Namespace objects and
 * params). kaptest evaluates only the CEL of the policy, so some of our outcomes map:
 *   - `warn` → `deny` (kaptest ignores validationActions: a false validation is a deny);
 *   - `skip` is kaptest's "a matchCondition is false": skips caused by matchConstraints,
 *     bindings or selectors cannot be expressed (kaptest does not evaluate them) → warning;
 *   - `admit` or `skip` (`orSkip`) exports as the case's run decided (`runs`), else as admit → warning;
 *   - kaptest infers the operation from object/oldObject (CREATE, UPDATE, DELETE) → warning
 *     when the case's operation differs (e.g. CONNECT);
 *   - a MAP case exports as `mutate` + `expectObject` when it has `expect.object`;
 *   - kaptest has no paramRef: a case without a typed param gets the param its run used
 *     (when `runs` are given), else the one the policy's bindings resolve for its request
 *     from the target's documents.
 * Objects with the same kind/namespace/name but different content are renamed
 * (`<name>-<n>`), which is visible to expressions reading metadata.name → warning.
 */
export function toKaptestManifest(target: CaseTarget, cases: readonly PolicyTestCase[], runs?: readonly CaseResult[]): KaptestExport {
  const warnings: string[] = [];
  const resources: unknown[] = [];
  const mutating = isMutating(target.policy);
  const policyName = nameOf(target.policy);
  const paramKind = obj(obj(obj(target.policy).spec).paramKind);

  const gvkOf = (o: unknown) => {
    const apiVersion = str(obj(o).apiVersion);
    const i = apiVersion.indexOf('/');
    return { group: i < 0 ? '' : apiVersion.slice(0, i), version: i < 0 ? apiVersion : apiVersion.slice(i + 1), kind: str(obj(o).kind) };
  };
  /** Adds a resource (deduplicated; renamed on a clash); returns its reference. */
  const addResource = (o: unknown, caseName: string, fallbackName: string): NameWithGVK | undefined => {
    if (!isObject(o)) return undefined;
    let doc: Record<string, unknown> = o;
    if (!nameOf(doc)) doc = { ...doc, metadata: { ...obj(doc.metadata), name: fallbackName } };
    const sameKey = (a: unknown, b: unknown) => {
      const ga = gvkOf(a);
      const gb = gvkOf(b);
      return ga.kind === gb.kind && ga.group === gb.group && namespaceOf(a) === namespaceOf(b) && nameOf(a) === nameOf(b);
    };
    const existing = resources.find((d) => sameKey(d, doc));
    if (existing && !deepEqual(existing, doc)) {
      const base = nameOf(doc);
      const renamed = (k: number) => ({ ...doc, metadata: { ...obj(doc.metadata), name: `${base}-${k}` } });
      let n = 2;
      for (;;) {
        const candidate = renamed(n);
        const clash = resources.find((d) => sameKey(d, candidate));
        if (!clash || deepEqual(clash, candidate)) break;
        n++;
      }
      doc = renamed(n);
      warnings.push(
        `${caseName}: ${gvkOf(o).kind} ${JSON.stringify(base)} renamed to ${JSON.stringify(nameOf(doc))} (another case uses the same name with other content)`,
      );
      if (!resources.some((d) => deepEqual(d, doc))) resources.push(doc);
    } else if (!existing) {
      resources.push(doc);
    }
    const g = gvkOf(doc);
    const ref: NameWithGVK = { kind: g.kind, name: nameOf(doc) };
    if (g.group) ref.group = g.group;
    if (g.version) ref.version = g.version;
    if (namespaceOf(doc)) ref.namespace = namespaceOf(doc);
    return ref;
  };

  const tests: Record<string, unknown>[] = [];
  cases.forEach((c, i) => {
    const t: Record<string, unknown> = {};
    const q = c.input.request;
    const object = addResource(q.object, c.name, `case-${i + 1}-object`);
    const oldObject = addResource(q.oldObject, c.name, `case-${i + 1}-old`);
    if (object) t.object = object;
    if (oldObject) t.oldObject = oldObject;
    const inferred = object && oldObject ? 'UPDATE' : object ? 'CREATE' : oldObject ? 'DELETE' : '';
    if (q.operation !== inferred) {
      warnings.push(`${c.name}: kaptest infers ${inferred || 'no operation'} from object/oldObject, the case uses ${q.operation}`);
    }
    if (c.input.namespaceObject !== undefined) addResource(c.input.namespaceObject, c.name, str(q.namespace) || `case-${i + 1}-namespace`);
    let param: unknown = c.input.params;
    if (param === undefined && runs?.[i]) {
      // the param the run resolved (the first one)
      const r = runs[i]!.run as ValidatingRunResult;
      const ev = r.bindings?.flatMap((b) => b.evaluations).find((e) => isObject(e.param));
      param = ev?.param;
    }
    // kaptest has no paramRef: the param the workspace's bindings resolve for the request goes in the test
    param ??= resolvedParam(target, c.input);
    if (isObject(param)) {
      const p = { apiVersion: str(paramKind.apiVersion), kind: str(paramKind.kind), ...param };
      const ref = addResource(p, c.name, `case-${i + 1}-param`);
      if (ref) t.param = ref.namespace ? { namespace: ref.namespace, name: ref.name } : { name: ref.name };
    }
    const u = q.userInfo;
    if (u) {
      const userInfo: Record<string, unknown> = { name: u.username ?? '', groups: u.groups ?? [] };
      if (u.extra && Object.keys(u.extra).length) userInfo.extra = u.extra;
      t.userInfo = userInfo;
    }
    const outcome = c.expect.outcome;
    if (mutating) {
      if (outcome === 'admit' && c.expect.object !== undefined) {
        t.expect = 'mutate';
        const expected = addResource(c.expect.object, c.name, `case-${i + 1}-expected`);
        // kaptest overwrites expectObject's name with the object's unless told not to: our names are exact
        if (expected) {
          t.expectObject = expected;
          t.disableNameOverwrite = true;
        }
      } else if (outcome === 'skip' || outcome === 'error') {
        t.expect = outcome;
      } else {
        warnings.push(
          `${c.name}: kaptest MAP tests expect mutate (with an expected object), skip or error; ${outcome}${outcome === 'admit' ? ' without an expected object' : ''} is not exported`,
        );
        return;
      }
    } else {
      // kaptest has no "admit or skip": the outcome of the case's run when it has one, else admit
      const skipped = outcome === 'admit' && c.expect.orSkip && runs?.[i]?.actual.outcome === 'skip';
      if (outcome === 'admit' && c.expect.orSkip && !runs?.[i]) warnings.push(`${c.name}: expects admit or skip; exported as admit (kaptest has no such test)`);
      switch (skipped ? 'skip' : outcome) {
        case 'admit':
        case 'deny':
        case 'error':
          t.expect = outcome;
          break;
        case 'warn':
          t.expect = 'deny';
          warnings.push(`${c.name}: exported as deny (kaptest ignores validationActions)`);
          break;
        case 'skip':
          t.expect = 'skip';
          warnings.push(`${c.name}: kaptest skips only on a false matchCondition (it does not evaluate matchConstraints, bindings or selectors)`);
          break;
      }
      if (c.expect.message !== undefined && (outcome === 'deny' || outcome === 'warn')) {
        const m = c.expect.message;
        const k = m.indexOf(' denied request: ');
        t.deniedMessage = k >= 0 ? m.slice(k + ' denied request: '.length) : m;
      }
    }
    tests.push(t);
  });

  const manifest: Record<string, unknown> = {
    version: 'v1alpha1',
    policies: ['policy.yaml'],
    resources: ['resources.yaml'],
  };
  manifest[mutating ? 'mapTestSuites' : 'vapTestSuites'] = [{ policy: policyName, tests }];
  return {
    files: {
      'kaptest.yaml': serializeDocuments([manifest]),
      'policy.yaml': serializeDocuments([target.policy]),
      'resources.yaml': serializeDocuments(resources),
    },
    warnings,
  };
}
