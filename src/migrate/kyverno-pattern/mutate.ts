/**
 * A Kyverno `mutate` rule (`patchStrategicMerge`, `patchesJson6902`) as a MutatingAdmissionPolicy
 * with a JSONPatch and its binding. The rule's match/exclude and preconditions become the policy's
 * matchConstraints and matchConditions; a Pod rule's autogen rules for Pod controllers (the patch
 * under `spec.template`) are kept. `exact` only for what the mutate differential holds against
 * Kyverno's engine (mutate.differential.test.ts).
 */
import type { Obj } from '../../base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../../base/releases';
import { mapApiVersion } from '../kyverno/policies';
import { CONTROLLER_RESOURCES, kindsOf, ruleControllers, shiftPattern } from './autogen';
import { autogenConditions, rulePreconditionsCel, type Scope } from './conditions';
import { loadedBy, missingParamDifference, type RuleContext, ruleContext } from './context';
import { matchOf } from './match';
import { dedupeMutations } from './mutate-dedupe';
import { foreachEntryCel } from './mutate-foreach';
import { removeEntryCel, removesElements } from './mutate-foreach-remove';
import { json6902Cel } from './mutate-json6902';
import { orderMutations } from './mutate-order';
import { strategicMergeCel } from './mutate-smp';
import { Unsupported } from './pattern';
import type { RuleStatus } from '../types';

type Rec = Record<string, unknown>;

/** A converted mutate rule (rule.ts's MutateRuleConversion for type `mutate`). */
export interface MutateRuleConversion {
  type: 'mutate';
  status: RuleStatus;
  reason?: string;
  objects: Obj[];
}

type Shape = 'Pod' | 'Deployment' | 'CronJob';

/**
 * The mutations of one shape of object (a Pod, a controller's template, a CronJob's) as JSONPatch
 * CEL: the patch, then (strategic merge) the reorders of the keyed lists it patched, inner then
 * outer, each only where the rule's conditions hold.
 */
function shapeMutations(mutate: Rec, kind: Shape, differences: string[], scope: Scope, context?: RuleContext): string[] {
  if (mutate.foreach !== undefined) {
    const entries = mutate.foreach as Rec[];
    // removals per element: one mutation, every entry's operations read from the object before the rule
    if (entries.every(removesElements)) return [removalsCel(entries, differences, scope)];
    if (context) throw new Unsupported('context beside a foreach other than removals per element');
    // Kyverno's generated rule: each patch under the template, the texts rewritten (autogenConditions)
    return entries.flatMap((entry, i) => {
      const shaped =
        kind === 'Pod'
          ? entry
          : { ...autogenConditions(entry, kind), patchStrategicMerge: shiftPattern(autogenConditions(entry.patchStrategicMerge, kind), kind) };
      return foreachEntryCel(shaped, `mutate.foreach[${i}]`, differences);
    });
  }
  if (mutate.patchStrategicMerge !== undefined) {
    const patch = (kind === 'Pod' ? mutate.patchStrategicMerge : shiftPattern(autogenConditions(mutate.patchStrategicMerge, kind), kind)) as Rec;
    const { ops, guards, variables } = strategicMergeCel(patch, 'object', scope);
    const when = (e: string) => (guards.length ? `(${guards.join(' && ')}) ? ${e} : []` : e);
    // Kyverno substitutes the whole rule before it patches: a lookup that fails errs the rule, its value used or not
    const checked = variables.length ? `(size([${variables.join(', ')}]) >= 0 ? (${when(ops)}) : [])` : when(ops);
    return [checked, ...orderMutations(patch).map(when)];
  }
  const { ops, differences: d } = json6902Cel(mutate.patchesJson6902);
  differences.push(...d);
  return [ops];
}

/** The first precondition's text loads every context entry: Kyverno reads them on the object before any patch. */
function loadsAll(context: RuleContext, rule: Rec): boolean {
  const p = (rule.preconditions ?? {}) as Rec;
  const first = (Array.isArray(p) ? p[0] : ((p.all as unknown[] | undefined)?.[0] ?? (p.any as unknown[] | undefined)?.[0])) as Rec | undefined;
  if (!first) return false;
  const loaded = loadedBy(context, `${JSON.stringify(first.key ?? null)} ${JSON.stringify(first.value ?? null)}`);
  return context.entries.every((e) => loaded.has(e.name));
}

