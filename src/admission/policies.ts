/**
 * The MutatingAdmissionPolicy and ValidatingAdmissionPolicy plugins over the whole workspace,
 * on the policy runs of src/policy (which follow pkg/admission/plugin/policy/{generic,
 * mutating,validating}): every policy in turn, one step per binding (or one for the policy
 * when it does not apply), errors by failurePolicy, the first denial reported after all
 * policies ran (policy_dispatcher.go collects them). MutatingAdmissionPolicies keep the
 * reinvocation bookkeeping of mutating/reinvocationcontext.go per policy + binding.
 */
import { deepEqual, isObject, list, nameOf, namespaceOf, obj, str } from '../base/json';
import {
  matchResources,
  policyDenialMessage,
  resolveParams,
  runMutatingPolicyOnce,
  runValidatingPolicy,
  type EquivalentResource,
  type MatchResult,
  type RunRequestInput,
  type ValidationFailure,
  VALIDATION_FAILURE_KEY,
  validatingExpressions,
  validationFailuresValue,
  type PolicyExpressionOn,
} from '../policy';
import { declaresParams } from '../k8s/cel-scope';
import { celInputs } from '../request/cel-inputs';
import type { CelInputs } from '../cel/types';
import { tracedExpressions } from '../policy/coverage';
import {
  excludedBy,
  forbiddenMessage,
  inputFor,
  invocationKey,
  matchInput,
  actorOf,
  decodeProblems,
  noteConversion,
  requireReinvoking,
  type SimContext,
} from './context';
import { patchBetween } from './serialize';
import { bindingSkipStep, mcErrorPath, noBindingStep, policyLevelStep, policyStep } from './policy-steps';
import { validatingWebhookExpressions } from './webhooks';
import type { SimOutcome, SimPhase } from './types';
import type { WorkspaceBinding, WorkspacePolicy } from './workspace';

/** The policy's own match (for the equivalent resource to convert to), before the runner repeats it. */
function policyMatch(ctx: SimContext, p: WorkspacePolicy): { match?: MatchResult; matched?: EquivalentResource } {
  if (!isObject(p.spec.matchConstraints)) return {};
  const match = matchResources(p.spec.matchConstraints, matchInput(ctx));
  const matched = match.matches && match.matchedResource && match.matchedKind ? { resource: match.matchedResource, kind: match.matchedKind } : undefined;
  return { match, matched };
}

function runInput(ctx: SimContext, matched: EquivalentResource | undefined, object: unknown, p?: WorkspacePolicy): RunRequestInput {
  return {
    ...inputFor(ctx, matched, object),
    paramDocuments: ctx.ws.documents,
    equivalents: ctx.discovery.equivalents,
    ...(p?.static ? { static: true } : {}),
    ...(ctx.options.trace ? { trace: true } : {}),
  };
}

/** A paramRef naming a document of another kind than paramKind: say so (the apiserver just finds no param). */
function paramNotes(ctx: SimContext, p: WorkspacePolicy, b: WorkspaceBinding): string[] {
  const kind = obj(p.spec.paramKind);
  const name = str(obj(b.spec.paramRef).name);
  if (!isObject(p.spec.paramKind) || !name) return [];
  const same = ctx.ws.documents.filter((d) => nameOf(d) === name);
  if (same.length === 0 || same.some((d) => obj(d).apiVersion === kind.apiVersion && obj(d).kind === kind.kind)) return [];
  const d = same[0];
  const where = namespaceOf(d) ? ` in namespace ${namespaceOf(d)}` : '';
  return [
    `paramRef names '${name}', but the workspace's '${name}'${where} is a ${str(obj(d).apiVersion)} ${str(obj(d).kind)}, not the paramKind ${str(kind.apiVersion)} ${str(kind.kind)}: it is not a param of this policy`,
  ];
}

