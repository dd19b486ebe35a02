/**
 * Where Kyverno v1.19's webhook enforces a validate rule (a failure denies the request) and where it
 * only audits: the rule's `failureAction` or the policy's `validationFailureAction`, changed per
 * Namespace by `validate.failureActionOverrides` and `spec.validationFailureActionOverrides`.
 *
 * Two parts of Kyverno read the overrides, and a failure is denied only when both say Enforce:
 * - the policy cache (pkg/policycache/cache.go checkValidationFailureActionOverrides) puts the rule
 *   among the enforced ones for the request's Namespace or among the audited ones: the rule's own
 *   overrides when it has any, else the policy's; the first override that matches decides (no
 *   namespaces and no selector: every Namespace; else `wildcard.CheckPatterns(namespaces, name)`;
 *   a request without a Namespace (cluster-scoped) matches only the former), else the rule's
 *   failureAction, else the policy's validationFailureAction;
 * - the engine response (pkg/engine/api/engineresponse.go HasEnforcedFailure → failureActionForRule →
 *   ruleAction/matchOverride) decides whether a failed rule blocks: the rule's overrides, then its
 *   failureAction, then the policy's overrides, then the policy's action; an override with
 *   `namespaces` absent matches every Namespace, one with a list (even empty) only the names that
 *   match one of its wildcards (`wildcard.Match`: `*` any runes, `?` one) on the resource's namespace.
 *
 * A namespaceSelector in an override (the Namespace's labels, which a matchCondition cannot read) is
 * not converted. allowExistingViolations reads the action without the overrides (validate_resource.go):
 * baseEnforce below.
 */
import type { Obj } from '../../base/json';
import { BUILTIN_RESOURCES } from '../../k8s/resources';
import { kindsOf } from './autogen';
import { Unsupported } from './pattern';
import { wildcardCel } from './scalar';

type Rec = Record<string, unknown>;

interface Override {
  enforce: boolean;
  /** undefined: the field absent (Go's nil slice). */
  namespaces: string[] | undefined;
}

const ACTIONS = ['Enforce', 'enforce', 'Audit', 'audit'];
const isEnforce = (a: unknown) => a === 'Enforce' || a === 'enforce';

/** The overrides at `where`, as Kyverno's types read them; what cannot be converted throws. */
function overridesAt(value: unknown, where: string): Override[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Unsupported(`${where} that is not a list`);
  return value.map((o, i) => {
    const at = `${where}[${i}]`;
    if (!o || typeof o !== 'object') throw new Unsupported(`${at} that is not an object`);
    const { action, namespaces, namespaceSelector } = o as Rec;
    // the cache reads an action it does not know as Audit, the engine skips the override: refused by Kyverno's CRD
    if (!ACTIONS.includes(action as string)) throw new Unsupported(`${at}.action that is not Audit or Enforce`);
    if (namespaceSelector !== undefined && namespaceSelector !== null)
      throw new Unsupported(`${at}.namespaceSelector (the Namespace's labels: a match condition cannot read them)`);
    if (namespaces !== undefined && namespaces !== null && !(Array.isArray(namespaces) && namespaces.every((n) => typeof n === 'string')))
      throw new Unsupported(`${at}.namespaces that is not a list of names`);
    return { enforce: isEnforce(action), namespaces: (namespaces ?? undefined) as string[] | undefined };
  });
}

/** Boolean CEL, constants folded ('true', 'false'). */
const lit = (b: boolean) => (b ? 'true' : 'false');
function and(a: string, b: string): string {
  if (a === 'false' || b === 'false') return 'false';
  if (a === 'true' || a === b) return b;
  if (b === 'true') return a;
  return `(${a}) && (${b})`;
}
function or(a: string, b: string): string {
  if (a === 'true' || b === 'true') return 'true';
  if (a === 'false' || a === b) return b;
  if (b === 'false') return a;
  return `(${a}) || (${b})`;
}
function ite(c: string, t: string, e: string): string {
  if (c === 'true') return t;
  if (c === 'false') return e;
  if (t === e) return t;
  if (t === 'true' && e === 'false') return c;
  if (t === 'false' && e === 'true') return `!(${c})`;
  if (t === 'true') return `(${c}) || (${e})`;
  if (t === 'false') return `!(${c}) && (${e})`;
  return `(${c}) ? (${t}) : (${e})`;
}

/** Whether the first override that `matches` has the action `enforce`; else `fallback`. */
const firstMatch = (overrides: Override[], matches: (o: Override) => string, enforce: boolean, fallback: string): string =>
  overrides.reduceRight((rest, o) => ite(matches(o), lit(o.enforce === enforce), rest), fallback);

/**
 * Where Kyverno's action on a failure is Enforce (`enforce`: a denial, both parts say Enforce) or
 * Audit (either says Audit), given how a wildcard list matches the request's Namespace (`glob`) and
 * whether the request has one.
 */
