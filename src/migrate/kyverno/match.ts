/**
 * A legacy Kyverno rule's match/exclude → a ValidatingAdmissionPolicy's matchConstraints, as
 * kyverno v1.19 builds it (pkg/admissionpolicy/builder.go translateResource,
 * constructValidatingAdmissionPolicyRules, translateOperations), after the checks of
 * kyvernopolicy_checker.go (what its generator refuses, in its words). Kinds are resolved
 * through the target release's discovery (built-ins and the workspace's CRDs), as Kyverno's
 * discovery client does: a kind must name exactly one served resource.
 */
import { isObject, list, obj, objList, str, strList, type Obj } from '../../base/json';
import type { Discovery } from '../../admission/discovery';
import type { ResourceInfo } from '../../k8s/resources';

export interface MatchTranslation {
  matchConstraints: Obj;
  /** Kyverno's generator refuses the rule (its message). */
  refused?: string;
  /** Where the produced matchConstraints do not select what Kyverno's engine selects. */
  differences: string[];
}

const ALL_OPERATIONS = ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'];

/** Kyverno's wildcard test (ext/wildcard ContainsWildcard). */
const hasWildcard = (s: string) => s.includes('*') || s.includes('?');
export const wildcardRegExp = (p: string) =>
  new RegExp(
    `^${p
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** kubeutils.ParseKindSelector: `Kind`, `version/Kind`, `group/version/Kind`, with an optional `/subresource` or `.subresource`. */
export function parseKindSelector(input: string): { group: string; version: string; kind: string; subresource: string } {
  let parts = input.split('/');
  parts = [...parts.slice(0, -1), ...parts[parts.length - 1]!.split('.')];
  const version = /^v\d+((alpha|beta)\d+)?$|^\*$/;
  switch (parts.length) {
    case 1:
      return { group: '*', version: '*', kind: parts[0]!, subresource: '' };
    case 2:
      if (parts[0] === '*' && parts[1] === '*') return { group: '*', version: '*', kind: '*', subresource: '*' };
      if (parts[0] === '*' && parts[1]!.toLowerCase() === parts[1]) return { group: '*', version: '*', kind: '*', subresource: parts[1]! };
      if (version.test(parts[0]!)) return { group: '*', version: parts[0]!, kind: parts[1]!, subresource: '' };
      return { group: '*', version: '*', kind: parts[0]!, subresource: parts[1]! };
    case 3:
      if (version.test(parts[0]!)) return { group: '*', version: parts[0]!, kind: parts[1]!, subresource: parts[2]! };
      return { group: parts[0]!, version: parts[1]!, kind: parts[2]!, subresource: '' };
    case 4:
      return { group: parts[0]!, version: parts[1]!, kind: parts[2]!, subresource: parts[3]! };
  }
  return { group: '', version: '', kind: '', subresource: '' };
}

/** The served resources a kind selector names (dclient FindResources, top-level resources only). */
function findResources(selector: string, served: readonly ResourceInfo[]): ResourceInfo[] {
  const s = parseKindSelector(selector);
  const m = (p: string, v: string) => wildcardRegExp(p).test(v);
  return served.filter((r) => m(s.group, r.group) && m(s.version, r.version) && m(s.kind, r.kind));
}

const isEmptyDescription = (d: Obj) => Object.values(d).every((v) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || v === '');

function checkUserInfo(f: Obj): string | undefined {
  if (strList(f.roles).length || strList(f.clusterRoles).length || list(f.subjects).length)
    return 'skip generating ValidatingAdmissionPolicy: Roles / ClusterRoles / Subjects in `any/all` is not applicable.';
}

function checkResources(d: Obj, isMatch: boolean): string | undefined {
  if (!isMatch && strList(d.kinds).length && strList(d.namespaces).length)
    return 'skip generating ValidatingAdmissionPolicy: excluding a resource within a namespace is not applicable.';
  if (isObject(d.annotations) && Object.keys(d.annotations).length)
    return 'skip generating ValidatingAdmissionPolicy: Annotations in resource description is not applicable.';
  if ((str(d.name) && hasWildcard(str(d.name))) || strList(d.names).some(hasWildcard))
    return 'skip generating ValidatingAdmissionPolicy: wildcards in resource name is not applicable.';
  if (strList(d.namespaces).some(hasWildcard)) return 'skip generating ValidatingAdmissionPolicy: wildcards in namespace name is not applicable.';
}

function checkFilters(filters: Obj[], isMatch: boolean): string | undefined {
  let nsSel = false;
  let objSel = false;
  for (const f of filters) {
    const bad = checkUserInfo(f) ?? checkResources(obj(f.resources), isMatch);
    if (bad) return bad;
    if (f.resources && obj(f.resources).namespaceSelector) nsSel = true;
    if (f.resources && obj(f.resources).selector) objSel = true;
  }
  if (!isMatch && (nsSel || objSel))
    return 'skip generating ValidatingAdmissionPolicy: NamespaceSelector / ObjectSelector in the exclude block is not applicable.';
  if (isMatch && filters.length > 1 && (nsSel || objSel))
    return 'skip generating ValidatingAdmissionPolicy: NamespaceSelector / ObjectSelector across multiple resources in the match block are not applicable.';
}

/** kyvernopolicy_checker.go checkPolicy's match/exclude part for one rule: Kyverno's message when its generator refuses. */
export function checkMatch(rule: Obj): string | undefined {
  const match = obj(rule.match);
  const top = checkUserInfo(match) ?? checkResources(obj(match.resources), true);
  if (top) return top;
  const any = objList(match.any);
  const all = objList(match.all);
  const m = checkFilters(any, true);
  if (m) return m;
  if (all.length > 1) return "skip generating ValidatingAdmissionPolicy: multiple 'all' in the match block is not applicable.";
  const a = checkFilters(all, true);
  if (a) return a;
  if (isObject(rule.exclude)) {
    const ex = rule.exclude;
    const e = checkUserInfo(ex) ?? checkResources(obj(ex.resources), false) ?? checkFilters(objList(ex.any), false);
    if (e) return e;
    if (objList(ex.all).length > 1) return "skip generating ValidatingAdmissionPolicy: multiple 'all' in the exclude block is not applicable.";
    const x = checkFilters(objList(ex.all), false);
    if (x) return x;
  }
}

function translateOperations(ops: string[]): string[] {
  const out = ops.filter((o) => ALL_OPERATIONS.includes(o));
  return out.length ? out : [...ALL_OPERATIONS];
}

type NamedRule = Obj & { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[]; resourceNames?: string[] };

function namedRule(names: string[], group: string, version: string, operations: string[], resources: string[]): NamedRule {
  const r: NamedRule = { apiGroups: [group], apiVersions: [version], resources: [...resources].sort(), operations };
  if (names.length) r.resourceNames = names;
  return r;
}

/** constructValidatingAdmissionPolicyRules: appends to `rules`; an Error when a kind has no unique resource. */
function constructRules(rules: NamedRule[], d: Obj, isMatch: boolean, served: readonly ResourceInfo[]): string | undefined {
  const ops = translateOperations(strList(d.operations));
  const names = [...strList(d.names), ...(str(d.name) ? [str(d.name)] : [])];
  for (const kind of strList(d.kinds)) {
    if (kind === '*') {
      rules.push(namedRule(names, '*', '*', ops, ['*']));
      continue;
    }
    const found = findResources(kind, served);
    if (found.length !== 1) return found.length ? `no unique match for kind ${kind}` : `kind ${kind} is not served (no resource found)`;
    const r = found[0]!;
    const resources = r.resource === 'pods' ? ['pods', 'pods/ephemeralcontainers'] : [r.resource];
    const same = rules.find((x) => x.apiGroups.includes(r.group) && x.apiVersions.includes(r.version));
    if (same) same.resources = [...same.resources, ...resources].sort();
    else rules.push(namedRule(names, r.group, r.version, ops, resources));
  }
  if (!isMatch && strList(d.namespaces).length && !strList(d.kinds).length) {
    rules.push({ resourceNames: strList(d.namespaces), apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ops });
  }
}

/** BuildValidatingAdmissionPolicy's match part for a legacy rule (`discovery`: the target release's). */
export function translateMatch(rule: Obj, discovery: Pick<Discovery, 'minor'> & { served: readonly ResourceInfo[] }): MatchTranslation {
  const differences: string[] = [];
  const refused = checkMatch(rule);
  const mc: Obj = {};
  const matchRules: NamedRule[] = [];
  const excludeRules: NamedRule[] = [];
  const translate = (d: Obj, isMatch: boolean): string | undefined => {
    const err = constructRules(isMatch ? matchRules : excludeRules, d, isMatch, discovery.served);
    if (err) return err;
    if (isMatch) {
      mc.resourceRules = matchRules;
      const ns = strList(d.namespaces);
      if (ns.length) mc.namespaceSelector = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ns }] };
      else if (d.namespaceSelector !== undefined) mc.namespaceSelector = d.namespaceSelector;
      else delete mc.namespaceSelector;
      if (d.selector !== undefined) mc.objectSelector = d.selector;
      else delete mc.objectSelector;
    } else mc.excludeResourceRules = excludeRules;
  };
  const match = obj(rule.match);
  const matchFilters = [obj(match.resources), ...objList(match.any).map((f) => obj(f.resources)), ...objList(match.all).map((f) => obj(f.resources))].filter(
    (d) => !isEmptyDescription(d),
  );
  let error: string | undefined;
  for (const d of matchFilters) error ??= translate(d, true);
  const ex = isObject(rule.exclude) ? rule.exclude : undefined;
  const excludeFilters = ex
    ? [obj(ex.resources), ...objList(ex.any).map((f) => obj(f.resources)), ...objList(ex.all).map((f) => obj(f.resources))].filter(
        (d) => !isEmptyDescription(d),
      )
    : [];
  for (const d of excludeFilters) error ??= translate(d, false);

  // Where the builder's output selects other requests than Kyverno's engine (checked against kyverno's match semantics).
  if (matchFilters.length > 1) {
    const key = (d: Obj) => JSON.stringify({ ...d, kinds: undefined });
    if (new Set(matchFilters.map(key)).size > 1)
      differences.push(
        "the match filters differ in more than their kinds; the generated rules keep the operations, names and namespaces of the first filter per group/version and the last filter's selectors",
      );
    if (objList(match.all).length && matchFilters.length > 1)
      differences.push('match.all with other match filters: Kyverno requires all of them, the generated rules accept any');
  }
  if (matchFilters.some((d) => strList(d.names).length || str(d.name)) && matchFilters.some((d) => strList(d.kinds).includes('*')))
    differences.push('resource names with kind "*"');
  for (const d of excludeFilters) {
    if (strList(d.namespaces).length && !strList(d.kinds).length)
      differences.push(
        `exclude.namespaces ${JSON.stringify(strList(d.namespaces))} becomes an excluded rule on the Namespace objects of those names (Kyverno's generator), not on the resources in those namespaces`,
      );
  }
  if (excludeFilters.length > 1) differences.push('several exclude filters: Kyverno excludes a request that matches any (or all) of them');
  if (error) return { matchConstraints: mc, refused: refused ?? error, differences };
  return { matchConstraints: mc, refused, differences };
}
