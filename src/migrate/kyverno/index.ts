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
import { duplicateNote, occurrences, occurrenceSuffix } from '../duplicates';
import { targetVersion } from './cel-rule';
import { ref } from './objects';
import { convertMutatingPolicy, convertValidatingPolicy, MUTATING_KINDS, VALIDATING_KINDS } from './policies';
import { RULE_CONVERTERS, ruleType, type RuleContext, type RuleConversion } from './rules';

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

/**
 * The rules of a legacy policy, each converted on its own. `suffix`: after the policy's name in
 * the produced names (`-2` for the second document of its kind and name: keeps them apart).
 */
/**
 * `applyRules: One`: Kyverno stops at the first rule that applies to a request (it matches and
 * passes, fails or errs: pkg/engine's ApplyOne, checked with the oracle), so a later rule is not
 * evaluated where an earlier one applied. Its converted policy applies anyway: not exact.
 */
function afterApplyOne(policy: Obj, index: number, r: RuleConversion): RuleConversion {
  if (index === 0 || str(obj(policy.spec).applyRules) !== 'One' || r.status === 'unsupported') return r;
  const why =
    'applyRules One: Kyverno evaluates this rule only where no earlier rule of the policy applied to the request; its converted policy applies whatever they did';
  return { ...r, status: 'different', reason: r.reason ? `${r.reason}; ${why}` : why };
}

function convertLegacy(policy: Obj, options: ConvertOptions, discovery: RuleContext['discovery'], suffix: string): { objects: Obj[]; rules: RuleResult[] } {
  const md = obj(policy.metadata);
  const name = str(md.name);
  const rules = objList(obj(policy.spec).rules);
  const out: { objects: Obj[]; rules: RuleResult[] } = { objects: [], rules: [] };
  const prefix = `${policy.kind === 'Policy' ? `pol-${str(md.namespace)}-${name}` : `cpol-${name}`}${suffix}`;
  rules.forEach((rule, index) => {
    const type = ruleType(rule);
    const ctx: RuleContext = { policy, rule, index, policyName: rules.length === 1 ? prefix : `${prefix}-${str(rule.name)}`, options, discovery };
    const r = afterApplyOne(policy, index, RULE_CONVERTERS[type](ctx));
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

/** A policy's kind, namespace and name: a cluster holds one policy of each. */
const identity = (o: Obj): string => `${str(o.kind)}/${str(obj(o.metadata).namespace)}/${str(obj(o.metadata).name)}`;

/**
 * Which one of the Kyverno policies of its kind, namespace and name among `objects` `policy` is
 * (1 the first), by its content (a test's policy file read again parses to the same object);
 * undefined when none is. The converter numbers them in the same order (SourceRule.occurrence).
 */
export function kyvernoOccurrence(objects: readonly Obj[], policy: Obj): number | undefined {
  const same = objects.filter((o) => isObject(o) && isKyvernoPolicy(o) && identity(o) === identity(policy));
  const text = JSON.stringify(policy);
  const i = same.findIndex((o) => JSON.stringify(o) === text);
  return i < 0 ? undefined : i + 1;
}

/** What a rule of the n-th of `total` policies of one kind and name says about the others. */
function duplicateOf(policy: Obj, n: number, total: number): string {
  const md = obj(policy.metadata);
  const what = `${str(policy.kind)} ${str(md.namespace) ? `${str(md.namespace)}/` : ''}${str(md.name)}`;
  return duplicateNote(what, n, total, n === 1 ? 'its objects named as Kyverno names them' : `its objects' names with -${n} after the policy's name`);
}

export const kyvernoConverter: Converter = {
  name: 'Kyverno',
  owns: isKyvernoPolicy,
  convert(objects, options): Conversion {
    const version = targetVersion(options.kubernetesVersion);
    const discovery = served(objects, version);
    const out: Conversion = { objects: [], rules: [] };
    const policies = objects.filter((o) => isObject(o) && isKyvernoPolicy(o));
    const counts = occurrences(policies, identity);
    policies.forEach((o, i) => {
      const kind = str(o.kind);
      // documents of one kind and name (two folders of a library) are kept apart: the later ones' objects are renamed, every rule says so
      const { n, of } = counts[i]!;
      const suffix = occurrenceSuffix(n);
      const r = LEGACY_KINDS.includes(kind)
        ? convertLegacy(o, options, discovery, suffix)
        : VALIDATING_KINDS.includes(kind)
          ? convertValidatingPolicy(o, version, suffix)
          : convertMutatingPolicy(o, version, suffix);
      out.objects.push(...r.objects);
      const rules = 'rules' in r ? r.rules : [r.rule];
      for (const rule of rules) out.rules.push(of > 1 ? { ...rule, source: { ...rule.source, occurrence: n }, duplicate: duplicateOf(o, n, of) } : rule);
    });
    return out;
  },
};
