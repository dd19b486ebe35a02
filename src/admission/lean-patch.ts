/**
 * The mutating plugins decided on the lean path (./lean.ts) where a MutatingAdmissionPolicy's
 * mutations and webhooks' assumed patches change the object: the policy's mutations evaluated and
 * applied as the run applies them (`applyMutation`), each webhook called as the plugin calls it
 * (`mutatingCall`: the patch applied to the object as the apiserver serializes it, decoded again),
 * without the full run's steps and second round. Design: ./README.md (Lean verdicts).
 */
import { deepEqual, list, str } from '../base/json';
import { applyMutation, failurePolicyOf, matchWebhook, resolveParams } from '../policy';
import { answersOn, readAlike, type EvaluateBatch } from './lean-answers';
import { decodeProblems, invocationKey, matchInput, actorOf, newReinvokeState, requireReinvoking, type ReinvokeState, type SimContext } from './context';
import type { CelBatchItem } from '../cel/types';
import type { LeanChain, LeanHook } from './lean-chain';
import { matcherOn, webhookConditions, type WebhookRejection } from './lean-webhooks';
import { conditionsOf, countLean, mapBindings, type Answers, type LeanDenial, type MutatedPrefix, type Plan } from './lean-verdict';
import { mutatingCall, mutatingFailedOpenKey, webhookMutationKey } from './webhooks';

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
 * - every MutatingAdmissionPolicy binding that applies resolves its params (or drops its error
 *   under failurePolicy Ignore); its conditions and mutations are evaluated for each param and
 *   the mutations applied (`applyMutation`, as the run applies them: on the object as the
 *   mutation before left it; mutatedByPolicies), in the second round too; their errors are
 *   collected as the plugin collects them, and under Fail a binding's first rejects the request
 *   once the plugin has run every policy;
 * - every mutating webhook's matchConditions are decided as the plugin's matcher decides them
 *   (webhookConditions: the batch's answers before any change; one engine call on the object as
 *   it is then after one), in the second round too, which matches every webhook and evaluates its
 *   conditions again where anything changed (shouldCallHook comes before the reinvocation check);
 *   not where an answer is the first batch's shared budget running out.
 * Each call is settled as the plugin settles it: a call failing under failurePolicy Ignore
 * fails open; one that rejects the request (a denial, or a failure under Fail), like
 * matchConditions that err under Fail, ends the plugin there (`denied`: the client's verdict),
 * but for the probe (`run.probe`), which goes on past each (`denials`).
 * The second round runs again each policy binding and webhook with reinvocationPolicy IfNeeded
 * that a change followed, with each plugin's bookkeeping (ReinvokeState) kept as
 * runMutatingPolicies and runMutatingWebhooks keep it. A webhook or policy after a change is
 * matched against the object as it is then (an objectSelector reads the patched labels), as the
 * plugins match it.
 */
export async function patchedLean(lc: LeanChain, plan: Plan, rs: Answers, run: SimContext, batch: EvaluateBatch): Promise<MutatedPrefix | undefined> {
  // the object the first batch answered on
  const original = run.object;
  const policies = newReinvokeState();
  const policy = await mutatedByPolicies(lc, plan, rs, run, batch, original, policies, 0);
  if (!policy) return undefined;
  const denials: LeanDenial[] = [...(policy.denials ?? [])];
  const planned = new Map(plan.mutating.map((m) => [m.hook, m.conditions]));
  const first = { rs, planned, object: original };
  const warnings: string[] = [];
  const warnedBy: string[] = [];
  const audited: string[] = [];
  const calls: string[] = [];
  const mutatedBy = [...policy.mutatedBy];
  const reinvoke = newReinvokeState();
  /**
   * A webhook called (round 0 or 1) as the plugin calls it, its call settled (runMutatingWebhooks'
   * order: the audit annotation, the patch, the bookkeeping, then settle); true where it rejects
   * the request and the plugin stops there (the probe goes on past it).
   */
  const call = (hook: LeanHook, round: 0 | 1): boolean => {
    const c = mutatingCall(run, hook.wh);
    if (!c.refused) calls.push(hook.wh.name);
    audited.push(webhookMutationKey(round, hook.index));
    if (c.object !== undefined) {
      run.object = c.object;
      mutatedBy.push(actorOf(hook.wh.configKind, hook.wh.configName, hook.wh.name));
      requireReinvoking(reinvoke);
    }
    if (hook.wh.webhook.reinvocationPolicy === 'IfNeeded') reinvoke.previouslyInvoked.add(hook.wh.uid);
    if (c.warnings.length) {
      warnings.push(...c.warnings);
      warnedBy.push(actorOf(hook.wh.configKind, hook.wh.configName, hook.wh.name));
    }
    if (c.failedOpen) audited.push(mutatingFailedOpenKey(round, hook.index));
    if (!c.denial) return false;
    denials.push({ kind: c.denial.kind, name: c.denial.name, webhook: hook.wh.name, message: c.denial.message ?? '' });
    return !run.probe;
  };
  const rejected = (): MutatedPrefix => ({ warnings, warnedBy, audited, calls, mutatedBy, denied: { deniedBy: denials[0]! } });
  // the policy plugin rejected the request: the webhooks are not called (the probe goes on)
  if (denials.length && !run.probe) return rejected();
  /** A webhook's matchConditions that reject the request (an error under Fail): no call; true where the plugin stops there (the probe goes on past it). */
  const rejects = (now: WebhookRejection): boolean => {
    denials.push(now);
    return !run.probe;
  };
  for (const hook of lc.mutating) {
    const at = planned.get(hook);
    const now = mutatedBy.length ? await hookNow(hook, run, batch, first) : at ? (webhookConditions(hook, run, rs, at) ?? refuse(CONDITION_BUDGET)) : 'none';
    if (now === undefined) return undefined;
    if (typeof now === 'object' ? rejects(now) : now === 'match' && call(hook, 0)) return rejected();
  }
  // the second round, where anything changed: the policies a change followed (reinvocationPolicy
  // IfNeeded) run again, then every webhook is matched and its conditions evaluated again, and
  // those a change followed are called again
  let reinvoked = false;
  if (mutatedBy.length) {
    const lastOutput = run.object;
    // (none invoked with IfNeeded: the policies' second round runs nothing)
    const again =
      policies.previouslyInvoked.size || policies.reinvoke.size ? await mutatedByPolicies(lc, plan, rs, run, batch, original, policies, 1) : NOTHING;
    if (!again) return undefined;
    if (again.applied) reinvoked = true;
    mutatedBy.push(...again.mutatedBy);
    if (again.denials) {
      denials.push(...again.denials);
      if (!run.probe) return rejected();
    }
    if (reinvoke.previouslyInvoked.size && run.object !== lastOutput && !deepEqual(lastOutput, run.object)) requireReinvoking(reinvoke);
    for (const hook of lc.mutating) {
      const callAgain = reinvoke.reinvoke.has(hook.wh.uid);
      if (!callAgain && !hook.conditions.length) continue;
      const now = await hookNow(hook, run, batch, first);
      if (now === undefined) return undefined;
      if (typeof now === 'object') {
        if (rejects(now)) return rejected();
        continue;
      }
      if (!callAgain || now !== 'match') continue;
      reinvoked = true;
      if (call(hook, 1)) return rejected();
    }
  }
  if (policy.applied) countLean("the mutating plugins: a MutatingAdmissionPolicy's mutations among them");
  if (reinvoked) countLean('the mutating plugins: a webhook or policy reinvoked (IfNeeded) among them');
  return { warnings, warnedBy, audited, calls, mutatedBy, ...(denials.length ? { denials } : {}) };
}

/** What the MutatingAdmissionPolicies did in a round: whether one applied, which bindings changed the object, what rejected. */
interface PoliciesDid {
  applied: boolean;
  mutatedBy: readonly string[];
  denials?: LeanDenial[];
}

/** A binding of a policy without paramKind: one invocation, params null (resolveParams). */
const NO_PARAMS: { params: readonly unknown[]; error?: string } = { params: [null] };
const NOTHING: PoliciesDid = { applied: false, mutatedBy: [] };

const CONDITION_BUDGET = "a mutating webhook matchCondition past the batch's shared budget";

/** A mutating webhook's matchConditions as its plugin decides them (webhookConditions): a rejection is the request's. */
type WebhookConditions = 'match' | 'skip' | WebhookRejection;

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
): Promise<'none' | WebhookConditions | undefined> {
  const m = matchWebhook(hook.wh.webhook, matchInput(run), { static: hook.wh.static === true });
  if (m.error) return refuse('a webhook selector error');
  if (!m.matches) return 'none';
  if (hook.conditions.length === 0) return 'match';
  if (m.matchedResource) return refuse('a webhook with matchConditions matched through an equivalent resource');
  const decide = (rs: Answers, at: readonly number[]) => webhookConditions(hook, run, rs, at);
  return (await conditionsNow(hook.conditions, first.planned.get(hook), first, run, run.object, batch, decide)) ?? refuse(CONDITION_BUDGET);
}

