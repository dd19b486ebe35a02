/**
 * The mutating plugins decided on the lean path (./lean.ts) where a MutatingAdmissionPolicy's
 * mutations and webhooks' assumed patches change the object: the policy's mutations evaluated and
 * applied as the run applies them (`applyMutation`), each webhook called as the plugin calls it
 * (`mutatingCall`: the patch applied to the object as the apiserver serializes it, decoded again),
 * without the full run's steps and second round. Design: ./README.md (Lean verdicts).
 */
import { deepEqual, str } from '../base/json';
import { applyMutation, matchWebhook } from '../policy';
import { answerOn, type EvaluateBatch } from './lean-answers';
import { matchInput, type SimContext } from './context';
import type { LeanChain } from './lean-chain';
import { conditionsOf, countLean, type Answers, type MutatedPrefix, type Plan } from './lean-verdict';
import { mutatingCall, webhookMutationKey } from './webhooks';

/**
 * What the mutating plugins do to the request in `run` (a fresh context of the chain; its object
 * is left as they leave it), where the plan's answers (`rs`, on the request as it came) settle
 * them; undefined where the full run must. Settled here when:
 * - the MutatingAdmissionPolicy bindings before the first that applies are skipped by conditions
 *   the batch found false, and none follows it (a later one's conditions would read the object
 *   it mutated); its policy has no params or variables and reinvocationPolicy Never, and each
 *   mutation evaluates and applies (`applyMutation`, as the run applies it: on the object as the
 *   mutation before left it, the result decoded as the plugin decodes it);
 * - no mutating webhook of the chain has matchConditions: a webhook after a patch evaluates them
 *   on the patched object, and the second round evaluates every matching webhook's again;
 * - no webhook called has reinvocationPolicy IfNeeded: the second round then calls none;
 * - each call admits (allows, warns, or patches with a patch that applies).
 * A webhook after a change is matched against the object as it is then (its objectSelector reads
 * the patched labels), as the plugin matches it.
 */
export async function patchedLean(lc: LeanChain, plan: Plan, rs: Answers, run: SimContext, batch: EvaluateBatch): Promise<MutatedPrefix | undefined> {
  if (lc.mutating.some((h) => h.conditions.length > 0)) return undefined;
  const policy = await mutatedByPolicy(plan, rs, run, batch);
  if (!policy) return undefined;
  const planned = new Set(plan.mutating.map((m) => m.hook));
  const warnings: string[] = [];
  const audited: string[] = [];
  const calls: string[] = [];
  let mutated = policy.mutated;
  for (const hook of lc.mutating) {
    if (mutated) {
      const m = matchWebhook(hook.wh.webhook, matchInput(run), { static: hook.wh.static === true });
      if (m.error) return undefined;
      if (!m.matches) continue;
    } else if (!planned.has(hook)) continue;
    if (hook.wh.webhook.reinvocationPolicy === 'IfNeeded') return undefined;
    const call = mutatingCall(run, hook.wh);
    if (!call) return undefined;
    calls.push(hook.wh.name);
    audited.push(webhookMutationKey(0, hook.index));
    warnings.push(...call.warnings);
    if (call.object !== undefined) {
      run.object = call.object;
      mutated = true;
    }
  }
  if (policy.applied) countLean("the mutating plugins: a MutatingAdmissionPolicy's mutations among them");
  return { warnings, audited, calls, mutated };
}

/**
 * The MutatingAdmissionPolicy plugin on `run` (runMutatingPolicies' order: the plan's bindings):
 * whether a binding applied and whether it changed the object; undefined where the full run must.
 */
async function mutatedByPolicy(plan: Plan, rs: Answers, run: SimContext, batch: EvaluateBatch): Promise<{ applied: boolean; mutated: boolean } | undefined> {
  const at = plan.mutatingPolicies.findIndex((m) => !m.conditions || conditionsOf(rs, m.conditions) !== 'skip');
  if (at < 0) return { applied: false, mutated: false };
  const { mp, conditions } = plan.mutatingPolicies[at]!;
  if (!conditions || !mp.mutations || conditionsOf(rs, conditions) !== 'match' || at < plan.mutatingPolicies.length - 1) return undefined;
  if (str(mp.spec.reinvocationPolicy) === 'IfNeeded') return undefined;
  const before = run.object;
  // a DELETE has no object to patch: the mutations do not run
  if (before === null || before === undefined) return { applied: true, mutated: false };
  let object: unknown = before;
  for (const m of mp.mutations) {
    const r = await answerOn(m.item, run, object, batch);
    if (!r?.ok) return undefined;
    const applied = applyMutation(m.patchType, object, r);
    if ('error' in applied) return undefined;
    object = applied.object;
  }
  if (deepEqual(before, object)) return { applied: true, mutated: false };
  // the object converted back to its typed form and defaulted, as the plugin does after each policy
  run.object = run.admitted(object);
  return { applied: true, mutated: true };
}
