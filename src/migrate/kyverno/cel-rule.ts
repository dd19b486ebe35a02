/**
 * A legacy `validate.cel` rule → ValidatingAdmissionPolicy + binding, as kyverno v1.19's
 * BuildValidatingAdmissionPolicy / BuildValidatingAdmissionPolicyBinding (ClusterPolicy branch)
 * write them: matchConstraints from match/exclude (match.ts), matchConditions from
 * celPreconditions, paramKind/variables/validations/auditAnnotations from validate.cel; the
 * binding's validationActions from the failure action (Enforce → Deny, Audit → Audit + Warn).
 *
 * Unlike Kyverno's generator (which takes one-rule policies only), every validate.cel rule of a
 * policy gets its own pair; Kyverno's engine decides each rule on its own too.
 */
import { isObject, list, obj, objList, str, type Obj } from '../../base/json';
import { DEFAULT_KUBERNETES_VERSION, isKubernetesVersion, type KubernetesVersion, releaseOf } from '../../base/releases';
import { kyvernoOnlyReason, nonOptionalOrValue, type SourceExpression } from './libraries';
import { translateMatch } from './match';
import { inNamespace, ref, validatingBinding, validatingPolicy } from './objects';
import type { RuleContext, RuleConversion } from './rule-types';
import { legacyAutogen } from './autogen';
import { actionConditions, baseEnforce } from '../kyverno-pattern/failure-action';
import { Unsupported } from '../kyverno-pattern/pattern';

/** Every expression of a validate.cel rule, with its path in the policy. */
export function celRuleExpressions(rule: Obj, index: number): SourceExpression[] {
  const at = `spec.rules[${index}]`;
  const cel = obj(obj(rule.validate).cel);
  const out: SourceExpression[] = [];
  objList(rule.celPreconditions).forEach((c, i) => out.push({ path: `${at}.celPreconditions[${i}].expression`, expression: str(c.expression) }));
  objList(cel.variables).forEach((v, i) => out.push({ path: `${at}.validate.cel.variables[${i}].expression`, expression: str(v.expression) }));
  objList(cel.expressions).forEach((e, i) => {
    out.push({ path: `${at}.validate.cel.expressions[${i}].expression`, expression: str(e.expression) });
    if (e.messageExpression) out.push({ path: `${at}.validate.cel.expressions[${i}].messageExpression`, expression: str(e.messageExpression) });
  });
  objList(cel.auditAnnotations).forEach((a, i) =>
    out.push({ path: `${at}.validate.cel.auditAnnotations[${i}].valueExpression`, expression: str(a.valueExpression) }),
  );
  return out;
}

/**
 * Kyverno's CEL gives x for `x.orValue(y)` on a non-optional x; so does the apiserver of a release whose
 * cel-go does (the release table's `cel.plainOrValue`), and from cel-go v0.29 (1.37) it fails.
 */
export function orValueDifference(expressions: readonly SourceExpression[], version: KubernetesVersion): string | undefined {
  if (releaseOf(version).cel.plainOrValue === 'value') return undefined;
  const found = expressions.flatMap((e) => nonOptionalOrValue(e.expression).map((r) => `${e.path}: ${r}.orValue(…)`));
  if (found.length)
    return `orValue on a value that is not optional (${found.join('; ')}): Kyverno's CEL returns the value, the ${version} apiserver's fails with "no such overload" (up to 1.36 it returns the value too)`;
}

/** The release conversions are for (the default when none or an unknown one is given). */
export const targetVersion = (v: unknown): KubernetesVersion => (isKubernetesVersion(v) ? v : DEFAULT_KUBERNETES_VERSION);

/**
 * The binding's validationActions: Deny where Kyverno's webhook enforces the rule, else Audit and
 * Warn (as Kyverno's own generator writes them). Its failure action as the overrides leave it
 * (failure-action.ts, Kyverno's cache and engine): an override with no namespaces changes it
 * everywhere, which Kyverno's generator does not read. Overrides that leave the action differing
 * by Namespace are refused by convertCelRule before this.
 */