/**
 * matchConditions' outcome on `object` (matcher.go: undefined for an error or the budget): the
 * first batch's answers at `at` where the conditions read nothing that changed from the object it
 * answered on, else one engine call.
 */
async function conditionsNow<T>(
  items: readonly CelBatchItem[],
  at: readonly number[] | undefined,
  first: { rs: Answers; object: unknown },
  run: SimContext,
  object: unknown,
  batch: EvaluateBatch,
  decide: (rs: Answers, at: readonly number[]) => T | undefined,
  param: unknown = null,
): Promise<T | undefined> {
  if (at && (object === first.object || (await readAlike(items, first.object, object)))) return decide(first.rs, at);
  const rs = await answersOn(items, run, object, batch, param);
  return rs.length === items.length ? decide(rs, Object.keys(rs).map(Number)) : undefined;
}

/**
 * The MutatingAdmissionPolicy plugin on `run`, as runMutatingPolicies runs it in `round`: each
 * policy matched on the object as the policies before it left it (the plan's matching while
 * nothing changed), each binding's conditions, then mutations, on the object as the bindings
 * before it left it (the first batch's answers where they read nothing that changed from
 * `original`, else one engine call), the object decoded after each policy. The plugin's
 * reinvocation bookkeeping is kept in `st` as the run keeps it: round 1 runs only the bindings
 * with reinvocationPolicy IfNeeded that a change followed. Whether a binding applied and whether
 * the object changed; undefined where the full run must.
 */
