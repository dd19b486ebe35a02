/**
 * kaptest (github.com/pfnet/kaptest) test manifests in: the counterpart of
 * src/policy/cases.ts `toKaptestManifest`. A manifest names policy and resource files
 * (relative to itself) and suites of tests per policy; each test refers to objects by
 * kind/namespace/name. kaptest evaluates the policy's CEL alone, so each suite runs with one
 * binding that binds the policy with validationActions [Deny] and the test's param given
 * directly (run it with no param documents: kaptest never looks a param up); the operation is inferred from object/oldObject as kaptest does.
 */
import type { AdmissionRequest, CaseOutcome, PolicyTestCase } from '../request/model';
import { isObject, list, nameOf, namespaceOf, obj, str, strList, type Obj } from '../base/json';
import { groupForResource, resourceForKind } from '../k8s/resources';

export interface KaptestSuite {
  policy: string;
  mutating: boolean;
  /** The YAML path of each test in the manifest (`vapTestSuites[0].tests[2]`). */
  paths: string[];
  cases: PolicyTestCase[];
  /** The binding kaptest implies (no selectors, Deny). */
  binding: Obj;
}

export interface KaptestManifest {
  policyFiles: string[];
  resourceFiles: string[];
  suites: KaptestSuite[];
  problems: { path: string; message: string }[];
}

/** The one manifest version kaptest reads (v0.2.0 and later: internal/tester/manifest.go). */
export const KAPTEST_MANIFEST_VERSION = 'v1alpha1';

const hasSuites = (v: Obj): boolean => Array.isArray(v.vapTestSuites) || Array.isArray(v.mapTestSuites);
// kaptest v0.1.x's field names, which its `migrate` command renames to policies and vapTestSuites
const isLegacy = (v: Obj): boolean => !hasSuites(v) && (Array.isArray(v.testSuites) || Array.isArray(v.validatingAdmissionPolicies));

/**
 * Whether a parsed YAML object looks like a kaptest manifest, of any version: one kaptest would
 * refuse is still recognised, so that `kaptestManifestRefusal` can say why rather than the file
 * being taken for something else.
 */
export const isKaptestManifest = (v: unknown): boolean => isObject(v) && (hasSuites(v) || isLegacy(v));

/**
 * Why kaptest would refuse a manifest `isKaptestManifest` recognises (the version check of its
 * `IsValid`), with what to do; undefined when it reads it. `file` is named in the advice.
 */
export function kaptestManifestRefusal(v: Obj, file: string): { path: string; message: string } | undefined {
  const want = `version: ${KAPTEST_MANIFEST_VERSION}`;
  if (isLegacy(v))
    return {
      path: Array.isArray(v.testSuites) ? 'testSuites' : 'validatingAdmissionPolicies',
      message: `kaptest's v0.1.x manifest format (validatingAdmissionPolicies, testSuites), which kaptest v0.2.0 and later refuse: convert it with \`kaptest migrate ${file}\` (it adds "${want}" and renames them policies and vapTestSuites)`,
    };
  if (v.version === undefined || v.version === null)
    // `kaptest migrate` reads only the v0.1.x names: on this file it would drop the suites
    return { path: '', message: `a kaptest manifest needs "${want}" (kaptest refuses one without: "version is required"); add that line to ${file}` };
  if (v.version !== KAPTEST_MANIFEST_VERSION)
    return {
      path: 'version',
      message: `kaptest manifest version ${JSON.stringify(v.version)} is not supported: kaptest reads ${KAPTEST_MANIFEST_VERSION} only`,
    };
  return undefined;
}

const OUTCOMES: Record<string, CaseOutcome> = { admit: 'admit', deny: 'deny', skip: 'skip', error: 'error', mutate: 'admit' };

const splitApiVersion = (apiVersion: string): { group: string; version: string } => {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
};

/**
 * The manifest's suites as our policy cases, resolving object references among `resources`
 * (the objects of its resource files). References that do not resolve are problems.
 */
