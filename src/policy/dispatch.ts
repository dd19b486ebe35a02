/**
 * What dispatching a ValidatingAdmissionPolicy (run.ts) and a MutatingAdmissionPolicy
 * (mutate.ts) share, after k8s.io/apiserver pkg/admission/plugin/policy/generic
 * (policy_dispatcher.go) and the two dispatcher.go files: the policy's bindings, the
 * policy's matchConstraints, each binding's matchResources and params, the one
 * per-binding / per-param loop, and the CEL inputs of an invocation.
 */
import { isNamespaceKind } from '../request/cel-inputs';
import type { TestInput } from '../request/model';
import { withDefaults } from '../k8s/defaults';
import { isObject, nameOf, obj, str, type Obj } from '../base/json';
import { matchResources, type MatchInput, type MatchResult } from './matching';
import { decideMatchConditions, type MatchConditionsTrace } from './match-conditions';
import { resolveParams, type ParamResolution, type ParamsInput } from './params';

/**
 * What a policy run reads of a request: the one admission request model (src/request TestInput:
 * the request with object / oldObject, params, the namespace object, authorizer answers), the
 * workspace's param candidates, and discovery's equivalents for matchPolicy Equivalent.
 */
export interface RunRequestInput extends TestInput, ParamsInput {
  equivalents?: MatchInput['equivalents'];
  /** The policy is loaded from a static manifest: policy/generic/plugin.go (1.37) runs static policies on admission configuration resources too. */
  static?: boolean;
}

export const EQUIVALENT_NOTE =
  "matchPolicy Equivalent: a real cluster also tries the resources discovery lists as equivalent (other groups/versions); only the request's own resource was tried here";

/** Notes about inputs that a real apiserver would treat differently. */
export function requestNotes(input: RunRequestInput): string[] {
  const notes: string[] = [];
  const ns = str(input.request.namespace);
  if (ns && !isNamespaceKind(input.request) && !isObject(input.namespaceObject)) {
    notes.push(`no namespaceObject given: CEL sees namespaceObject as null; a real apiserver would fail the request with namespaces "${ns}" not found`);
  }
  return notes;
}

/** The bindings of the policy (defaulted), and the names of the workspace's bindings for other policies. */
export function policyBindings(policyName: string, bindings: readonly unknown[]): { own: Obj[]; ignored: string[] } {
  const own: Obj[] = [];
  const ignored: string[] = [];
  for (const b of bindings) {
    const d = withDefaults(b);
    if (str(obj(obj(d).spec).policyName) === policyName) own.push(obj(d));
    else ignored.push(nameOf(d));
  }
  return { own, ignored };
}

/** Does the policy apply to the request by its own matchConstraints? */
export interface PolicyMatch {
  match?: MatchResult;
  /** Why it does not apply (exempt resource, no match). */
  skipReason?: string;
  /** A configuration error (no matchConstraints, a bad selector), before failurePolicy. */
  configError?: string;
  notes: string[];
}

/**
 * policy/generic/plugin.go admissionResources: the resources API policies skip (by group and
 * resource, any version): the four policy kinds'. Webhook configurations are not among them.
 */
const POLICY_RESOURCES = new Set([
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);
const isPolicyResource = (request: RunRequestInput['request']): boolean =>
  str(request.resource?.group) === 'admissionregistration.k8s.io' && POLICY_RESOURCES.has(str(request.resource?.resource));

export function matchPolicy(spec: Obj, input: RunRequestInput): PolicyMatch {
  if (!input.static && isPolicyResource(input.request)) {
    return { skipReason: 'admission policies and their bindings are exempt from admission policies (static policies excepted)', notes: [] };
  }
  if (!isObject(spec.matchConstraints)) {
    return { configError: 'policy contained no match constraints, a required field', skipReason: 'the policy has no matchConstraints', notes: [] };
  }
  const match = matchResources(spec.matchConstraints, input);
  const notes = match.equivalentNotChecked ? [EQUIVALENT_NOTE] : [];
  if (match.error) return { match, configError: match.error, notes };
  if (!match.matches) return { match, skipReason: `matchConstraints: ${match.reason}`, notes };
  return { match, notes };
}

/** What both kinds record of a binding. */
export interface BindingTraceBase {
  name: string;
  /** matchResources of the binding (undefined: the binding has none and matches every request the policy matches). */
  match?: MatchResult;
  applies: boolean;
  reason: string;
  params?: ParamResolution;
  /** failed to configure binding: … (matching or param errors), before failurePolicy. */
  configError?: string;
}

/**
 * What a binding's line shows after its verdict ("applies" / "does not apply"): the reason
 * without the verdict it repeats ('' for a binding that simply applies).
 */
export function bindingDetail(b: Pick<BindingTraceBase, 'applies' | 'reason'>): string {
  if (!b.applies) return b.reason;
  return b.reason.replace(/^applies(, but |, |$)/, '');
}

/**
 * The part of dispatching a binding that both policy kinds share: the binding's
 * matchResources, then its params. Fills the trace (match, params, reason, configError,
 * applies) and returns the params to evaluate with, or undefined when the binding does
 * not apply or is misconfigured (then `trace.configError` says why).
 */
export function admitBinding(trace: BindingTraceBase, spec: Obj, bspec: Obj, input: RunRequestInput, verb: 'validate' | 'mutate'): ParamResolution | undefined {
  if (isObject(bspec.matchResources)) {
    const m = matchResources(bspec.matchResources, input);
    trace.match = m;
    if (m.error) {
      trace.configError = m.error;
      trace.reason = `matchResources: ${m.error}`;
      return undefined;
    }
    if (!m.matches) {
      trace.reason = `matchResources: ${m.reason}`;
      return undefined;
    }
  }
  const pr = resolveParams(spec, bspec, str(input.request.namespace), input);
  trace.params = pr;
  if (pr.error) {
    trace.configError = pr.error;
    trace.reason = `paramRef: ${pr.error}`;
    return undefined;
  }
  trace.applies = true;
  trace.reason = pr.params.length === 0 ? `applies, but no params were found: nothing to ${verb} (${pr.detail})` : 'applies';
  return pr;
}

/** Whether an invocation counts as the policy applying: the matchConditions decision did not skip it. */
export const invocationApplied = (mc: MatchConditionsTrace | undefined, failurePolicy: string): boolean =>
  decideMatchConditions(mc, failurePolicy).action !== 'skip';

/**
 * The dispatcher loop: for each binding in order, its matchResources and params
 * (admitBinding), then one invocation per param. `invoke` returns whether the
 * invocation applied (see invocationApplied); a binding that applies without params
 * counts as applied. Returns whether anything applied.
 */
export async function dispatchBindings<T extends BindingTraceBase>(
  bindings: readonly Obj[],
  spec: Obj,
  input: RunRequestInput,
  verb: 'validate' | 'mutate',
  hooks: {
    /** A new trace for a binding (the caller keeps it). */
    trace(name: string, bspec: Obj): T;
    configError(error: string, binding: string): void;
    invoke(trace: T, bspec: Obj, param: unknown): Promise<boolean>;
  },
): Promise<boolean> {
  let applied = false;
  for (const b of bindings) {
    const bspec = obj(b.spec);
    const bt = hooks.trace(nameOf(b), bspec);
    const pr = admitBinding(bt, spec, bspec, input, verb);
    if (bt.configError) hooks.configError(bt.configError, bt.name);
    if (!pr) continue;
    if (pr.params.length === 0) applied = true;
    for (const param of pr.params) if (await hooks.invoke(bt, bspec, param)) applied = true;
  }
  return applied;
}
