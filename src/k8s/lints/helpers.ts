/** Small readers used by the lint rules (the JSON readers of ../json.ts under the names the rules use): they never throw on odd shapes. */
import { isObject as isObj, kindOf, nameOf, objList as objs, str, strList as strs, type Obj } from '../../base/json';
import { NAMESPACE_NAME_LABEL } from '../resources';
import type { Finding } from './rule-types';

export { isObj, kindOf, nameOf, objs, str, strs, type Obj };

/** Does a rule's list cover a value ("*" covers everything)? */
export const covers = (list: readonly string[], value: string): boolean => list.includes('*') || list.includes(value);

/** Does a rule (apiGroups/resources) cover a resource of a group? Subresource entries count for their resource. */
export function ruleCovers(rule: Obj, group: string, resource: string): boolean {
  const resources = strs(rule.resources).map((r) => r.split('/')[0]);
  return covers(strs(rule.apiGroups), group) && (resources.includes('*') || resources.includes(resource));
}

/** Does a label selector exclude a namespace by name (NAMESPACE_NAME_LABEL NotIn/!= …, or a matchLabels on a label it lacks)? */
export function selectorExcludesNamespace(selector: unknown, namespace: string): boolean {
  if (!isObj(selector)) return false;
  for (const e of objs(selector.matchExpressions)) {
    const key = str(e.key);
    const op = str(e.operator);
    const values = strs(e.values);
    if (key === NAMESPACE_NAME_LABEL && op === 'NotIn' && values.includes(namespace)) return true;
    if (key === NAMESPACE_NAME_LABEL && op === 'In' && !values.includes(namespace)) return true;
    // Any other requirement that a system namespace would not meet (opt-in labels) excludes it too.
    if (key !== NAMESPACE_NAME_LABEL && (op === 'In' || op === 'Exists')) return true;
  }
  const labels = isObj(selector.matchLabels) ? selector.matchLabels : {};
  if (Object.keys(labels).some((k) => k !== NAMESPACE_NAME_LABEL || labels[k] !== namespace)) return true;
  return false;
}

export const isEmptySelector = (s: unknown): boolean =>
  !isObj(s) || (objs(s.matchExpressions).length === 0 && (!isObj(s.matchLabels) || Object.keys(s.matchLabels).length === 0));

// Webhook rules (webhook-rules.ts and the tables it joins).

export const WEBHOOK_KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];
export const rulesOf = (w: Obj) => objs(w.rules);
export const broad = (r: Obj) => strs(r.resources).some((x) => x === '*' || x === '*/*') || strs(r.apiGroups).includes('*');
export const one = (cond: boolean, f: () => Finding): Finding[] => (cond ? [f()] : []);
