/**
 * Rules: RuleWithOperations (webhook `rules[j]`) and NamedRuleWithOperations
 * (policy/binding `resourceRules[j]`, `excludeResourceRules[j]`), as in
 * validation.go validateRuleWithOperations / validateRule / validateResources /
 * validateNamedRuleWithOperations. Subresources are allowed for every kind.
 */
import { append, duplicate, invalid, notSupported, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { isPathSegmentName } from './names';
import { goList, goObject, goStruct, type Obj } from './values';
import { invalidSlice } from './go-print';

/** supportedOperations.List(), sorted as Go sorts it. */
export const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] as const;
/** validScopes.List() */
export const validScopes = ['*', 'Cluster', 'Namespaced'] as const;

const has = (list: readonly string[], v: unknown): boolean => typeof v === 'string' && list.includes(v);
const hasWildcard = (list: readonly unknown[]): boolean => list.includes('*');

/**
 * validateResources. Quirks kept on purpose: `plain` is overwritten by the last
 * entry without '/', and the r/* and * /s sets only see earlier entries, so
 * ['pods', '*'] and ['pods/log', 'pods/*'] pass while ['*', 'pods'] fails.
 */
export function validateResources(resources: readonly unknown[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  // r of every 'r/*' and s of every '*/s' seen so far (few rules have any, so allocated on first use)
  let resourcesWithWildcardSubresources: Set<string> | undefined;
  let subresourcesWithWildcardResource: Set<string> | undefined;
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  for (let i = 0; i < resources.length; i++) {
    const resSub = resources[i];
    if (typeof resSub !== 'string') continue;
    if (resSub === '') {
      errs.push(required(path.index(i)));
      continue;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      hasResourceWithoutSubresource = resSub !== '*';
      continue;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources?.has(res)) errs.push(invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesWithWildcardResource?.has(sub)) errs.push(invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') (resourcesWithWildcardSubresources ??= new Set()).add(res);
    if (res === '*') (subresourcesWithWildcardResource ??= new Set()).add(sub);
  }
  if (resources.length > 1 && hasDoubleWildcard) errs.push(invalidSlice(path, 'string', resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource)
    errs.push(invalidSlice(path, 'string', resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRule (the inlined Rule: apiGroups, apiVersions, resources, scope). */
export function validateRule(rule: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroups = goList(rule.apiGroups);
  if (apiGroups) {
    if (apiGroups.length === 0) errs.push(required(path.child('apiGroups')));
    if (apiGroups.length > 1 && hasWildcard(apiGroups))
      errs.push(invalidSlice(path.child('apiGroups'), 'string', apiGroups, "if '*' is present, must not specify other API groups"));
  }
  const apiVersions = goList(rule.apiVersions);
  if (apiVersions) {
    if (apiVersions.length === 0) errs.push(required(path.child('apiVersions')));
    if (apiVersions.length > 1 && hasWildcard(apiVersions))
      errs.push(invalidSlice(path.child('apiVersions'), 'string', apiVersions, "if '*' is present, must not specify other API versions"));
    for (let i = 0; i < apiVersions.length; i++) if (apiVersions[i] === '') errs.push(required(path.child('apiVersions').index(i)));
  }
  const resources = goList(rule.resources);
  if (resources) append(errs, validateResources(resources, path.child('resources')));
  if (typeof rule.scope === 'string' && !has(validScopes, rule.scope)) errs.push(notSupported(path.child('scope'), rule.scope, validScopes));
  return errs;
}

/** validateRuleWithOperations */
export function validateRuleWithOperations(ruleWithOperations: unknown, path: FieldPath): FieldError[] {
  const rule = goStruct(ruleWithOperations);
  if (!rule) return [];
  const errs: FieldError[] = [];
  const operations = goList(rule.operations);
  if (operations) {
    if (operations.length === 0) errs.push(required(path.child('operations')));
    if (operations.length > 1 && hasWildcard(operations))
      errs.push(
        invalidSlice(path.child('operations'), 'admissionregistration.OperationType', operations, "if '*' is present, must not specify other operations"),
      );
    for (let i = 0; i < operations.length; i++) {
      const op = operations[i];
      if (typeof op === 'string' && !has(supportedOperations, op)) errs.push(notSupported(path.child('operations').index(i), op, supportedOperations));
    }
  }
  append(errs, validateRule(rule, path));
  return errs;
}

/** validateNamedRuleWithOperations: resourceNames are path segment names and unique; then the inlined rule. */
export function validateNamedRuleWithOperations(namedRule: unknown, path: FieldPath): FieldError[] {
  const rule = goStruct(namedRule);
  if (!rule) return [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  goList(rule.resourceNames)?.forEach((name, i) => {
    if (typeof name !== 'string') return;
    const p = path.child('resourceNames').index(i);
    for (const msg of isPathSegmentName(name)) errs.push(invalid(p, name, msg));
    if (seen.has(name)) errs.push(duplicate(p, name));
    else seen.add(name);
  });
  append(errs, validateRuleWithOperations(rule, path));
  return errs;
}

/**
 * Mutating policies and bindings cannot match DELETE: every operation of every
 * resourceRules entry outside `allowed` is NotSupported at the index-free path.
 */
export function validateOperationsIn(resourceRules: unknown, allowed: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const rule of goList(resourceRules) ?? []) {
    for (const op of goList(goObject(rule)?.operations) ?? []) {
      if (typeof op === 'string' && !allowed.includes(op)) errs.push(notSupported(path, op, allowed));
    }
  }
  return errs;
}
