/**
 * One Kyverno ClusterPolicy/Policy rule (`validate.pattern`, `anyPattern`, `deny`, with
 * `preconditions`) as a ValidatingAdmissionPolicy and its binding. The status is the constructs':
 * `exact` only for what the differential against the Kyverno engine holds
 * (kyverno-pattern.oracle.test.ts); everything else names the construct.
 */
import type { Obj } from '../../base/json';
import { BUILTIN_RESOURCES } from '../../k8s/resources';
import type { RuleStatus } from '../types';
import { CONTROLLER_RESOURCES, kindsOf, ruleControllers, shiftPattern } from './autogen';
import { autogenConditions, conditionsCel, rulePreconditionsCel, type Scope } from './conditions';
import { missingParamDifference, ruleContext } from './context';
import { actionConditions, baseEnforce, byAction } from './failure-action';
import { foreachCel } from './foreach';
import { beyondMutate, matchOf } from './match';
import { convertMutateRule } from './mutate';
import { Unsupported, patternCel } from './pattern';
import { podSecurityParts } from './pod-security';

type Rec = Record<string, unknown>;

export type PatternRuleType = 'pattern' | 'anyPattern' | 'deny' | 'podSecurity' | 'foreach' | 'cel' | 'mutate' | 'other';

export interface PatternRuleConversion {
  type: PatternRuleType;
  status: RuleStatus;
  reason?: string;
  /** The policy and its binding (absent when unsupported). */
  objects: Obj[];
}

/** The kind of rule, as the library's measures count them. */
export function ruleType(rule: Rec): PatternRuleType {
  const v = rule.validate as Rec | undefined;
  if (v?.pattern !== undefined) return 'pattern';
  if (v?.anyPattern !== undefined) return 'anyPattern';
  if (v?.deny !== undefined) return 'deny';
  if (v?.podSecurity !== undefined) return 'podSecurity';
  if (v?.foreach !== undefined) return 'foreach';
  if (v?.cel !== undefined) return 'cel';
  if (rule.mutate !== undefined) return 'mutate';
  return 'other';
}