/** `request.object.a.b` paths a text reads. */
const objectReads = (text: string) => [...text.matchAll(/request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*)*)/g)].map((m) => m[1]!.slice(1));
const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`) || a === '' || b === '';

/** Removals per element in one mutation: each entry's list neither read nor patched by the entries after it. */
function removalsCel(entries: Rec[], differences: string[], scope: Scope): string {
  const lists = entries.map((e) =>
    String(e.list ?? '')
      .trim()
      .replace(/^request\.object\./, '')
      .replace(/\[\]$/, ''),
  );
  entries.forEach((_, i) => {
    for (const later of entries.slice(i + 1))
      if (objectReads(JSON.stringify(later)).some((r) => related(r, lists[i]!)))
        throw new Unsupported(`mutate.foreach[${i}]: a later entry reads the list it removes from`);
  });
  return entries.map((e, i) => removeEntryCel(e, `mutate.foreach[${i}]`, differences, scope)).join(' + ');
}

/** One mutate rule; `name` names the produced policy and binding. */
export function convertMutateRule(policy: Obj, rule: Rec, name: string): MutateRuleConversion {
  const unsupported = (reason: string): MutateRuleConversion => ({ type: 'mutate', status: 'unsupported', reason, objects: [] });
  const mutate = rule.mutate as Rec;
  if (mutate.targets) return unsupported('mutate.targets (mutating existing resources happens in the background, not in admission)');
  if (
    mutate.foreach !== undefined &&
    (!Array.isArray(mutate.foreach) || mutate.foreach.length === 0 || mutate.foreach.some((f) => !f || typeof f !== 'object'))
  )
    return unsupported('a mutate.foreach that is not a list of entries');
  if (mutate.patchStrategicMerge === undefined && mutate.patchesJson6902 === undefined && mutate.foreach === undefined)
    return unsupported('a mutate rule without a patch this converter reads');
  try {
    const match = matchOf(rule);
    const differences: string[] = [];
    // Kyverno generates rules for Pod controllers from strategic merges only (CanAutoGen)
    const merges =
      mutate.foreach !== undefined ? (mutate.foreach as Rec[]).every((f) => f.patchesJson6902 === undefined) : mutate.patchStrategicMerge !== undefined;
    const controllers = merges ? ruleControllers(policy, rule) : [];
    const context = ruleContext(policy, rule, controllers);
    const scope: Scope = context?.scope ?? {};
    const missing = context && missingParamDifference(context, rule);
    if (missing) differences.push(missing);
    // Kyverno's `images` (images.ts) is read in a mutate rule's preconditions only
    const pre = rulePreconditionsCel(rule, controllers, differences, { ...scope, images: true });
    if (context && mutate.foreach !== undefined && !loadsAll(context, rule))
      throw new Unsupported('context a foreach would load (Kyverno loads an entry on the object as the entries before left it)');
    const pod = shapeMutations(mutate, 'Pod', differences, scope, context);
    const expressions = pod;
    if (controllers.length) {
      const others = controllers.filter((k) => k !== 'CronJob');
      const shapes: [string, string[]][] = [];
      if (others.length)
        shapes.push([`request.kind.kind in [${others.map((k) => `'${k}'`).join(', ')}]`, shapeMutations(mutate, 'Deployment', differences, scope)]);
      if (controllers.includes('CronJob')) shapes.push(["request.kind.kind == 'CronJob'", shapeMutations(mutate, 'CronJob', differences, scope)]);
      // the same number of mutations for every shape (a patch reorders the same lists wherever it sits)
      pod.forEach((e, i) => {
        expressions[i] = `${shapes.map(([test, m]) => `${test} ? (${m[i]})`).join(' : ')} : (${e})`;
      });
      const ops = (match.matchConstraints.resourceRules as Rec[])[0]?.operations ?? ['CREATE', 'UPDATE'];
      for (const k of controllers) {
        const r = CONTROLLER_RESOURCES[k];
        (match.matchConstraints.resourceRules as Rec[]).push({ apiGroups: [r.group], apiVersions: ['*'], operations: ops, resources: [r.resource] });
      }
    }
    const mutations = expressions.map((expression) => ({ patchType: 'JSONPatch', jsonPatch: { expression } }));
    if (merges) {
      // kyaml keeps one element per merge key in the resource's keyed lists (mutate-dedupe.ts)
      const dedupe = dedupeMutations([...new Set([...kindsOf(rule.match), ...controllers])]);
      if (dedupe) mutations.push(...[...dedupe.inner, ...dedupe.outer].map((expression) => ({ patchType: 'JSONPatch', jsonPatch: { expression } })));
      else
        differences.push(
          "a kind whose keyed lists are not modelled: Kyverno's strategic merge keeps one element per merge key in the resource's lists, the policy leaves duplicates",
        );
    }
    const apiVersion = mapApiVersion(DEFAULT_KUBERNETES_VERSION);
    const conditions = [...match.matchConditions, ...(pre ? [{ name: 'kyverno-preconditions', expression: pre }] : [])];
    if (policy.kind === 'Policy') {
      conditions.push({
        name: 'kyverno-policy-namespace',
        expression: `request.namespace == '${String((policy.metadata as Rec | undefined)?.namespace ?? 'default')}'`,
      });
      differences.push('a namespaced Policy, limited to its namespace by a match condition (the differential holds ClusterPolicies)');
    }
    const map: Obj = {
      apiVersion,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        ...(context?.param ? { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } : {}),
        matchConstraints: match.matchConstraints,
        ...(conditions.length ? { matchConditions: conditions } : {}),
        reinvocationPolicy: 'Never',
        ...(context?.variables.length ? { variables: context.variables } : {}),
        mutations,
      },
    };
    const binding: Obj = {
      apiVersion,
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name },
      spec: {
        policyName: name,
        // a missing ConfigMap is an error in Kyverno (loaders/configmap.go): the request is denied
        ...(context?.param ? { paramRef: { ...context.param, parameterNotFoundAction: 'Deny' } } : {}),
      },
    };
    if (differences.length) return { type: 'mutate', status: 'different', reason: [...new Set(differences)].join('; '), objects: [map, binding] };
    return { type: 'mutate', status: 'exact', objects: [map, binding] };
  } catch (e) {
    if (e instanceof Unsupported) return unsupported(e.message);
    throw e;
  }
}
