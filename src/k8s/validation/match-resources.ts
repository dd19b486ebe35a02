/**
 * MatchResources (VAP/MAP spec.matchConstraints, binding spec.matchResources):
 * validation.go validateMatchResources. Checked only when present; in v1 the
 * matchPolicy and selectors are defaulted, so their Required errors only show
 * for objects that skipped defaulting.
 */
import { append, notSupported, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { validateNamedRuleWithOperations } from './rules';
import { validateLabelSelector } from './selectors';
import { goList, isAbsent, type Obj } from './values';
import { supportedMatchPolicies } from './webhooks';

export function validateMatchResources(mc: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (isAbsent(mc.matchPolicy)) errs.push(required(path.child('matchPolicy')));
  else if (typeof mc.matchPolicy === 'string' && !(supportedMatchPolicies as readonly string[]).includes(mc.matchPolicy))
    errs.push(notSupported(path.child('matchPolicy'), mc.matchPolicy, supportedMatchPolicies));
  for (const selector of ['namespaceSelector', 'objectSelector'] as const) {
    if (isAbsent(mc[selector])) errs.push(required(path.child(selector)));
    else append(errs, validateLabelSelector(mc[selector], path.child(selector)));
  }
  for (const rules of ['resourceRules', 'excludeResourceRules'] as const) {
    goList(mc[rules])?.forEach((rule, i) => append(errs, validateNamedRuleWithOperations(rule, path.child(rules).index(i))));
  }
  return errs;
}