function where(policy: Rec, rule: Rec, glob: (patterns: string[]) => string, hasNamespace: boolean, enforce: boolean): string {
  const v = (rule.validate as Rec | undefined) ?? {};
  const spec = (policy.spec as Rec | undefined) ?? {};
  const own = overridesAt(v.failureActionOverrides, 'validate.failureActionOverrides');
  const policyWide = overridesAt(spec.validationFailureActionOverrides, 'spec.validationFailureActionOverrides');
  const ruleAction = v.failureAction ?? undefined;
  const is = (action: unknown) => lit(isEnforce(action) === enforce);
  // the cache: the rule's overrides, else the policy's; then the rule's action, else the policy's
  const cacheMatch = (o: Override) => (!o.namespaces?.length ? 'true' : hasNamespace ? glob(o.namespaces) : 'false');
  const cache = firstMatch(own.length ? own : policyWide, cacheMatch, enforce, is(ruleAction ?? spec.validationFailureAction));
  // the engine: the rule's overrides, its action, the policy's overrides, the policy's action
  const engineMatch = (o: Override) => (o.namespaces === undefined ? 'true' : o.namespaces.length === 0 ? 'false' : glob(o.namespaces));
  const policyLevel = firstMatch(policyWide, engineMatch, enforce, is(spec.validationFailureAction));
  const engine = firstMatch(own, engineMatch, enforce, ruleAction === undefined ? policyLevel : is(ruleAction));
  return enforce ? and(cache, engine) : or(cache, engine);
}

/** Go's wildcard.Match of a pattern on the empty name: only `*`s (or nothing) match it. */
const matchesEmpty = (patterns: string[]) => lit(patterns.some((p) => /^\**$/.test(p)));

/** The action allowExistingViolations reads: the rule's failureAction, else the policy's (overrides not read). */
export function baseEnforce(policy: Rec, rule: Rec): boolean {
  const v = (rule.validate as Rec | undefined) ?? {};
  return isEnforce(v.failureAction ?? (policy.spec as Rec | undefined)?.validationFailureAction);
}

export interface ActionConditions {
  /** Where a failure is denied: `true`, `false` or a CEL condition on `request.namespace`. */
  deny: string;
  /** Where it is audited (the complement). */
  audit: string;
}

/**
 * Where the rule's failure denies and where it is audited. A condition on the Namespace in a rule
 * that may match cluster-scoped kinds is not converted (Kyverno's cache reads no Namespace there).
 */
export function actionConditions(policy: Rec, rule: Rec): ActionConditions {
  const spec = (policy.spec as Rec | undefined) ?? {};
  if (policy.kind === 'Policy' && overridesAt(spec.validationFailureActionOverrides, 'spec.validationFailureActionOverrides').length)
    throw new Unsupported('spec.validationFailureActionOverrides in a namespaced Policy (Kyverno refuses it: ClusterPolicy only)');
  const glob = (ps: string[]) => ps.map((p) => wildcardCel(p, 'request.namespace')).reduce(or);
  const deny = where(policy, rule, glob, true, true);
  const kinds = kindsOf(rule.match);
  const clusterScoped = !kinds.length || kinds.some((k) => k.includes('*') || BUILTIN_RESOURCES.find((r) => r.kind === k)?.namespaced === false);
  if (clusterScoped && deny !== where(policy, rule, matchesEmpty, false, true))
    throw new Unsupported('failure action overrides by namespace in a rule matching cluster-scoped kinds (Kyverno reads no Namespace for them)');
  return { deny, audit: where(policy, rule, glob, true, false) };
}

/**
 * The produced policy and binding with the rule's actions: one pair when the action is the same
 * everywhere; else two, each applying where its action is Kyverno's (a match condition on the
 * request's Namespace): `<name>` with the rule's own action, `<name>-audit` or `<name>-deny` with the other.
 */
export function byAction(vap: Obj, binding: Obj, { deny, audit }: ActionConditions, base: boolean): Obj[] {
  const actions = (enforce: boolean) => (enforce ? ['Deny'] : ['Audit']);
  const bound = (b: Obj, name: string, enforce: boolean): Obj => ({
    ...b,
    metadata: { ...(b.metadata as Obj), name },
    spec: { ...(b.spec as Obj), policyName: name, validationActions: actions(enforce) },
  });
  const name = String((vap.metadata as Obj).name);
  if (deny === 'true' || deny === 'false') return [vap, bound(binding, name, deny === 'true')];
  const other = `${name.slice(0, 253 - 6).replace(/[^a-z0-9]+$/, '')}-${base ? 'audit' : 'deny'}`;
  const pair = (enforce: boolean): Obj[] => {
    const n = enforce === base ? name : other;
    const spec = vap.spec as Obj;
    const condition = { name: 'kyverno-failure-action', expression: enforce ? deny : audit };
    const policy: Obj = {
      ...vap,
      metadata: { ...(vap.metadata as Obj), name: n },
      spec: { ...spec, matchConditions: [...((spec.matchConditions as Obj[] | undefined) ?? []), condition] },
    };
    return [policy, bound(binding, n, enforce)];
  };
  return [...pair(base), ...pair(!base)];
}