export function validationActions(policy: Obj, rule: Obj): string[] {
  const { deny } = actionConditions(policy, rule);
  const enforce = deny === 'true' || (deny !== 'false' && baseEnforce(policy, rule));
  return enforce ? ['Deny'] : ['Audit', 'Warn'];
}

export function convertCelRule(ctx: RuleContext): RuleConversion {
  const { policy, rule, index } = ctx;
  const spec = obj(policy.spec);
  const cel = obj(obj(rule.validate).cel);
  const onlyKyverno = kyvernoOnlyReason(celRuleExpressions(rule, index));
  if (onlyKyverno) return { status: 'unsupported', reason: onlyKyverno, objects: [] };

  const overrides = [...objList(spec.validationFailureActionOverrides), ...objList(obj(rule.validate).failureActionOverrides)];
  if (overrides.length > 1)
    return {
      status: 'unsupported',
      reason: 'skip generating ValidatingAdmissionPolicy: multiple validationFailureActionOverrides are not applicable.',
      objects: [],
    };
  if (overrides.some((o) => list(o.namespaces).length))
    return {
      status: 'unsupported',
      reason: 'skip generating ValidatingAdmissionPolicy: Namespaces in validationFailureActionOverrides is not applicable.',
      objects: [],
    };

  try {
    actionConditions(policy, rule);
  } catch (e) {
    if (e instanceof Unsupported)
      return { status: 'unsupported', reason: `skip generating ValidatingAdmissionPolicy: ${e.message} is not applicable.`, objects: [] };
    throw e;
  }

  const match = translateMatch(rule, ctx.discovery);
  if (match.refused) return { status: 'unsupported', reason: match.refused, objects: [] };

  const vap = validatingPolicy(ctx.policyName, {
    matchConstraints: match.matchConstraints,
    paramKind: cel.paramKind,
    variables: cel.variables,
    validations: cel.expressions,
    auditAnnotations: cel.auditAnnotations,
    matchConditions: rule.celPreconditions,
  });
  const namespace = str(obj(policy.metadata).namespace);
  const binding = validatingBinding(ctx.policyName, validationActions(policy, rule), {
    paramRef: cel.paramRef,
    ...(policy.kind === 'Policy' && namespace ? inNamespace(namespace) : {}),
  });
  const objects = [vap, binding];

  // What Kyverno's engine does with this rule that the produced objects do not.
  const differences = [...match.differences];
  if (policy.kind === 'Policy')
    differences.push(`Kyverno generates no admission policy for a namespaced Policy; the binding is limited to namespace '${namespace}'`);
  if (list(rule.preconditions).length || isObject(rule.preconditions))
    differences.push('the JMESPath preconditions are not converted: the policy applies where Kyverno skips the rule');
  if (list(rule.context).length) differences.push("the rule's context entries are not converted");
  if (spec.admission === false) differences.push('spec.admission is false: Kyverno runs the rule in background scans only');
  if (isObject(spec.webhookConfiguration) && list(spec.webhookConfiguration.matchConditions).length)
    differences.push("spec.webhookConfiguration.matchConditions (Kyverno's webhook) are not converted");
  if (cel.paramKind && !cel.paramRef) differences.push('paramKind without paramRef: the binding has no paramRef');

  const orValue = orValueDifference(celRuleExpressions(rule, index), targetVersion(ctx.options.kubernetesVersion));
  if (orValue) differences.push(orValue);

  const autogen = legacyAutogen(ctx, vap, binding);
  objects.push(...autogen.objects);
  if (autogen.difference) differences.push(autogen.difference);
  return {
    status: differences.length ? 'different' : 'exact',
    reason: differences.length ? differences.join('; ') : undefined,
    objects,
  };
}

export const producedRefs = (objects: readonly Obj[]): string[] => objects.map(ref);
