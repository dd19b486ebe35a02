/**
 * Kyverno CLI test manifests (`kyverno-test.yaml`, cli.kyverno.io/v1alpha1 Test) → saved cases of
 * the converted policies. Each result (policy, rule, kind, resources, pass/fail/skip/error/warn)
 * becomes one case per resource, on the produced admission policy whose rules match the
 * resource's kind (the pod-controller autogen policies for a Deployment …), as `kyverno test`
 * would submit it: CREATE unless the values file's `request.operation` says otherwise (for all, or
 * for the resource), a
 * namespaced object without a namespace in `default`, the namespace's labels from the values
 * file (`namespaceSelector`, `namespaces`), a ConfigMap param's data from its values (`paramsFromValues`).
 * A result whose rule produced nothing, or a resource
 * that is not in the test's files, is a problem, never dropped silently.
 */
import { isObject, kindOf, nameOf, namespaceOf, obj, objList, str, strList, type Obj } from '../../base/json';
import { isClusterScoped, NAMESPACE_NAME_LABEL, resourceForKind } from '../../k8s/resources';
import type { CaseOutcome, Operation, PolicyTestCase } from '../../request/model';
import { parseDocuments } from '../../yaml';
import type { Conversion } from '../types';
import { patchChain, policyFor, type PatchChain } from './patch-chain';

export interface KyvernoTestImport {
  /**
   * Saved cases per produced policy (by name), in the order met; `chains`, beside each case: the
   * produced policies run before and after it, where the object `kyverno test` compares is its
   * whole policy's (patch-chain.ts), else undefined.
   */
  policyCases: { policy: string; cases: PolicyTestCase[]; chains: (PatchChain | undefined)[] }[];
  /** Results not turned into cases, with the reason. */
  problems: { path: string; message: string }[];
}

/** Whether a parsed YAML object is a Kyverno CLI test manifest. */
export const isKyvernoTest = (v: unknown): boolean => isObject(v) && str(v.apiVersion).startsWith('cli.kyverno.io/') && v.kind === 'Test';

/** `dir/../x.yaml` → `x.yaml` (paths with `/`). */
export function joinPath(dir: string, rel: string): string {
  const parts = (rel.startsWith('/') ? rel : `${dir}/${rel}`).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}

const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

const OUTCOMES: Record<string, CaseOutcome> = { pass: 'admit', fail: 'deny', skip: 'skip', error: 'error', warn: 'warn' };

const splitApiVersion = (v: string) =>
  v.includes('/') ? { group: v.slice(0, v.indexOf('/')), version: v.slice(v.indexOf('/') + 1) } : { group: '', version: v };

/**
 * The cases of one test manifest. `files`: path → text of every file it names (policies,
 * resources, values, patched resources), paths relative to the same root as `testPath`;
 * `conversion`: the conversion of its policies (convertPolicies).
 */
