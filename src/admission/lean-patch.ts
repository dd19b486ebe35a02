/**
 * The mutating plugins decided on the lean path (./lean.ts) where a MutatingAdmissionPolicy's
 * mutations and webhooks' assumed patches change the object: the policy's mutations evaluated and
 * applied as the run applies them (`applyMutation`), each webhook called as the plugin calls it
 * (`mutatingCall`: the patch applied to the object as the apiserver serializes it, decoded again),
 * without the full run's steps and second round. Design: ./README.md (Lean verdicts).
 */
import { deepEqual, str } from '../base/json';
import { applyMutation, matchWebhook } from '../policy';
import { answersOn, readAlike, type EvaluateBatch } from './lean-answers';
import { matchInput, type SimContext } from './context';
import type { CelBatchItem } from '../cel/types';
import type { LeanChain, LeanHook } from './lean-chain';
import { conditionsOf, countLean, mapBindings, type Answers, type MutatedPrefix, type Plan } from './lean-verdict';
import { mutatingCall, webhookMutationKey } from './webhooks';

/** Why the last patchedLean answered undefined (lean.ts counts it). */
export let refusedReason = '';
const refuse = (reason: string): undefined => {
  refusedReason = reason;
  return undefined;
};

/**
 * What the mutating plugins do to the request in `run` (a fresh context of the chain; its object
 * is left as they leave it), where the plan's answers (`rs`, on the request as it came) settle
 * them; undefined where the full run must. Settled here when:
 * - every MutatingAdmissionPolicy that applies has no params or variables and reinvocationPolicy
 *   Never, and its conditions and mutations evaluate, and the mutations apply (`applyMutation`,
 *   as the run applies them: on the object as the mutation before left it; mutatedByPolicies);
 * - every mutating webhook's matchConditions evaluate (the batch's answers before any change; one
 *   engine call on the object as it is then after one), in the second round too, which matches
 *   every webhook and evaluates its conditions again where anything changed (shouldCallHook comes
 *   before the reinvocation check): an error there is the full run's to word;
 * - no webhook called has reinvocationPolicy IfNeeded: the second round then calls none;
 * - each call admits (allows, warns, or patches with a patch that applies).
 * A webhook after a change is matched against the object as it is then (its objectSelector reads
 * the patched labels), as the plugin matches it.
 */
export async function patchedLean(lc: LeanChain, plan: Plan, rs: Answers, run: SimContext, batch: EvaluateBatch): Promise<MutatedPrefix | undefined> {
  // the object the first batch answered on
  const original = run.object;
  const policy = await mutatedByPolicies(lc, plan, rs, run, batch);
  if (!policy) return undefined;
  const planned = new Map(plan.mutating.map((m) => [m.hook, m.conditions]));
  const first = { rs, planned, object: original };
  const warnings: string[] = [];
  const audited: string[] = [];
  const calls: string[] = [];
  let mutated = policy.mutated;
  for (const hook of lc.mutating) {
    const at = planned.get(hook);
    const now = mutated ? await hookNow(hook, run, batch, first) : at ? (conditionsOf(rs, at) ?? refuse(CONDITION_ERRS)) : 'none';
    if (now === undefined) return undefined;
    if (now !== 'match') continue;
    if (hook.wh.webhook.reinvocationPolicy === 'IfNeeded') return refuse('a webhook called is reinvoked (IfNeeded)');
    const call = mutatingCall(run, hook.wh);
    if (!call) return refuse('a webhook call does not admit');
    calls.push(hook.wh.name);
    audited.push(webhookMutationKey(0, hook.index));
    warnings.push(...call.warnings);
    if (call.object !== undefined) {
      run.object = call.object;
      mutated = true;
    }
  }
  // the second round, where anything changed: every webhook matched and its conditions evaluated again (none is called)
  if (mutated) for (const hook of lc.mutating) if (hook.conditions.length && (await hookNow(hook, run, batch, first)) === undefined) return undefined;
  if (policy.applied) countLean("the mutating plugins: a MutatingAdmissionPolicy's mutations among them");
  return { warnings, audited, calls, mutated };
}

const CONDITION_ERRS = 'a mutating webhook matchCondition errs or exceeds its budget';

/**
 * A mutating webhook against the object as it is now (shouldCallHook): 'none' where its rules or
 * selectors do not match, else its matchConditions' outcome there: the first batch's answers where
 * it was planned and they read nothing that changed, else one engine call; undefined where the
 * full run must.
 */