export function readKaptestManifest(manifest: unknown, resources: readonly unknown[]): KaptestManifest {
  const m = obj(manifest);
  const problems: KaptestManifest['problems'] = [];
  const find = (ref: unknown, path: string, kindDefault?: string): unknown => {
    if (!isObject(ref)) return undefined;
    const kind = str(ref.kind) || kindDefault || '';
    const hit = resources.find(
      (r) =>
        str(obj(r).kind) === kind &&
        nameOf(r) === str(ref.name) &&
        namespaceOf(r) === str(ref.namespace) &&
        (!str(ref.group) || splitApiVersion(str(obj(r).apiVersion)).group === str(ref.group)),
    );
    if (!hit)
      problems.push({
        path,
        message: `${kind || 'object'} ${JSON.stringify(`${str(ref.namespace) ? `${str(ref.namespace)}/` : ''}${str(ref.name)}`)} is not among the resources`,
      });
    return hit;
  };
  const suites: KaptestSuite[] = [];
  for (const [key, mutating] of [
    ['vapTestSuites', false],
    ['mapTestSuites', true],
  ] as const) {
    list(m[key]).forEach((s, si) => {
      const suite = obj(s);
      const policy = str(suite.policy);
      const cases: PolicyTestCase[] = [];
      const paths: string[] = [];
      list(suite.tests).forEach((t, ti) => {
        const test = obj(t);
        const path = `${key}[${si}].tests[${ti}]`;
        const object = test.object !== undefined ? find(test.object, `${path}.object`) : undefined;
        const oldObject = test.oldObject !== undefined ? find(test.oldObject, `${path}.oldObject`) : undefined;
        const subject = object ?? oldObject;
        const { group, version } = splitApiVersion(str(obj(subject).apiVersion));
        const kind = str(obj(subject).kind);
        const operation = object && oldObject ? 'UPDATE' : object ? 'CREATE' : oldObject ? 'DELETE' : 'CREATE';
        const namespace = namespaceOf(subject);
        const resource = kind ? resourceForKind(kind) : '';
        const u = obj(test.userInfo);
        const request: AdmissionRequest = {
          operation,
          kind: { group, version, kind },
          resource: { group: group || groupForResource(resource), version, resource },
          name: nameOf(subject),
          namespace,
          userInfo: { username: str(u.name), groups: strList(u.groups), ...(isObject(u.extra) ? { extra: u.extra as Record<string, string[]> } : {}) },
        };
        if (object !== undefined) request.object = object;
        if (oldObject !== undefined) request.oldObject = oldObject;
        const c: PolicyTestCase = {
          name: str(test.name) || `${policy} test ${ti + 1}`,
          input: { request },
          expect: { outcome: OUTCOMES[str(test.expect)] ?? 'admit' },
        };
        if (!OUTCOMES[str(test.expect)])
          problems.push({ path: `${path}.expect`, message: `expect must be one of admit, deny, skip, error${mutating ? ', mutate' : ''}` });
        if (namespace) {
          const ns = resources.find((r) => str(obj(r).kind) === 'Namespace' && nameOf(r) === namespace);
          if (ns) c.input.namespaceObject = ns;
        }
        if (test.param !== undefined) {
          // The param's kind is the policy's paramKind: kaptest refers to it by name (and namespace) only.
          const ref = obj(test.param);
          const p = resources.find((r) => str(obj(r).kind) !== 'Namespace' && nameOf(r) === str(ref.name) && namespaceOf(r) === str(ref.namespace));
          if (p !== undefined) c.input.params = p;
          else problems.push({ path: `${path}.param`, message: `param ${JSON.stringify(str(ref.name))} is not among the resources` });
        }
        if (typeof test.deniedMessage === 'string') c.expect.message = test.deniedMessage;
        if (test.expectObject !== undefined) {
          const e = find(test.expectObject, `${path}.expectObject`);
          if (e !== undefined) c.expect.object = e;
        }
        cases.push(c);
        paths.push(path);
      });
      const bindingKind = mutating ? 'MutatingAdmissionPolicyBinding' : 'ValidatingAdmissionPolicyBinding';
      const binding: Obj = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: bindingKind,
        metadata: { name: `kaptest-${policy}` },
        // kaptest hands each test its param directly: the binding refers to params only so that the
        // test's (typed) param is used; run with no param documents, a test without one gets none.
        spec: { policyName: policy, ...(mutating ? {} : { validationActions: ['Deny'] }), paramRef: { selector: {}, parameterNotFoundAction: 'Allow' } },
      };
      suites.push({ policy, mutating, paths, cases, binding });
    });
  }
  return { policyFiles: strList(m.policies), resourceFiles: strList(m.resources), suites, problems };
}