export function importKyvernoTest(testPath: string, files: Readonly<Record<string, string>>, conversion: Conversion): KyvernoTestImport {
  const problems: KyvernoTestImport['problems'] = [];
  const out = new Map<string, { cases: PolicyTestCase[]; chains: (PatchChain | undefined)[] }>();
  const read = (path: string): Obj[] => {
    const text = files[path];
    if (text === undefined) {
      problems.push({ path, message: 'file not given' });
      return [];
    }
    const parsed = parseDocuments(text);
    for (const e of parsed.errors) problems.push({ path, message: `line ${e.line}: ${e.message}` });
    return parsed.documents.map((d) => d.object).filter(isObject);
  };
  const test = read(testPath).find(isKyvernoTest);
  if (!test) return { policyCases: [], problems: [...problems, { path: testPath, message: 'not a Kyverno CLI test (cli.kyverno.io Test)' }] };
  const dir = dirOf(testPath);
  const resources = [...strList(test.resources), ...(str(test.resource) ? [str(test.resource)] : [])].flatMap((r) => read(joinPath(dir, r)));
  const values = str(test.variables) ? (read(joinPath(dir, str(test.variables)))[0] ?? {}) : {};
  const operation = (str(obj(values.globalValues)['request.operation']) || 'CREATE') as Operation;
  const nsLabels = new Map<string, Record<string, string>>();
  for (const s of objList(values.namespaceSelector)) nsLabels.set(str(s.name), Object.fromEntries(Object.entries(obj(s.labels)).map(([k, v]) => [k, str(v)])));
  for (const n of objList(values.namespaces))
    nsLabels.set(nameOf(n), Object.fromEntries(Object.entries(obj(obj(n.metadata).labels)).map(([k, v]) => [k, str(v)])));
  // the source policies, read only for a rule that takes a ConfigMap param (its context entry's name); a file not given is no problem here
  const sources = () =>
    strList(test.policies).flatMap((p) =>
      parseDocuments(files[joinPath(dir, p)] ?? '')
        .documents.map((d) => d.object)
        .filter(isObject),
    );
  const valuesPath = joinPath(dir, str(test.variables));
  // a value is imported where it gives a ConfigMap a converted rule takes as its param; the rest is said once
  const unread = new Set<string>();
  for (const p of objList(values.policies))
    for (const v of [...objList(p.rules), ...objList(p.resources)]) for (const k of Object.keys(obj(v.values))) unread.add(k);
  // a resource's own `request.operation`: `kyverno test` sends that resource as that operation
  const operationOf = new Map<string, Operation>();
  for (const p of objList(values.policies))
    for (const r of objList(p.resources)) {
      const op = str(obj(r.values)['request.operation']);
      if (op) operationOf.set(`${str(p.name)}\0${str(r.name)}`, op as Operation);
    }
  if (operationOf.size) unread.delete('request.operation');

  objList(test.results).forEach((result, i) => {
    const at = `${testPath}: results[${i}]`;
    const policyName = str(result.policy).split('/').pop()!;
    const ruleName = str(result.rule);
    // a CEL policy is one rule, named after the policy; a legacy rule by its name
    const legacy = (kind: string) => kind === 'ClusterPolicy' || kind === 'Policy';
    // results of Kyverno's pod-controller rules name them `autogen-<rule>` / `autogen-cronjob-<rule>` (cut at 63 characters)
    const base = ruleName.replace(/^autogen-(cronjob-)?/, '');
    const named = (r: string) => r === ruleName || (base !== ruleName && r.startsWith(base));
    const candidates = conversion.rules.filter((r) => r.source.name === policyName && (!legacy(r.source.kind) || !ruleName || named(r.source.rule)));
    const rule = candidates[0];
    if (!rule) return problems.push({ path: at, message: `no converted rule for policy '${policyName}'${ruleName ? ` rule '${ruleName}'` : ''}` });
    // several documents of that name (a ClusterPolicy and a ValidatingPolicy, two folders' copies): never a guess
    const documents = [
      ...new Set(
        candidates.map(
          (r) =>
            `${r.source.kind} ${r.source.namespace ? `${r.source.namespace}/` : ''}${r.source.name}${r.source.occurrence ? ` (${r.source.occurrence})` : ''}`,
        ),
      ),
    ];
    if (documents.length > 1)
      return problems.push({
        path: at,
        message: `policy '${policyName}' is any of ${documents.join(', ')}: the test's policy files do not tell which; not run`,
      });
    if (rule.status === 'unsupported')
      return problems.push({ path: at, message: `rule '${rule.source.rule}' of '${policyName}' is not converted: ${rule.reason ?? ''}` });
    const outcome = OUTCOMES[str(result.result)];
    if (!outcome) return problems.push({ path: at, message: `unknown result '${str(result.result)}'` });
    const patched = str(result.patchedResources) ? read(joinPath(dir, str(result.patchedResources))) : [];
    for (const resName of strList(result.resources)) {
      // `namespace/name` or `name`, of the result's kind
      const [nsPart, namePart] = resName.includes('/') ? resName.split('/') : ['', resName];
      const object = resources.find(
        (r) => nameOf(r) === namePart && (!str(result.kind) || kindOf(r) === str(result.kind)) && (!nsPart || (namespaceOf(r) || 'default') === nsPart), // kyverno test puts a namespaced resource without one in default
      );
      if (!object) {
        problems.push({ path: at, message: `resource '${resName}' (${str(result.kind) || 'any kind'}) not found in the test's resources` });
        continue;
      }
      const { group, version } = splitApiVersion(str(object.apiVersion));
      const kind = kindOf(object);
      const plural = resourceForKind(kind);
      const target = policyFor(conversion.objects, rule.produced, group, plural);
      if (!target) {
        problems.push({
          path: at,
          message: `no converted policy of '${policyName}' matches ${kind} '${namePart}' (Kyverno decided it: ${str(result.result)})`,
        });
        continue;
      }
      // `kyverno test` reads a mutate rule's `fail` (a MutatingPolicy's, a ClusterPolicy mutate rule's) as
      // "the patched object is not the patchedResources one", not as a denial
      if (outcome === 'deny' && target.policy.kind === 'MutatingAdmissionPolicy') {
        problems.push({
          path: at,
          message: `'fail' for ${legacy(rule.source.kind) ? `mutate rule '${rule.source.rule}' of ${rule.source.kind}` : 'MutatingPolicy'} '${policyName}' on ${kind} '${namePart}' says the patched object differs from ${str(result.patchedResources) || 'the expected one'}: not a case a policy test can state`,
        });
        continue;
      }
      const namespaced = !isClusterScoped(kind);
      const ns = namespaced ? namespaceOf(object) || 'default' : '';
      const obj2 = namespaced && !namespaceOf(object) ? { ...object, metadata: { ...obj(object.metadata), namespace: ns } } : object;
      const actions = strList(obj(target.binding?.spec).validationActions);
      // fail under the binding's actions: Deny denies, Warn admits with a warning, Audit alone admits
      const failed: CaseOutcome = actions.includes('Deny') ? 'deny' : actions.includes('Warn') ? 'warn' : 'admit';
      const expect: PolicyTestCase['expect'] = { outcome: outcome === 'deny' && target.policy.kind === 'ValidatingAdmissionPolicy' ? failed : outcome };
      // A ClusterPolicy/Policy rule's `skip` is Kyverno's "the rule did not apply": not matched, preconditions not
      // met, and also a pattern's conditional anchor that does not hold or a policy exception; each admits the request,
      // and its report says skip, not pass. A ValidatingAdmissionPolicy has no such result: an anchor becomes part of
      // a validation that holds, so the converted policy applies and admits (the rule's differential likewise reads
      // Kyverno's skip as allow, kyvernoVerdict in ../kyverno-pattern/test-helpers.ts). Both leave the request
      // admitted, without a warning: the one decision an apiserver shows. The case expects admit or skip; a deny, a
      // warning or an error still fails it. A ValidatingPolicy's skip is its matchConstraints' or matchConditions',
      // which the produced policy carries as they are: it stays a skip.
      if (outcome === 'skip' && legacy(rule.source.kind) && target.policy.kind === 'ValidatingAdmissionPolicy') {
        expect.outcome = 'admit';
        expect.orSkip = true;
      }
      const legacyMutate = legacy(rule.source.kind) && target.policy.kind === 'MutatingAdmissionPolicy';
      // a legacy mutate rule's `skip` is Kyverno's "no patches applied": the converted policy may match and patch nothing
      if (outcome === 'skip' && legacyMutate) {
        expect.outcome = 'admit';
        expect.object = obj2;
      }
      const after = patched.find((p) => nameOf(p) === namePart && kindOf(p) === kind);
      // `kyverno test` compares the patched file, for a pass and a skip alike, with the object the rule's whole policy
      // patched after the mutate policies before it (patch-chain.ts); without a file, the rule runs alone
      let chain: PatchChain | undefined;
      if (after && legacyMutate && (outcome === 'admit' || outcome === 'skip')) {
        const c = patchChain(sources(), conversion, rule, { group, plural, kind });
        if ('missing' in c) {
          problems.push({
            path: at,
            message: `${str(result.patchedResources)} is the object ${rule.source.kind} '${policyName}' patched as a whole on ${kind} '${namePart}', and ${c.missing}: not run`,
          });
          continue;
        }
        chain = c.before.length || c.after.length ? c : undefined;
      }
      if (after && (outcome === 'admit' || (outcome === 'skip' && legacyMutate)))
        expect.object = namespaced && !namespaceOf(after) ? { ...after, metadata: { ...obj(after.metadata), namespace: ns } } : after;
      const op = operationOf.get(`${policyName}\0${namePart}`) ?? operationOf.get(`${policyName}\0${resName}`) ?? operation;
      // the CLI looks values up by the rule it runs: an autogen rule's result names it, not the source rule
      const params = paramsFromValues(
        target,
        values,
        sources,
        policyName,
        { source: rule.source.rule, values: ruleName || rule.source.rule },
        namePart,
        unread,
        (message) => problems.push({ path: valuesPath, message }),
      );
      const c: PolicyTestCase = {
        name: `${policyName}${ruleName ? `/${ruleName}` : ''}: ${kind} ${namePart} ${str(result.result)}`,
        input: {
          request: {
            operation: op,
            kind: { group, version, kind },
            resource: { group, version, resource: plural },
            name: namePart,
            ...(ns ? { namespace: ns } : {}),
            ...(op === 'DELETE' ? { oldObject: obj2 } : { object: obj2 }),
            ...(op === 'UPDATE' ? { oldObject: obj2 } : {}),
          },
          ...(ns
            ? {
                namespaceObject: {
                  apiVersion: 'v1',
                  kind: 'Namespace',
                  metadata: { name: ns, labels: { ...(nsLabels.get(ns) ?? {}), [NAMESPACE_NAME_LABEL]: ns } },
                },
              }
            : {}),
          ...(params ? { params } : {}),
        },
        expect,
      };
      const name = nameOf(target.policy);
      const entry = out.get(name) ?? { cases: [], chains: [] };
      entry.cases.push(c);
      entry.chains.push(chain);
      out.set(name, entry);
    }
  });
  const keys = [...unread];
  if (keys.length)
    problems.push({
      path: valuesPath,
      message: `per-rule and per-resource values not imported: ${keys.join(', ')} (they feed JMESPath variables, which the converted policies do not read)`,
    });
  return { policyCases: [...out].map(([policy, { cases, chains }]) => ({ policy, cases, chains })), problems };
}