/** The policy plugin returns before any policy for a resource its release excludes: one skipped step per policy, saying so. */
function excludedSteps(ctx: SimContext, phase: SimPhase): boolean {
  const why = excludedBy(ctx, 'policies');
  if (!why) return false;
  if (ctx.round === 0) {
    for (const p of phase === 'mutating' ? ctx.ws.policies.mutating : ctx.ws.policies.validating) {
      policyStep(ctx, {
        phase,
        p,
        outcome: 'skipped',
        reason: why,
        document: p.document,
        path: isObject(p.spec.matchConstraints) ? 'spec.matchConstraints' : 'spec',
      });
    }
  }
  return true;
}

/**
 * Collect: the expressions the validating policies' runs of this request may ask for (policies
 * whose matchConstraints match, with a binding), on the inputs the runs build; with paramKind,
 * once per param each binding's paramRef resolves to (resolveParams, as the run resolves it).
 */
function validatingPolicyExpressions(ctx: SimContext, starts: readonly (ValidatingStart | undefined)[]): PolicyExpressionOn[] {
  const out: PolicyExpressionOn[] = [];
  const inputsOf = new Map<EquivalentResource | undefined, CelInputs>(); // one per resource matched (usually one)
  ctx.ws.policies.validating.forEach((p, i) => {
    const s = starts[i];
    if (!s?.match?.matches) return;
    if (declaresParams(p.spec)) {
      const seen = new Set<unknown>();
      for (const b of p.bindings) {
        const resolved = resolveParams(p.spec, b.spec, str(s.input.request.namespace), s.input);
        for (const param of resolved.error ? [] : resolved.params) {
          if (seen.has(param)) continue;
          seen.add(param);
          const inputs = celInputs(s.input, param);
          for (const e of validatingExpressions(p.spec)) out.push({ ...e, inputs });
        }
      }
      return;
    }
    let inputs = inputsOf.get(s.matched);
    if (!inputs) inputsOf.set(s.matched, (inputs = celInputs(s.input, null)));
    for (const e of validatingExpressions(p.spec)) out.push({ ...e, inputs });
  });
  return out;
}

interface ValidatingStart {
  match?: MatchResult;
  matched?: EquivalentResource;
  input: RunRequestInput;
}

