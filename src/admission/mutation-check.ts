/**
 * M06 mutation-breaks-validation: "ensure that mutations don't violate validations" (Kubernetes
 * admission webhook good practices). A request is sent through the chain twice, both times as a
 * probe (every rejection recorded, the chain goes on): as the workspace stands, and without its
 * mutating webhook configurations and MutatingAdmissionPolicies. A validating step that rejects
 * the mutated object but not the object as sent was broken by the mutations before it.
 * Schema validation of the mutated object (the registry's own checks) is not modelled.
 */
import type { PolicyCel } from '../policy';
import { probe } from './simulate';
import type { SimOptions, SimRequest, SimResult, SimStep } from './types';

const MUTATING_KINDS: ReadonlySet<unknown> = new Set(['MutatingWebhookConfiguration', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);

export interface MutationBreak {
  /** The validating step that rejects the mutated object (its document and field). */
  validator: SimStep;
  /** The steps whose patches changed the object before it. */
  mutators: SimStep[];
  /** One line, e.g. `ValidatingAdmissionPolicy "p" (binding "b") rejects the object as mutated by …`. */
  message: string;
}

const rejects = (s: SimStep) => s.phase === 'validating' && (s.outcome === 'denied' || s.outcome === 'error-rejected');
const identity = (s: SimStep) => `${s.kind}\u0000${s.name}\u0000${s.webhook ?? ''}\u0000${s.binding ?? ''}`;

/** How a step is named in a finding: `ValidatingAdmissionPolicy "p" (binding "b")`, `MutatingWebhookConfiguration "c" webhook "w"`. */
export function stepSubject(s: SimStep): string {
  return `${s.kind} "${s.name}"${s.webhook ? ` webhook "${s.webhook}"` : ''}${s.binding ? ` (binding "${s.binding}")` : ''}`;
}

/**
 * The validators that reject `request` only because of the mutating phase. `simulated`, a
 * result of `simulate` for the same request and options, saves the work when it shows that
 * there is nothing to find: the request is admitted (no validator rejects it), or nothing
 * changed the object.
 */
export async function mutationBreaks(
  objects: readonly unknown[],
  request: SimRequest,
  options: SimOptions = {},
  cel?: PolicyCel,
  simulated?: SimResult,
): Promise<MutationBreak[]> {
  if (simulated && (simulated.allowed || simulated.patches.length === 0)) return [];
  const docs = Array.isArray(objects) ? objects : [];
  const withMutations = await probe(docs, request, options, cel);
  const mutators = withMutations.steps.filter((s) => s.outcome === 'patched');
  const rejecting = withMutations.steps.filter(rejects);
  if (!mutators.length || !rejecting.length) return [];
  const asSent = await probe(
    docs.filter((d) => !MUTATING_KINDS.has((d as { kind?: unknown } | null)?.kind)),
    request,
    options,
    cel,
  );
  const rejectedAsSent = new Set(asSent.steps.filter(rejects).map(identity));
  return rejecting
    .filter((s) => !rejectedAsSent.has(identity(s)))
    .map((validator) => ({
      validator,
      mutators,
      message: `${stepSubject(validator)} rejects the object as mutated by ${mutators.map(stepSubject).join(', ')}, but admits it as sent${validator.message ? `: ${validator.message}` : ''}`,
    }));
}