/** A DNS-1123 name for the produced objects. */
export function producedName(policy: string, rule: string): string {
  const n = `${policy}-${rule}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return n.length > 253 ? n.slice(0, 253).replace(/[^a-z0-9]+$/, '') : n;
}

/** A foreach rule with allowExistingViolations: an UPDATE whose new and old objects both fail (an error is not excused) is let through. */
function foreachExempt(foreach: unknown, kind: 'Pod' | 'Deployment' | 'CronJob', differences: string[], scope: Scope): string {
  const f = autogenConditions(foreach, kind);
  const now = foreachCel(f, 'object', 'request.operation', differences, scope);
  const old = foreachCel(f, 'oldObject', "'CREATE'", differences, scope);
  return `[${now}].map(fn, !(fn in [3, 4]) || (fn == 3 && request.operation == 'UPDATE' && oldObject != null && ${old} == 3))[0]`;
}

/** The CEL that allows the request (true) or denies it, from the rule's body; what it decides differently. */
function bodyCel(
  rule: Rec,
  type: PatternRuleType,
  differences: string[],
  kind: 'Pod' | 'Deployment' | 'CronJob' = 'Pod',
  root = 'object',
  operation = 'request.operation',
  scope: Scope = {},
): string {
  const v = rule.validate as Rec;
  const shift = (p: unknown) => (kind === 'Pod' ? p : shiftPattern(p, kind));
  // Kyverno's generated rules read the foreach text rewritten under the template, as conditions (autogenConditions)
  if (type === 'foreach') return `!(${foreachCel(autogenConditions(v.foreach, kind), root, operation, differences, scope)} in [3, 4])`;
  if (type === 'pattern') {
    const p = patternCel(shift(v.pattern), root);
    differences.push(...p.differences);
    return `${p.cel} != 3`;
  }
  if (type === 'anyPattern') {
    if (!Array.isArray(v.anyPattern)) throw new Unsupported('anyPattern that is not a list');
    // Any pattern passes: pass; else a fail fails; only skips: skip.
    const rs = v.anyPattern.map((p) => patternCel(shift(p), root));
    for (const r of rs) differences.push(...r.differences);
    return `[[${rs.map((r) => r.cel).join(', ')}]].map(p, p.exists(x, x == 0) || !p.exists(x, x == 3))[0]`;
  }
  if (type === 'deny') {
    // a deny without conditions denies every request the rule matches
    const conditions = autogenConditions((v.deny as Rec | null | undefined)?.conditions, kind);
    return conditions === undefined ? 'false' : `!(${conditionsCel(conditions, 'deny.conditions', operation, root, differences, scope)})`;
  }
  throw new Unsupported(`validate.${Object.keys(v).find((k) => k !== 'message') ?? 'rule'}`);
}

/**
 * `request.namespace` is read as Kyverno's webhook has it (no key for a cluster-scoped request);
 * `kyverno test` and the oracle give "" there and for a DELETE, so such rules are not converted.
 */
function requestNamespaceHeld(rule: Rec): void {
  if (!/\{\{[^}]*request\.namespace/.test(JSON.stringify(rule))) return;
  const kinds = kindsOf(rule.match);
  if (!kinds.length || kinds.some((k) => k.includes('*') || BUILTIN_RESOURCES.find((r) => r.kind === k)?.namespaced === false))
    throw new Unsupported('request.namespace in a rule matching cluster-scoped kinds (no key in the webhook, "" in kyverno test)');
  if (/"DELETE"/.test(JSON.stringify(rule.match))) throw new Unsupported('request.namespace on a DELETE ("" in kyverno test)');
}

/** One rule; `name` names the produced policy and binding (default `<policy>-<rule>`). */
export function convertPatternRule(policy: Obj, rule: Rec, name?: string): PatternRuleConversion {
  const type = ruleType(rule);
  const unsupported = (reason: string): PatternRuleConversion => ({ type, status: 'unsupported', reason, objects: [] });
  const notHeld = type === 'mutate' ? beyondMutate(rule) : undefined;
  if (notHeld) return unsupported(notHeld);
  if (type === 'mutate')
    return convertMutateRule(policy, rule, name ?? producedName(String((policy.metadata as Rec | undefined)?.name ?? ''), String(rule.name)));
  if (type === 'cel') return unsupported('validate.cel (the CEL rules are converted by the Kyverno CEL converter)');
  if (type === 'other') return unsupported(rule.generate ? 'generate' : rule.verifyImages ? 'verifyImages' : 'a rule of no validate kind this converter reads');
  const v = rule.validate as Rec;
  try {
    const match = matchOf(rule);
    requestNamespaceHeld(rule);
    const message = `validation error: ${String(v.message ?? '')} rule ${String(rule.name)} failed`;
    const differences: string[] = [];
    const controllers = ruleControllers(policy, rule);
    // context entries as policy variables (context.ts); the Kyverno context they are read through
    const context = ruleContext(policy, rule, controllers);
    if (context && type === 'podSecurity') throw new Unsupported('context in a podSecurity rule');
    // request.userInfo: the admission request's user, as Kyverno's context holds it (jmespath-json.ts)
    const scope: Scope = { ...(context?.scope ?? {}), userInfo: true };
    const missing = context && missingParamDifference(context, rule);
    if (missing) differences.push(missing);
    // Enforce rules let an UPDATE through when the old object fails the rule too (allowExistingViolations,
    // true unless set): the old object is checked as a CREATE. With preconditions Kyverno v1.19 excuses
    // nothing (found by the differential: the oracle answers fail on such an UPDATE).
    const excuses = baseEnforce(policy, rule) && v.allowExistingViolations !== false;
    // where a failure denies and where it is audited (the failure action and its overrides by Namespace)
    const actions = actionConditions(policy, rule);
    const exempt = excuses && rule.preconditions === undefined;
    // Kyverno's generated rules read the conditions' text rewritten under the template (autogenConditions)
    const pre = rulePreconditionsCel(rule, controllers, differences, scope);
    const body = (kind: 'Pod' | 'Deployment' | 'CronJob') => {
      if (exempt && type === 'foreach') return foreachExempt(v.foreach, kind, differences, scope);
      const allow = bodyCel(rule, type, differences, kind, 'object', 'request.operation', scope);
      if (!exempt) return allow;
      // the old object is read with the context entries the new one loaded (Kyverno keeps them loaded)
      return `(${allow}) || (request.operation == 'UPDATE' && oldObject != null && !(${bodyCel(rule, type, differences, kind, 'oldObject', "'CREATE'", scope)}))`;
    };
    const validations = type === 'podSecurity' ? [] : [{ expression: body('Pod'), kinds: ['Pod'] }];
    if (controllers.length) {
      const others = controllers.filter((k) => k !== 'CronJob');
      if (type !== 'podSecurity' && others.length) validations.push({ expression: body('Deployment'), kinds: others });
      if (type !== 'podSecurity' && controllers.includes('CronJob')) validations.push({ expression: body('CronJob'), kinds: ['CronJob'] });
      const ops = (match.matchConstraints.resourceRules as Rec[])[0]?.operations ?? ['CREATE', 'UPDATE'];
      for (const k of controllers) {
        const r = CONTROLLER_RESOURCES[k];
        (match.matchConstraints.resourceRules as Rec[]).push({ apiGroups: [r.group], apiVersions: [r.version], operations: ops, resources: [r.resource] });
      }
    }
    // One validation per shape of object (Pods, controllers, CronJobs), each guarded by the request's kind.
    let guarded = validations.map((v) => ({
      expression: controllers.length ? `!(request.kind.kind in [${v.kinds.map((k) => `'${k}'`).join(', ')}]) || (${v.expression})` : v.expression,
      message,
    }));
    // podSecurity: one validation per Pod Security Standards check, old objects read through a variable
    let variables: { name: string; expression: string }[] = context?.variables ?? [];
    if (type === 'podSecurity') {
      const oldPre = rule.preconditions === undefined ? 'true' : conditionsCel(rule.preconditions, 'preconditions', "'CREATE'", 'oldObject');
      // (podSecurity has its own handler in Kyverno: its old-object check is the pod-security converter's)
      const ps = podSecurityParts(rule, [...kindsOf(rule.match), ...controllers], excuses ? oldPre : undefined);
      ({ validations: guarded, variables } = ps);
      differences.push(...ps.differences);
    }
    const objectName = name ?? producedName(String((policy.metadata as Rec | undefined)?.name ?? ''), String(rule.name));
    const vap: Obj = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: objectName },
      spec: {
        failurePolicy: 'Fail',
        ...(context?.param ? { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } : {}),
        matchConstraints: match.matchConstraints,
        ...(match.matchConditions.length || pre
          ? { matchConditions: [...match.matchConditions, ...(pre ? [{ name: 'kyverno-preconditions', expression: pre }] : [])] }
          : {}),
        ...(variables.length ? { variables } : {}),
        validations: guarded,
      },
    };
    const binding: Obj = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: objectName },
      spec: {
        policyName: objectName,
        // a missing ConfigMap is an error in Kyverno (loaders/configmap.go): the request is denied
        ...(context?.param ? { paramRef: { ...context.param, parameterNotFoundAction: 'Deny' } } : {}),
      },
    };
    const ns = (policy.metadata as Rec | undefined)?.namespace;
    if (policy.kind === 'Policy') {
      // a namespaced Policy applies in its own namespace only
      const spec = vap.spec as Rec;
      spec.matchConditions = [
        ...((spec.matchConditions as Rec[]) ?? []),
        { name: 'kyverno-policy-namespace', expression: `request.namespace == '${String(ns ?? 'default')}'` },
      ];
      differences.push('a namespaced Policy, limited to its namespace by a match condition (the differential holds ClusterPolicies)');
    }
    // the differential sends requests for whole objects only (reach.ts), never for a subresource
    // (a Pod's exec or a Deployment's scale, a CRD's status), so a rule that decides them is not
    // held there: never called exact
    const resources = (match.matchConstraints.resourceRules as Rec[]).flatMap((r) => (r.resources as string[]) ?? []);
    const subresources = resources.filter((r) => r.includes('/'));
    if (subresources.length)
      differences.push(`requests for a subresource (${subresources.join(', ')}): the differential against Kyverno sends none, so this is not proven exact`);
    // the apiserver refuses an expression longer than 100,000 code points
    if ([...guarded, ...(((vap.spec as Rec).matchConditions as Rec[] | undefined) ?? [])].some((x) => [...String(x.expression)].length > 100_000))
      throw new Unsupported("conditions whose CEL would exceed the apiserver's 100,000-character expression limit");
    const objects = byAction(vap, binding, actions, baseEnforce(policy, rule));
    if (differences.length) return { type, status: 'different', reason: [...new Set(differences)].join('; '), objects };
    return { type, status: 'exact', objects };
  } catch (e) {
    if (e instanceof Unsupported) return unsupported(e.message);
    throw e;
  }
}