/**
 * The ConfigMap a converted rule takes as its param (its binding's paramRef), as `kyverno test`
 * sees it: without a cluster the CLI loads no ConfigMap, and the values file's
 * `<entry>.data.<key>` values of the rule's configMap context entry stand for its data
 * (globalValues, then the rule's values, then the resource's). Undefined: the rule takes no
 * ConfigMap, or the values give none (the case then reads the workspace's, by the paramRef).
 */
function paramsFromValues(
  target: { policy: Obj; binding?: Obj },
  values: Obj,
  sources: () => readonly Obj[],
  policyName: string,
  ruleName: { source: string; values: string },
  resourceName: string,
  unread: Set<string>,
  problem: (message: string) => void,
): Obj | undefined {
  const ref = obj(obj(target.binding?.spec).paramRef);
  if (obj(obj(target.policy.spec).paramKind).kind !== 'ConfigMap' || !str(ref.name)) return undefined;
  const source = sources().find((p) => nameOf(p) === policyName);
  const rule = objList(obj(source?.spec).rules).find((r) => str(r.name) === ruleName.source);
  const entry = objList(rule?.context).find((e) => str(obj(e.configMap).name) === str(ref.name));
  if (!entry) return undefined;
  const forPolicy = objList(values.policies).filter((p) => str(p.name) === policyName);
  const merged: Obj = {
    ...obj(values.globalValues),
    ...Object.assign({}, ...forPolicy.flatMap((p) => objList(p.rules).filter((r) => str(r.name) === ruleName.values)).map((r) => obj(r.values))),
    ...Object.assign({}, ...forPolicy.flatMap((p) => objList(p.resources).filter((r) => str(r.name) === resourceName)).map((r) => obj(r.values))),
  };
  const prefix = `${str(entry.name)}.data.`;
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(merged)) {
    if (!k.startsWith(prefix)) continue;
    unread.delete(k);
    // Kyverno nests a dotted key (`a.b` is {a: {b}}); a ConfigMap key with a dot would not be read alike
    if (k.slice(prefix.length).includes('.') || typeof v !== 'string') {
      problem(`value '${k}' is not a ConfigMap data entry (a string under one key): not imported`);
      continue;
    }
    data[k.slice(prefix.length)] = v;
  }
  if (!Object.keys(data).length) return undefined;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: str(ref.name), namespace: str(ref.namespace) || 'default' }, data };
}
