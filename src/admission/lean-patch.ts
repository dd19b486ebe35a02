/**
 * The mutating plugins decided on the lean path where only webhooks' assumed patches change the
 * object (./lean.ts): each webhook called as the plugin calls it (`mutatingCall`: the patch
 * applied to the object as the apiserver serializes it, decoded again), without the full run's
 * steps and second round. Design: ./README.md (Lean verdicts).
 */
import { matchWebhook } from '../policy';
import { matchInput, type SimContext } from './context';
import type { LeanChain } from './lean-chain';
import { conditionsOf, type Answers, type MutatedPrefix, type Plan } from './lean-verdict';
import { mutatingCall, webhookMutationKey } from './webhooks';

/**
 * What the mutating plugins do to the request in `run` (a fresh context of the chain; its object
 * is left as they leave it), where the plan's answers (`rs`, on the request as it came) settle
 * them; undefined where the full run must. Settled here when:
 * - no MutatingAdmissionPolicy binding applies (each matches with conditions the batch found false):
 *   then none is invoked, so none is reinvoked;
 * - no mutating webhook of the chain has matchConditions: a webhook after a patch evaluates them
 *   on the patched object, and the second round evaluates every matching webhook's again;
 * - no webhook called has reinvocationPolicy IfNeeded: the second round then calls none;
 * - each call admits (allows, warns, or patches with a patch that applies).
 * A webhook after one that changed the object is matched against the object as it is then (its
 * objectSelector reads the patched labels), as the plugin matches it.
 */
export function patchedLean(lc: LeanChain, plan: Plan, rs: Answers, run: SimContext): MutatedPrefix | undefined {
  if (lc.mutating.some((h) => h.conditions.length > 0)) return undefined;
  for (const mp of plan.mutatingPolicies) if (!mp.conditions || conditionsOf(rs, mp.conditions) !== 'skip') return undefined;
  const planned = new Set(plan.mutating.map((m) => m.hook));
  const warnings: string[] = [];
  const audited: string[] = [];
  const calls: string[] = [];
  let mutated = false;
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
  return { warnings, audited, calls, mutated };
}