export async function runValidatingPolicies(ctx: SimContext): Promise<void> {
  if (excludedSteps(ctx, 'validating')) return;
  const failures: ValidationFailure[] = [];
  // the policies do not change the object: run them all at once (the engine's requests overlap in
  // the browser's worker), then read the results in order
  const starts = ctx.ws.policies.validating.map((p): ValidatingStart | undefined => {
    if (p.bindings.length === 0) return undefined;
    const { match, matched } = policyMatch(ctx, p);
    return { match, matched, input: runInput(ctx, matched, ctx.object, p) };
  });
  // collect, then decide: this phase's expressions (the policies', then the validating webhooks':
  // the object no longer changes, they see the same inputs) go to the engine in one round trip per
  // distinct inputs; the runs below read the answers in their own order
  if (ctx.cel.prefetch) ctx.cel.prefetch([...validatingPolicyExpressions(ctx, starts), ...validatingWebhookExpressions(ctx)]);
  const runs = ctx.ws.policies.validating.map((p, i) => {
    const start = starts[i];
    if (!start) return undefined;
    const run = runValidatingPolicy({ ...start.input, policy: p.policy, bindings: p.bindings.map((b) => b.binding) }, ctx.cel);
    run.catch(() => undefined); // a failure surfaces where it is awaited, not as an unhandled rejection
    return { match: start.match, matched: start.matched, run };
  });
  for (const [i, p] of ctx.ws.policies.validating.entries()) {
    const started = runs[i];
    if (!started) {
      noBindingStep(ctx, 'validating', p);
      continue;
    }
    const { match, matched } = started;
    const r = await started.run;
    const failurePolicy = r.failurePolicy;
    if (r.bindings.length === 0 || (r.decision.allowed === false && !r.bindings.some((b) => b.applies || b.configError))) {
      const configError = r.errors[0] && !r.bindings.length && r.policyMatch?.matches !== false ? r.errors[0] : undefined;
      const s = policyLevelStep(ctx, 'validating', p, r.policyMatch ?? match, r.skipReason, configError, r.decision.message);
      if (r.decision.allowed === false && !ctx.denied) {
        ctx.denied = {
          kind: 'ValidatingAdmissionPolicy',
          name: p.name,
          message: forbiddenMessage(ctx, r.decision.message ?? ''),
          reason: r.decision.reason,
          code: r.decision.code ?? 403,
        };
        s.message = ctx.denied.message;
      }
      continue;
    }
    for (const bt of r.bindings) {
      const b = p.bindings.find((x) => x.name === bt.name)!;
      const notes = paramNotes(ctx, p, b);
      const skip = bindingSkipStep(ctx, 'validating', p, b, bt);
      if (skip) {
        if (notes.length) skip.notes = notes;
        if (skip.outcome === 'error-rejected') skip.message = policyDenialMessage(p.name, b.name, `failed to configure binding: ${bt.configError ?? ''}`);
        if (skip.outcome === 'error-rejected' && !ctx.denied && r.decision.allowed === false) {
          ctx.denied = {
            kind: 'ValidatingAdmissionPolicy',
            name: p.name,
            binding: b.name,
            message: forbiddenMessage(ctx, r.decision.message ?? ''),
            reason: r.decision.reason,
            code: r.decision.code ?? 403,
          };
          skip.message = ctx.denied.message;
        }
        continue;
      }
      const actions = bt.validationActions;
      const decisions = bt.evaluations.flatMap((e) => e.decisions);
      const mcSkipped = bt.evaluations.length > 0 && bt.evaluations.every((e) => e.matchConditions?.outcome === 'skip');
      const firstDeny = decisions.find((d) => d.action === 'deny');
      const firstError = bt.evaluations.flatMap((e) => e.validations).find((v) => v.evaluation === 'error');
      const mcError = bt.evaluations.find((e) => e.matchConditions?.outcome === 'error')?.matchConditions;
      let outcome: SimOutcome = 'admitted';
      let reason = `binding '${b.name}' applies; every validation passes`;
      let path = 'spec.validations';
      let document = p.document;
      if (mcSkipped) {
        const name = bt.evaluations[0]!.matchConditions!.failedCondition;
        const j = list(p.spec.matchConditions).findIndex((c) => str(obj(c).name) === name);
        outcome = 'skipped';
        reason = `matchCondition '${name ?? ''}' is false`;
        path = `spec.matchConditions[${j}].expression`;
      } else if (firstDeny) {
        const isError = firstDeny.evaluation === 'error';
        path = firstDeny.index >= 0 ? `spec.validations[${firstDeny.index}].expression` : mcError ? mcErrorPath(bt.evaluations) : 'spec.validations';
        const what = isError ? `an error (${firstDeny.message}) under failurePolicy ${failurePolicy}` : `validation fails: ${firstDeny.message}`;
        if (actions.includes('Deny')) outcome = isError ? 'error-rejected' : 'denied';
        else if (actions.includes('Warn')) outcome = 'warned';
        else if (actions.includes('Audit')) outcome = 'audited';
        reason = `${what}; binding '${b.name}' validationActions [${actions.join(', ')}]`;
        if (outcome !== 'denied' && outcome !== 'error-rejected') {
          document = b.document;
          path = 'spec.validationActions';
        }
      } else if (firstError || (mcError && failurePolicy === 'Ignore')) {
        outcome = 'error-ignored';
        reason = `${firstError?.error ?? mcError?.error ?? ''}; failurePolicy Ignore: the error is ignored`;
        path = firstError ? `spec.validations[${firstError.index}].expression` : mcErrorPath(bt.evaluations);
      }
      // an audit annotation that errs (under Fail, or a value that is not a string) denies whatever
      // validationActions say (validating/dispatcher.go appends it to the denied decisions)
      const auditError = bt.evaluations.flatMap((e) => e.auditAnnotations).find((t) => t.action === 'error');
      const denialMessage = outcome === 'denied' || outcome === 'error-rejected' ? firstDeny?.message : auditError?.error;
      if (auditError && outcome !== 'denied' && outcome !== 'error-rejected') {
        outcome = 'error-rejected';
        reason = `audit annotation '${auditError.key}': ${auditError.error ?? ''}; it rejects the request whatever binding '${b.name}' validationActions [${actions.join(', ')}] say`;
        document = p.document;
        path = `spec.auditAnnotations[${Math.max(
          list(p.spec.auditAnnotations).findIndex((a) => str(obj(a).key) === auditError.key),
          0,
        )}].valueExpression`;
      }
      const s = policyStep(ctx, { phase: 'validating', p, binding: b, outcome, reason, document, path });
      if (ctx.options.trace) s.expressions = tracedExpressions(p.policy, bt.evaluations);
      if (notes.length) s.notes = notes;
      noteConversion(ctx, s, matched);
      if (denialMessage !== undefined && (outcome === 'denied' || outcome === 'error-rejected')) s.message = policyDenialMessage(p.name, b.name, denialMessage);
      const warnings = r.warnings.filter((w) => w.includes(`with binding '${b.name}':`));
      if (warnings.length) s.warnings = warnings;
      if ((outcome === 'denied' || outcome === 'error-rejected') && !ctx.denied && r.decision.allowed === false) {
        ctx.denied = {
          kind: 'ValidatingAdmissionPolicy',
          name: p.name,
          binding: b.name,
          message: forbiddenMessage(ctx, r.decision.message ?? ''),
          reason: r.decision.reason,
          code: r.decision.code ?? 422,
        };
        s.message = ctx.denied.message;
      }
    }
    ctx.warnings.push(...r.warnings);
    const { [VALIDATION_FAILURE_KEY]: _failures, ...annotations } = r.auditAnnotations;
    Object.assign(ctx.auditAnnotations, annotations);
    failures.push(...r.validationFailures);
  }
  if (failures.length) ctx.auditAnnotations[VALIDATION_FAILURE_KEY] = validationFailuresValue(failures, ctx.options.kubernetesVersion);
}

