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
import type { LeanChain, LeanHook } from './lean-chain';
import { conditionsOf, countLean, type Answers, type MutatedPrefix, type Plan } from './lean-verdict';
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
 * - the MutatingAdmissionPolicy bindings before the first that applies are skipped by conditions
 *   the batch found false, and none follows it (a later one's conditions would read the object
 *   it mutated); its policy has no params or variables and reinvocationPolicy Never, and each
 *   mutation evaluates and applies (`applyMutation`, as the run applies it: on the object as the
 *   mutation before left it, the result decoded as the plugin decodes it);
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
  const policy = await mutatedByPolicy(plan, rs, run, batch);
  if (!policy) return undefined;
  const planned = new Map(plan.mutating.map((m) => [m.hook, m.conditions]));
  const first = { rs, planned, object: run.object };
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
  const at = first.planned.get(hook);
  if (at && (await readAlike(hook.conditions, first.object, run.object))) return conditionsOf(first.rs, at) ?? refuse(CONDITION_ERRS);
  const rs = await answersOn(hook.conditions, run, run.object, batch);
  if (rs.length !== hook.conditions.length) return refuse(CONDITION_ERRS);
  return (
    conditionsOf(
      rs,
      hook.conditions.map((_, i) => i),
    ) ?? refuse(CONDITION_ERRS)
  );
}

/**
 * The MutatingAdmissionPolicy plugin on `run` (runMutatingPolicies' order: the plan's bindings):
 * whether a binding applied and whether it changed the object; undefined where the full run must.
 */
async function mutatedByPolicy(plan: Plan, rs: Answers, run: SimContext, batch: EvaluateBatch): Promise<{ applied: boolean; mutated: boolean } | undefined> {
  const at = plan.mutatingPolicies.findIndex((m) => !m.conditions || conditionsOf(rs, m.conditions) !== 'skip');
  if (at < 0) return { applied: false, mutated: false };
  const { mp, conditions } = plan.mutatingPolicies[at]!;
  if (!conditions || !mp.mutations) return refuse('a MutatingAdmissionPolicy with params or variables, or matched through an equivalent resource');
  if (conditionsOf(rs, conditions) !== 'match') return refuse('a MutatingAdmissionPolicy matchCondition errs');
  if (at < plan.mutatingPolicies.length - 1) return refuse('a MutatingAdmissionPolicy binding after the one that applies');
  if (str(mp.spec.reinvocationPolicy) === 'IfNeeded') return refuse('a MutatingAdmissionPolicy that applies is reinvoked (IfNeeded)');
  const before = run.object;
  // a DELETE has no object to patch: the mutations do not run
  if (before === null || before === undefined) return { applied: true, mutated: false };
  let object: unknown = before;
  for (const m of mp.mutations) {
    const [r] = await answersOn([m.item], run, object, batch);
    if (!r?.ok) return refuse('a mutation errs');
    const applied = applyMutation(m.patchType, object, r);
    if ('error' in applied) return refuse('a mutation does not apply');
    object = applied.object;
  }
  if (deepEqual(before, object)) return { applied: true, mutated: false };
  // the object converted back to its typed form and defaulted, as the plugin does after each policy
  run.object = run.admitted(object);
  return { applied: true, mutated: true };
}
