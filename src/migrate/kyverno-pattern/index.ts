/**
 * Kyverno's own policy language (ClusterPolicy/Policy `validate.pattern`, `anyPattern`,
 * `deny.conditions`, `preconditions`) into ValidatingAdmissionPolicies, rule by rule. See README.md.
 */
export { convertPatternRule, producedName, ruleType, type PatternRuleConversion, type PatternRuleType } from './rule';
export { patternCel } from './pattern';
export { conditionsCel } from './conditions';
export { convertMutateRule } from './mutate';