// ---------------------------------------------------------------------------
// MutatingAdmissionPolicy

export async function runMutatingPolicies(ctx: SimContext): Promise<void> {
  if (excludedSteps(ctx, 'mutating')) return;
  const st = ctx.reinvoke.policies;
  if (ctx.round === 1 && !(st.lastOutput && deepEqual(st.lastOutput.object, ctx.object))) requireReinvoking(st);
  let denial: SimContext['denied'];
  let ranAny = false;
  for (const p of ctx.ws.policies.mutating) {
    if (p.bindings.length === 0) {
      if (ctx.round === 0) noBindingStep(ctx, 'mutating', p);
      continue;
    }
    const bindings = ctx.round === 0 ? p.bindings : p.bindings.filter((b) => st.reinvoke.has(invocationKey(p, b)));
    if (ctx.round === 1 && bindings.length === 0) continue;
    const { match, matched } = policyMatch(ctx, p);
    const before = ctx.object;
    // each mutation's result decoded into the request's Go type (matched through another version: not checked)
    const input = { ...runInput(ctx, matched, ctx.object, p), ...(matched ? {} : { decode: decodeProblems(ctx) }) };
    const r = await runMutatingPolicyOnce({ ...input, policy: p.policy, bindings: bindings.map((b) => b.binding) }, ctx.cel);
    const failurePolicy = r.failurePolicy;
    if (r.bindings.length === 0) {
      if (ctx.round === 0) {
        const configError = r.outcome === 'deny' ? r.errors[0] : undefined;
        const s = policyLevelStep(ctx, 'mutating', p, r.policyMatch ?? match, r.skipReason, configError, r.decision.message);
        if (r.outcome === 'deny' && !denial)
          denial = {
            kind: 'MutatingAdmissionPolicy',
            name: p.name,
            message: r.decision.message ?? '',
            reason: r.decision.reason,
            code: r.decision.code ?? 403,
          };
        if (r.outcome === 'deny') s.message = r.decision.message;
      }
      continue;
    }
    ranAny = true;
    for (const bt of r.bindings) {
      const b = bindings.find((x) => x.name === bt.name)!;
      const notes = paramNotes(ctx, p, b);
      const skip = bindingSkipStep(ctx, 'mutating', p, b, bt);
      if (skip) {
        if (notes.length) skip.notes = notes;
        continue;
      }
      const invoked = bt.evaluations.filter((e) => e.matchConditions?.outcome !== 'skip' && e.matchConditions?.outcome !== 'error');
      const changed = invoked.some((e) => !deepEqual(e.objectBefore, e.objectAfter));
      const errors = bt.evaluations.flatMap((e) => [
        ...(e.matchConditions?.outcome === 'error' ? [e.matchConditions.error ?? ''] : []),
        ...e.mutations.filter((m) => m.error).map((m) => m.error!),
      ]);
      const firstErrorMutation = bt.evaluations.flatMap((e) => e.mutations).find((m) => m.error);
      let outcome: SimOutcome = changed ? 'patched' : 'admitted';
      let reason = changed ? `binding '${b.name}' applies; the mutations changed the object` : `binding '${b.name}' applies; the mutations change nothing`;
      let path = 'spec.mutations';
      if (bt.evaluations.length > 0 && invoked.length === 0 && errors.length === 0) {
        const name = bt.evaluations[0]!.matchConditions?.failedCondition;
        const j = list(p.spec.matchConditions).findIndex((c) => str(obj(c).name) === name);
        outcome = 'skipped';
        reason = `matchCondition '${name ?? ''}' is false`;
        path = `spec.matchConditions[${j}].expression`;
      } else if (errors.length > 0) {
        outcome = failurePolicy === 'Ignore' ? 'error-ignored' : 'error-rejected';
        reason = `${errors[0]}; failurePolicy ${failurePolicy}`;
        path = firstErrorMutation ? `spec.mutations[${firstErrorMutation.index}]` : mcErrorPath(bt.evaluations);
      }
      if (ctx.round === 1 && (outcome === 'patched' || outcome === 'admitted')) {
        outcome = 'reinvoked';
        reason = `reinvoked (reinvocationPolicy IfNeeded: the object changed after its first invocation); ${reason}`;
        if (!changed) path = 'spec.reinvocationPolicy';
      }
      const s = policyStep(ctx, { phase: 'mutating', p, binding: b, outcome, reason, document: p.document, path });
      if (ctx.options.trace) s.expressions = tracedExpressions(p.policy, bt.evaluations);
      if (notes.length) s.notes = notes;
      noteConversion(ctx, s, matched);
      if (changed) {
        const first = invoked[0]!.objectBefore;
        const last = invoked[invoked.length - 1]!.objectAfter;
        s.patch = patchBetween(first, last);
        ctx.patches.push({ by: `${p.name}/${b.name}`, ops: s.patch, mutator: actorOf('MutatingAdmissionPolicy', p.name, b.name) });
        requireReinvoking(st);
        ctx.shouldReinvoke = true;
      }
      if (invoked.length > 0 && p.spec.reinvocationPolicy === 'IfNeeded') st.previouslyInvoked.add(invocationKey(p, b));
      if (outcome === 'error-rejected') s.message = `policy '${p.name}' with binding '${b.name}' denied request: ${errors[0]}`;
      if (outcome === 'error-rejected' && r.outcome === 'deny') {
        if (!denial)
          denial = {
            kind: 'MutatingAdmissionPolicy',
            name: p.name,
            binding: b.name,
            message: r.decision.message ?? '',
            reason: r.decision.reason,
            code: r.decision.code ?? 403,
          };
      }
    }
    if (r.outcome === 'deny' && !denial)
      denial = { kind: 'MutatingAdmissionPolicy', name: p.name, message: r.decision.message ?? '', reason: r.decision.reason, code: r.decision.code ?? 403 };
    // back to the request's version (only the apiVersion was converted)
    // the patched object converted back to the typed object and defaulted (policy/mutating/dispatcher.go)
    ctx.object = ctx.admitted(matched && isObject(r.object) && isObject(before) ? { ...r.object, apiVersion: before.apiVersion } : r.object);
  }
  if (ranAny || ctx.round === 0) st.lastOutput = { object: ctx.object };
  if (denial) ctx.denied = denial;
}
