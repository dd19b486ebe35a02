/**
 * The steps the policy plugins record (policies.ts): one per binding, or one for the policy when
 * it does not apply, each naming the document and field that decided it.
 */
import { isObject } from '../base/json';
import { failurePolicyOf, type BindingTraceBase, type MatchResult } from '../policy';
import type { SimContext } from './context';
import type { DocumentRef, SimOutcome, SimPhase, SimStep, SimStepKind } from './types';
import type { WorkspaceBinding, WorkspacePolicy } from './workspace';

/** The first matchCondition that failed to evaluate, as a path ('spec.matchConditions' when none did). */
export function mcErrorPath(evaluations: readonly { matchConditions?: { outcome: string; conditions: { ok: boolean }[] } }[]): string {
  for (const e of evaluations) {
    if (e.matchConditions?.outcome !== 'error') continue;
    const j = e.matchConditions.conditions.findIndex((c) => !c.ok);
    if (j >= 0) return `spec.matchConditions[${j}].expression`;
  }
  return 'spec.matchConditions';
}

const MATCH_FIELD: Record<string, string> = {
  namespaceSelector: 'namespaceSelector',
  objectSelector: 'objectSelector',
  excludeResourceRules: 'excludeResourceRules',
  resourceRules: 'resourceRules',
};

/** The field of a MatchResources that decided a match: `<prefix>.<field>`. */
export function matchPath(prefix: string, m: MatchResult | undefined): string {
  if (!m) return prefix;
  const failed = [...m.steps].reverse().find((s) => !s.passed);
  if (failed) return `${prefix}.${MATCH_FIELD[failed.check] ?? ''}`;
  return m.matchedRule === undefined ? prefix : `${prefix}.resourceRules[${m.matchedRule}]`;
}

interface PolicyStepInit {
  phase: SimPhase;
  p: WorkspacePolicy;
  binding?: WorkspaceBinding;
  outcome: SimOutcome;
  reason: string;
  document: DocumentRef;
  path: string;
}

export function policyStep(ctx: SimContext, i: PolicyStepInit): SimStep {
  const s: SimStep = {
    phase: i.phase,
    kind: i.p.kind as SimStepKind,
    name: i.p.name,
    outcome: i.outcome,
    reason: i.reason,
    document: i.document,
    path: i.path,
    round: ctx.round,
    failurePolicy: failurePolicyOf(i.p.spec),
  };
  if (i.binding) s.binding = i.binding.name;
  if (i.p.static) s.static = true;
  ctx.steps.push(s);
  return s;
}

/** A step for the policy as a whole when no binding step says more (not matching, exempt, config error, no bindings). */
export function policyLevelStep(
  ctx: SimContext,
  phase: SimPhase,
  p: WorkspacePolicy,
  match: MatchResult | undefined,
  skipReason: string | undefined,
  configError: string | undefined,
  message?: string,
): SimStep {
  const failurePolicy = failurePolicyOf(p.spec);
  if (configError) {
    const s = policyStep(ctx, {
      phase,
      p,
      outcome: failurePolicy === 'Ignore' ? 'error-ignored' : 'error-rejected',
      reason: `${configError}; failurePolicy ${failurePolicy}`,
      document: p.document,
      path: isObject(p.spec.matchConstraints) ? matchPath('spec.matchConstraints', match) : 'spec.matchConstraints',
    });
    if (message) s.message = message;
    return s;
  }
  const path = match && !match.matches ? matchPath('spec.matchConstraints', match) : p.bindings.length === 0 ? 'metadata.name' : 'spec';
  return policyStep(ctx, { phase, p, outcome: 'skipped', reason: skipReason ?? 'does not apply', document: p.document, path });
}

/** The apiserver only dispatches policies that have a binding (policy_source.go). */
export function noBindingStep(ctx: SimContext, phase: SimPhase, p: WorkspacePolicy): void {
  const bindingKind = p.kind === 'MutatingAdmissionPolicy' ? 'MutatingAdmissionPolicyBinding' : 'ValidatingAdmissionPolicyBinding';
  policyStep(ctx, {
    phase,
    p,
    outcome: 'skipped',
    reason: `no ${bindingKind} names policy '${p.name}': the apiserver does not evaluate it`,
    document: p.document,
    path: 'metadata.name',
  });
}

export function bindingSkipStep(ctx: SimContext, phase: SimPhase, p: WorkspacePolicy, b: WorkspaceBinding, bt: BindingTraceBase): SimStep | undefined {
  const failurePolicy = failurePolicyOf(p.spec);
  if (bt.configError) {
    return policyStep(ctx, {
      phase,
      p,
      binding: b,
      outcome: failurePolicy === 'Ignore' ? 'error-ignored' : 'error-rejected',
      reason: `failed to configure binding: ${bt.configError}; failurePolicy ${failurePolicy}`,
      document: b.document,
      path: bt.params?.error ? 'spec.paramRef' : matchPath('spec.matchResources', bt.match),
    });
  }
  if (!bt.applies) {
    return policyStep(ctx, {
      phase,
      p,
      binding: b,
      outcome: 'skipped',
      reason: `binding '${b.name}' ${bt.reason}`,
      document: b.document,
      path: matchPath('spec.matchResources', bt.match),
    });
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// ValidatingAdmissionPolicy
