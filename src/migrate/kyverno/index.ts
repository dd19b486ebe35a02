/**
 * Kyverno's policies into native admission (README.md beside this file): ValidatingPolicy and
 * MutatingPolicy (policies.kyverno.io, and their namespaced forms) one rule each, and the rules of
 * a legacy ClusterPolicy/Policy (kyverno.io/v1) through RULE_CONVERTERS.
 */
import { isObject, obj, objList, str, type Obj } from '../../base/json';
import { minorOf, type KubernetesVersion } from '../../base/releases';
import { BUILTIN_RESOURCES, servedIn } from '../../k8s/resources';
import { customResources } from '../../admission/discovery';
import type { Conversion, ConvertOptions, Converter, RuleResult } from '../types';
import { targetVersion } from './cel-rule';
import { ref } from './objects';
import { convertMutatingPolicy, convertValidatingPolicy, MUTATING_KINDS, VALIDATING_KINDS } from './policies';
import { RULE_CONVERTERS, ruleType, type RuleContext } from './rules';

export { RULE_CONVERTERS, ruleType, type KyvernoRuleType, type RuleContext, type RuleConversion, type RuleConverter } from './rules';
export { kyvernoOnlyNames } from './libraries';
export { translateMatch } from './match';

const LEGACY_KINDS = ['ClusterPolicy', 'Policy'];
const group = (o: Obj) => str(o.apiVersion).split('/')[0];

/** Whether `object` is a Kyverno policy this converter reads. */
export function isKyvernoPolicy(object: Obj): boolean {
  const g = group(object);
  const k = str(object.kind);
  return (g === 'kyverno.io' && LEGACY_KINDS.includes(k)) || (g === 'policies.kyverno.io' && [...VALIDATING_KINDS, ...MUTATING_KINDS].includes(k));
}

/** The resources the target release serves, with the workspace's CRDs: what Kyverno's discovery would find. */
function served(objects: readonly Obj[], version: KubernetesVersion) {
  const minor = minorOf(version);
  return { minor, served: [...BUILTIN_RESOURCES.filter((r) => servedIn(r, minor)), ...customResources(objects)] };
}

/** The rules of a legacy policy, each converted on its own. */
function convertLegacy(policy: Obj, options: ConvertOptions, discovery: RuleContext['discovery']): { objects: Obj[]; rules: RuleResult[] } {
  const md = obj(policy.metadata);
  const name = str(md.name);
  const rules = objList(obj(policy.spec).rules);
  const out: { objects: Obj[]; rules: RuleResult[] } = { objects: [], rules: [] };
  const prefix = policy.kind === 'Policy' ? `pol-${str(md.namespace)}-${name}` : `cpol-${name}`;
  rules.forEach((rule, index) => {
    const type = ruleType(rule);
    const ctx: RuleContext = { policy, rule, index, policyName: rules.length === 1 ? prefix : `${prefix}-${str(rule.name)}`, options, discovery };
    const r = RULE_CONVERTERS[type](ctx);
    out.objects.push(...r.objects);
    out.rules.push({
      source: { kind: str(policy.kind), name, ...(str(md.namespace) ? { namespace: str(md.namespace) } : {}), rule: str(rule.name) || `rules[${index}]` },
      status: r.status,
      ...(r.reason ? { reason: r.reason } : {}),
      produced: r.objects.map(ref),
    });
  });
  if (rules.length === 0)
    out.rules.push({ source: { kind: str(policy.kind), name, rule: '' }, status: 'unsupported', reason: 'the policy has no rules', produced: [] });
  return out;
}

export const kyvernoConverter: Converter = {
  name: 'Kyverno',
  owns: isKyvernoPolicy,
  convert(objects, options): Conversion {
    const version = targetVersion(options.kubernetesVersion);
    const discovery = served(objects, version);
    const out: Conversion = { objects: [], rules: [] };
    for (const o of objects) {
      if (!isObject(o) || !isKyvernoPolicy(o)) continue;
      const kind = str(o.kind);
      if (LEGACY_KINDS.includes(kind)) {
        const r = convertLegacy(o, options, discovery);
        out.objects.push(...r.objects);
        out.rules.push(...r.rules);
      } else {
        const r = VALIDATING_KINDS.includes(kind) ? convertValidatingPolicy(o, version) : convertMutatingPolicy(o, version);
        out.objects.push(...r.objects);
        out.rules.push(r.rule);
      }
    }
    return out;
  },
};
