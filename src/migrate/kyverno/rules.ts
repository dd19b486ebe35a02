/**
 * The legacy rules of a ClusterPolicy/Policy (kyverno.io/v1), converted one by one through
 * RULE_CONVERTERS, keyed by the rule's type. Adding a rule type is one entry in the table: a
 * function from the rule (and its policy) to its status and produced objects.
 */
import { isObject, list, type Obj } from '../../base/json';
import { convertPatternRule } from '../kyverno-pattern';
import { convertCelRule } from './cel-rule';
import type { RuleConverter } from './rule-types';

/** What a legacy rule does, by the field that holds it (kyverno's Rule.HasValidate…/HasMutate…). */
export type KyvernoRuleType =
  | 'validate.cel'
  | 'validate.pattern'
  | 'validate.anyPattern'
  | 'validate.deny'
  | 'validate.podSecurity'
  | 'validate.foreach'
  | 'validate.manifests'
  | 'validate.assert'
  | 'mutate'
  | 'generate'
  | 'verifyImages'
  | 'unknown';

/** The rule's type: the first of its fields that kyverno's engine would run. */
export function ruleType(rule: Obj): KyvernoRuleType {
  if (isObject(rule.validate)) {
    const v = rule.validate;
    if (isObject(v.cel)) return 'validate.cel';
    if (v.pattern !== undefined) return 'validate.pattern';
    if (v.anyPattern !== undefined) return 'validate.anyPattern';
    if (isObject(v.deny)) return 'validate.deny';
    if (isObject(v.podSecurity)) return 'validate.podSecurity';
    if (list(v.foreach).length) return 'validate.foreach';
    if (isObject(v.manifests)) return 'validate.manifests';
    if (v.assert !== undefined) return 'validate.assert';
  }
  if (isObject(rule.mutate)) return 'mutate';
  if (isObject(rule.generate)) return 'generate';
  if (list(rule.verifyImages).length) return 'verifyImages';
  return 'unknown';
}

export type { RuleContext, RuleConversion, RuleConverter } from './rule-types';

const notYet: RuleConverter = () => ({ status: 'unsupported', reason: 'pattern rules: not converted yet', objects: [] });
/** Kyverno's pattern language (src/migrate/kyverno-pattern), held to the Kyverno engine by its differential. */
const pattern: RuleConverter = (ctx) => {
  const { status, reason, objects } = convertPatternRule(ctx.policy, ctx.rule, ctx.policyName);
  return { status, ...(reason ? { reason } : {}), objects };
};
const never =
  (reason: string): RuleConverter =>
  () => ({ status: 'unsupported', reason, objects: [] });

/** One converter per rule type; a type without an entry is unsupported (`unknown` names it). */
export const RULE_CONVERTERS: Readonly<Record<KyvernoRuleType, RuleConverter>> = {
  'validate.cel': convertCelRule,
  'validate.pattern': pattern,
  'validate.anyPattern': pattern,
  'validate.deny': pattern,
  'validate.podSecurity': pattern,
  'validate.foreach': pattern,
  'validate.assert': notYet,
  mutate: pattern,
  'validate.manifests': never('validate.manifests (signed YAML manifests) has no native counterpart'),
  generate: never('generate rules create other resources: admission policies cannot'),
  verifyImages: never('verifyImages checks signatures in registries: admission policies cannot'),
  unknown: never('the rule has no validate, mutate, generate or verifyImages part that Kyverno would run'),
};