async function hookNow(
  hook: LeanHook,
  run: SimContext,
  batch: EvaluateBatch,
  first: { rs: Answers; planned: ReadonlyMap<LeanHook, number[]>; object: unknown },
): Promise<'none' | 'match' | 'skip' | undefined> {
  const m = matchWebhook(hook.wh.webhook, matchInput(run), { static: hook.wh.static === true });
  if (m.error) return refuse('a webhook selector error');
  if (!m.matches) return 'none';
  if (hook.conditions.length === 0) return 'match';
  if (m.matchedResource) return refuse('a webhook with matchConditions matched through an equivalent resource');
  return (await conditionsNow(hook.conditions, first.planned.get(hook), first, run, run.object, batch)) ?? refuse(CONDITION_ERRS);
}

/**
 * matchConditions' outcome on `object` (matcher.go: undefined for an error or the budget): the
 * first batch's answers at `at` where the conditions read nothing that changed from the object it
 * answered on, else one engine call.
 */
async function conditionsNow(
  items: readonly CelBatchItem[],
  at: readonly number[] | undefined,
  first: { rs: Answers; object: unknown },
  run: SimContext,
  object: unknown,
  batch: EvaluateBatch,
): Promise<'match' | 'skip' | undefined> {
  if (at && (object === first.object || (await readAlike(items, first.object, object)))) return conditionsOf(first.rs, at);
  const rs = await answersOn(items, run, object, batch);
  return rs.length === items.length ? conditionsOf(rs, Object.keys(rs).map(Number)) : undefined;
}

/**
 * The MutatingAdmissionPolicy plugin on `run`, as runMutatingPolicies runs it: each policy matched
 * on the object as the policies before it left it (the plan's matching while nothing changed),
 * each binding's conditions, then mutations, on the object as the bindings before it left it
 * (the first batch's answers where they read nothing that changed, else one engine call), the
 * object decoded after each policy. Whether a binding applied and whether the object changed;
 * undefined where the full run must.
 */
async function mutatedByPolicies(
  lc: LeanChain,
  plan: Plan,
  rs: Answers,
  run: SimContext,
  batch: EvaluateBatch,
): Promise<{ applied: boolean; mutated: boolean } | undefined> {
  // nothing applies (the common case): decided by the plan, whose conditions were all false
  if (plan.mutatingPolicies.every((e) => e.conditions && conditionsOf(rs, e.conditions) === 'skip')) return { applied: false, mutated: false };
  const original = run.object;
  const planned = new Map(plan.mutatingPolicies.map((e) => [e.bd, e.conditions]));
  let applied = false;
  let mutated = false;
  for (const mp of lc.mutatingPolicies) {
    // (the plan leaves out the conditions of a policy with params or variables, or matched through an equivalent resource)
    const entries = plan.mutatingPolicies.filter((e) => e.mp === mp);
    const m = mutated ? mapBindings(mp, matchInput(run)) : { bindings: entries.map((e) => e.bd), equivalent: entries.some((e) => !e.conditions) };
    if ('error' in m) return refuse(m.error);
    if (m.bindings.length === 0) continue;
    if (m.equivalent || !mp.conditions || !mp.mutations)
      return refuse('a MutatingAdmissionPolicy with params or variables, or matched through an equivalent resource');
    const start = run.object;
    let object: unknown = start;
    for (const bd of m.bindings) {
      const c = await conditionsNow(mp.conditions, planned.get(bd), { rs, object: original }, run, object, batch);
      if (c === undefined) return refuse('a MutatingAdmissionPolicy matchCondition errs or exceeds its budget');
      if (c === 'skip') continue;
      if (str(mp.spec.reinvocationPolicy) === 'IfNeeded') return refuse('a MutatingAdmissionPolicy that applies is reinvoked (IfNeeded)');
      applied = true;
      // a DELETE has no object to patch: the mutations do not run
      if (object === null || object === undefined) continue;
      for (const mu of mp.mutations) {
        const [r] = await answersOn([mu.item], run, object, batch);
        if (!r?.ok) return refuse('a mutation errs');
        const done = applyMutation(mu.patchType, object, r);
        if ('error' in done) return refuse('a mutation does not apply');
        object = done.object;
      }
    }
    if (object !== start && !deepEqual(start, object)) {
      // the object converted back to its typed form and defaulted, as the plugin does after each policy
      run.object = run.admitted(object);
      mutated = true;
    }
  }
  return { applied, mutated };
}