async function mutatedByPolicies(
  lc: LeanChain,
  plan: Plan,
  rs: Answers,
  run: SimContext,
  batch: EvaluateBatch,
  original: unknown,
  st: ReinvokeState,
  round: 0 | 1,
): Promise<PoliciesDid | undefined> {
  // nothing applies (the common case): decided by the plan, whose conditions were all false
  if (round === 0 && plan.mutatingPolicies.every((e) => e.conditions && conditionsOf(rs, e.conditions) === 'skip')) return NOTHING;
  // (compared only where there is something to reinvoke: requireReinvoking moves previouslyInvoked)
  if (round === 1 && st.previouslyInvoked.size && !(st.lastOutput && deepEqual(st.lastOutput.object, run.object))) requireReinvoking(st);
  const planned = new Map(plan.mutatingPolicies.map((e) => [e.bd, e.conditions]));
  let applied = false;
  const mutatedBy: string[] = [];
  const denials: LeanDenial[] = [];
  for (const mp of lc.mutatingPolicies) {
    const again = round === 1 ? mp.bindings.filter((bd) => st.reinvoke.has(invocationKey(mp.p, bd))) : undefined;
    if (again?.length === 0) continue;
    const entries = plan.mutatingPolicies.filter((e) => e.mp === mp);
    const m =
      run.object !== original ? mapBindings(mp, matchInput(run)) : { bindings: entries.map((e) => e.bd), equivalent: entries.some((e) => e.equivalent) };
    if ('error' in m) return refuse(m.error);
    const bindings = again ? m.bindings.filter((bd) => again.includes(bd)) : m.bindings;
    if (bindings.length === 0) continue;
    if (m.equivalent) return refuse('a MutatingAdmissionPolicy matched through an equivalent resource');
    const start = run.object;
    let object: unknown = start;
    const failurePolicy = failurePolicyOf(mp.spec);
    const decide = (answers: Answers, at: readonly number[]) => matcherOn(list(mp.spec.matchConditions), failurePolicy, answers, at);
    for (const bd of bindings) {
      // one invocation per param, as the dispatcher resolves them (admitBinding); an error is the
      // binding's configuration error: nothing under Ignore, the full run's denial to word otherwise
      const resolved = mp.params ? resolveParams(mp.spec, bd.spec, str(run.request.namespace), { paramDocuments: lc.chain.ws.documents }) : NO_PARAMS;
      if (resolved.error && failurePolicy !== 'Ignore') return refuse('a MutatingAdmissionPolicy binding whose params do not resolve');
      let invoked = false;
      let changed = false;
      // the binding's errors, as the plugin collects them (mutate.ts invoke): its conditions' under
      // Fail (no mutation then), each mutation's (the others still apply)
      const errors: string[] = [];
      for (const param of resolved.error ? [] : resolved.params) {
        const c = await conditionsNow(mp.conditions, mp.params ? undefined : planned.get(bd), { rs, object: original }, run, object, batch, decide, param);
        if (c === undefined) return refuse("a MutatingAdmissionPolicy matchCondition past the batch's shared budget");
        if (c.action === 'reject') errors.push(c.error);
        if (c.action !== 'match') continue;
        applied = invoked = true;
        const before = object;
        // a DELETE has no object to patch: the mutations do not run
        if (object !== null && object !== undefined)
          for (const mu of mp.mutations) {
            const [r] = await answersOn([mu.item], run, object, batch, param);
            if (!r) return refuse('a mutation the engine did not answer');
            const done = r.ok ? applyMutation(mu.patchType, object, r, decodeProblems(run)) : { error: r.message };
            if ('internal' in done) return refuse('a mutation whose result does not decode into its Go type (an internal error)');
            if ('error' in done) errors.push(done.error);
            else object = done.object;
          }
        if (object !== before && !deepEqual(before, object)) changed = true;
      }
      if (changed) {
        requireReinvoking(st);
        // it mutated, as the full run records its patch, though a later binding may change the object back
        mutatedBy.push(actorOf('MutatingAdmissionPolicy', mp.p.name, bd.name));
      }
      if (invoked && str(mp.spec.reinvocationPolicy) === 'IfNeeded') st.previouslyInvoked.add(invocationKey(mp.p, bd));
      // under Fail the binding's first error rejects the request (after the plugin has run every policy)
      if (errors.length && failurePolicy !== 'Ignore')
        denials.push({
          kind: 'MutatingAdmissionPolicy',
          name: mp.p.name,
          binding: bd.name,
          message: `policy '${mp.p.name}' with binding '${bd.name}' denied request: ${errors[0]}`,
        });
    }
    if (object !== start && !deepEqual(start, object)) {
      // the object converted back to its typed form and defaulted, as the plugin does after each policy
      run.object = run.admitted(object);
    }
  }
  if (round === 0) st.lastOutput = { object: run.object };
  return { applied, mutatedBy, ...(denials.length ? { denials } : {}) };
}
