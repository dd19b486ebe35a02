/**
 * What one chain does with one request (a Decision), and who decides: both chains prepared once,
 * a request through both (`chainDecider`: lean verdicts where they decide, the full simulation
 * where they do not; `fullDecider`: the full simulation always). Used by analyzeImpact on this
 * thread, by the pools of deciders (pool.ts) and by the replay shards (shard.ts).
 */
import type { KubernetesVersion } from '../base/releases';
import type { StaticOrder } from '../k8s/static-manifests';
import { loadTypedData } from '../k8s/typed';
import {
  countLeanFallback,
  leanChain,
  leanSet,
  leanVerdicts,
  unknownReach,
  prepareChain,
  probePrepared,
  requestCel,
  simulatePrepared,
  type LeanRegistry,
  type LeanSet,
  type LeanVerdict,
  type Unknown,
  type UnknownReach,
  type PreparedChain,
  type ConditionalAuthorization,
  type SimOptions,
  type SimResult,
  type WebhookResponse,
  convertsExactly,
  warnersOf,
  webhookCalled,
} from '../admission';
import { AUTHORIZER_CHECK_COST, evaluateBatchOnce, type CelEvalResult } from '../cel';
import type { PolicyCel } from '../policy';
import type { AdmissionRequest } from '../request/model';
import { str } from '../base/json';
import { isNamespaceResource, PRIVILEGED_GROUP } from '../request/cel-inputs';
import { asksAuthorizer, mayRead, readersOf, unknownRead, type Readers } from './unknown';

export interface Denial {
  kind: string;
  name: string;
  binding?: string;
  webhook?: string;
  message: string;
  /** The policy or webhook configuration is loaded from a static manifest (it runs before the API objects; the API cannot delete it). */
  static?: true;
}

/** What one chain did with one request. */
export interface Decision {
  allowed: boolean;
  /** The denial the client sees (null when allowed). */
  deniedBy: Denial | null;
  /** Every step that would deny, when more than one would (the apiserver names only `deniedBy`). */
  denials?: Denial[];
  warnings: string[];
  /** Who warned, each once, sorted (`ValidatingWebhookConfiguration review/review.example.com`, `ValidatingAdmissionPolicy p/b`); absent when no one did. */
  warnedBy?: string[];
  /** Keys of the audit annotations the chain added. */
  audited: string[];
  /** Webhooks called (their answers are assumed: `ImpactOptions.webhooks`, default allow). */
  calls: string[];
  mutated: boolean;
  /** Who changed the object, each once, sorted (`MutatingWebhookConfiguration inject/inject.example.com`, `MutatingAdmissionPolicy add-team/add-team`); absent when nothing did. */
  mutatedBy?: string[];
  /**
   * The policies and webhooks that read what the replay does not know of the request: an old
   * object (an update or delete of an object neither the log nor the snapshot holds), a Namespace
   * (neither holds it) or the authorizer's answers, in their CEL or by their selectors
   * (unknown.ts): this decision is the one for no old object, a Namespace with only its name label
   * and an authorizer with no opinion, not necessarily the cluster's.
   */
  undetermined?: string[];
}

/** `undetermined`: a chain's decision reads what the replay does not know of the request: its old object, its Namespace, the authorizer's answers (`Decision.undetermined`). */
export type Change = 'newly-denied' | 'no-longer-denied' | 'newly-warned' | 'newly-audited' | 'newly-mutated' | 'undetermined' | 'unchanged';

/**
 * The changes in the order a write is counted: under the first that applies. A mutating webhook
 * called adds an audit annotation of its own (`mutation.webhook.admission.k8s.io/round_0_index_0`),
 * so a write it newly mutates is also newly audited: newly-mutated comes first, else no webhook's
 * mutation was ever counted as one.
 */
export const CHANGES: readonly Change[] = ['newly-denied', 'no-longer-denied', 'newly-warned', 'newly-mutated', 'newly-audited', 'undetermined', 'unchanged'];

/** Both chains as plain data (structured-cloneable: what a worker needs to decide). */
export interface ChainSpec {
  baseline: unknown[];
  candidate: unknown[];
  kubernetesVersion: KubernetesVersion;
  webhooks?: Record<string, WebhookResponse>;
  /** Indices into `candidate` of the objects loaded from static manifests (the simulator runs them first: `prepareChain`). */
  staticDocuments?: readonly number[];
  /** Where the candidate's static mutating webhooks run (SimOptions.staticOrder). */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults, in both chains (SimOptions.featureGates). */
  featureGates?: readonly string[];
}

export interface DecisionPair {
  baseline: Decision;
  candidate: Decision;
  /** Both chains read the unknown old object through the same policies and webhooks (the same objects): where they decide alike, the old object cannot make them differ. */
  sameUnknown?: true;
}

/**
 * One request through both chains; `namespaceObject` is the request's Namespace (or undefined),
 * `authorization` the authorizer's conditional decision on it, read from its audit event
 * (`conditionalAuthorizationOf`; absent: unconditional).
 */
export type Decider = (request: AdmissionRequest, namespaceObject: unknown, authorization?: ConditionalAuthorization) => Promise<DecisionPair>;

/** The chains' options for one request. */
const simOptionsOf = (spec: ChainSpec, namespace: unknown, authorization?: ConditionalAuthorization): SimOptions => ({
  webhooks: spec.webhooks,
  namespaces: namespace ? [namespace] : [],
  ...(spec.featureGates?.length ? { featureGates: spec.featureGates } : {}),
  ...(authorization ? { conditionalAuthorization: authorization } : {}),
});

/**
 * The lean items of every decider on this thread, one object per distinct expression, context and
 * options: a log that changes the chains (a param written) makes a decider per change, and with
 * items of their own each asked the engine again for what its items read and sent them again.
 */
const sharedRegistry: LeanRegistry = new Map();
/** Past this many items the registry starts again (the items are then new objects: correct, only slower). */
const MAX_SHARED_ITEMS = 20_000;
/** The last decider's lean set: the next one keeps its plans where the chains plan alike (leanSet). */
let lastLean: LeanSet | undefined;

/**
 * The decider on this thread: both chains prepared once and compiled for lean verdicts (one
 * engine batch per request for both chains, no explanation built: allowed, or denied by
 * ValidatingAdmissionPolicies' false validations); a chain the lean path leaves undecided (a
 * mutation, an error, params, a webhook that denies …) runs the full simulation (and its probe
 * when denied), with one CEL memo per request shared by its runs.
 */
export function chainDecider(spec: ChainSpec): Decider {
  const baseline = prepareChain(spec.baseline, { kubernetesVersion: spec.kubernetesVersion });
  const candidate = prepareChain(spec.candidate, {
    kubernetesVersion: spec.kubernetesVersion,
    staticDocuments: spec.staticDocuments,
    staticOrder: spec.staticOrder,
  });
  if (sharedRegistry.size > MAX_SHARED_ITEMS) sharedRegistry.clear();
  const lean = (lastLean = leanSet([leanChain(baseline, sharedRegistry), leanChain(candidate, sharedRegistry)], lastLean));
  const unknowns = undeterminedDecider(baseline, candidate, spec);
  return async (request, namespace, authorization) => {
    const sim = simOptionsOf(spec, namespace, authorization);
    const unknown = await unknowns.of(request, namespace);
    if (unknown) {
      const decided = !unknown.oldObject && !unknown.namespace && !unknown.conversion ? await leanUnasked(lean, request, sim) : undefined;
      if (decided) return decided;
      const undetermined = await unknowns.decide(request, sim, unknown);
      if (undetermined) {
        countLeanFallback('what the replay does not know of the request may be read');
        return undetermined;
      }
    }
    const [lb, lc] = await leanVerdicts(lean, request, sim, DEFAULT_CEL);
    if (lb && lc) return { baseline: leanDecision(lb), candidate: leanDecision(lc) };
    const cel = requestCel(spec.kubernetesVersion);
    const [b, c] = await Promise.all([
      lb ? leanDecision(lb) : decide(baseline, request, sim, cel),
      lc ? leanDecision(lc) : decide(candidate, request, sim, cel),
    ]);
    return { baseline: b, candidate: c };
  };
}

/**
 * The decider that explains every request: both chains through simulatePrepared (and the probe
 * when denied), one CEL memo per request. What chainDecider gave before its lean verdicts, and what
 * they are tested against (lean.test.ts).
 */
export function fullDecider(spec: ChainSpec): Decider {
  const baseline = prepareChain(spec.baseline, { kubernetesVersion: spec.kubernetesVersion });
  const candidate = prepareChain(spec.candidate, {
    kubernetesVersion: spec.kubernetesVersion,
    staticDocuments: spec.staticDocuments,
    staticOrder: spec.staticOrder,
  });
  const unknowns = undeterminedDecider(baseline, candidate, spec);
  return async (request, namespace, authorization) => {
    const sim = simOptionsOf(spec, namespace, authorization);
    const unknown = await unknowns.of(request, namespace);
    const undetermined = unknown && (await unknowns.decide(request, sim, unknown));
    if (undetermined) return undetermined;
    const cel = requestCel(spec.kubernetesVersion);
    const [b, c] = await Promise.all([decide(baseline, request, sim, cel), decide(candidate, request, sim, cel)]);
    return { baseline: b, candidate: c };
  };
}

/**
 * The engine the lean path batches on (src/cel, no memo: each distinct expression of a request is
 * asked once anyway; its inputs go with the batch). One expression (a plugin run in full asks one
 * at a time, through its memo) is a batch of one with its inputs, as the engine's evaluate is: one
 * round trip where storing the inputs, evaluating and dropping them were three.
 */
const DEFAULT_CEL: PolicyCel = {
  evaluate: async (expression, context, inputs, options) =>
    // evaluateBatchOnce answers one result per item, failures included
    (await evaluateBatchOnce([options ? { expression, context, options } : { expression, context }], inputs))[0]!,
  evaluateBatch: (items, inputs, json) => evaluateBatchOnce(items, inputs, json),
};

/** A lean verdict as decisionOf words the full run's (the same members, in its order). */
const leanDecision = (v: LeanVerdict): Decision => ({
  allowed: v.allowed,
  deniedBy: v.deniedBy ?? null,
  warnings: v.warnings,
  ...namesOf('warnedBy', v.warnedBy),
  audited: v.audited,
  calls: v.calls,
  mutated: v.mutated,
  ...namesOf('mutatedBy', v.mutatedBy),
  ...(v.denials ? { denials: v.denials } : {}),
});

/** A decision's `mutatedBy` or `warnedBy`: each once, sorted (the lean and the full run may meet them in their own order); nothing when none. */
const namesOf = <K extends 'mutatedBy' | 'warnedBy'>(key: K, names: readonly string[]): Partial<Record<K, string[]>> =>
  names.length ? ({ [key]: [...new Set(names)].sort() } as Record<K, string[]>) : {};

function decisionOf(r: SimResult, all?: SimResult): Decision {
  const denial = (d: { kind: string; name: string; binding?: string; webhook?: string; message?: string }): Denial => ({
    kind: d.kind,
    name: d.name,
    ...(d.binding ? { binding: d.binding } : {}),
    ...(d.webhook ? { webhook: d.webhook } : {}),
    message: d.message ?? '',
  });
  const out: Decision = {
    allowed: r.allowed,
    deniedBy: r.deniedBy ? denial(r.deniedBy) : null,
    warnings: r.warnings,
    ...namesOf('warnedBy', warnersOf(r.steps)),
    audited: Object.keys(r.auditAnnotations),
    calls: [...new Set(r.steps.filter(webhookCalled).map((s) => s.webhook!))],
    mutated: r.patches.length > 0,
    ...namesOf(
      'mutatedBy',
      r.patches.map((p) => p.mutator),
    ),
  };
  if (all) {
    const denials = all.steps.filter((s) => s.outcome === 'denied' || s.outcome === 'error-rejected').map(denial);
    if (denials.length > 1) out.denials = denials;
  }
  return out;
}

export function changeOf(baseline: Decision, candidate: Decision, sameUnknown?: boolean): Change {
  if ((baseline.undetermined || candidate.undetermined) && !(sameUnknown && alike(baseline, candidate))) return 'undetermined';
  if (baseline.allowed && !candidate.allowed) return 'newly-denied';
  if (!baseline.allowed && candidate.allowed) return 'no-longer-denied';
  if (!candidate.allowed) return 'unchanged';
  if (candidate.warnings.some((w) => !baseline.warnings.includes(w))) return 'newly-warned';
  if (candidate.mutated && !baseline.mutated) return 'newly-mutated';
  if (candidate.audited.some((a) => !baseline.audited.includes(a))) return 'newly-audited';
  return 'unchanged';
}

/** Runs one request through a chain: simulate, and when it is denied a probe run for every denial. `cel`: the request's (requestCel), shared by its runs. */
async function decide(
  chain: PreparedChain,
  request: AdmissionRequest,
  sim: SimOptions,
  cel: PolicyCel,
  unknown?: { readers: Readers; reach: UnknownReach },
): Promise<Decision> {
  // whether an evaluation of the client's run may have asked the authorizer (asksAuthorizer)
  const asked = { authorizer: false };
  const r = await simulatePrepared(chain, request, sim, unknown ? noting(cel, asked) : cel);
  const d = decisionOf(r, r.allowed ? undefined : await probePrepared(chain, request, sim, cel));
  const read = unknown ? unknownRead(r, unknown.readers, unknown.reach, asked.authorizer) : [];
  return read.length ? { ...d, undetermined: read } : d;
}

/**
 * What the replay does not know of a request: an update or a delete always has an old object at
 * the apiserver, a namespaced request a Namespace (a request on the Namespace itself reads its
 * object), and a chain that asks the authorizer its answers (the apiserver's allow everything for
 * system:masters: then only a check for another principal); undefined when it knows all it reads.
 */
function unknownOf(r: AdmissionRequest, namespace: unknown, readers: readonly Readers[], conversion: boolean): Unknown | undefined {
  const oldObject = (r.operation === 'UPDATE' || r.operation === 'DELETE') && r.oldObject === undefined;
  const ns = namespace === undefined && !!str(r.namespace) && !isNamespaceResource(r);
  const others = !!r.userInfo?.groups?.includes(PRIVILEGED_GROUP);
  const authorizer = readers.some((x) => asksAuthorizer(x, others)) ? (others ? 'others' : 'all') : undefined;
  return oldObject || ns || authorizer || conversion
    ? {
        ...(oldObject ? { oldObject } : {}),
        ...(ns ? { namespace: ns } : {}),
        ...(authorizer ? { authorizer } : {}),
        ...(conversion ? { conversion } : {}),
      }
    : undefined;
}

/**
 * Whether either chain serves the request's resource in another version whose object the
 * apiserver converts in ways the simulator does not (convertsExactly: autoscaling/v1 and v2
 * HorizontalPodAutoscalers); per resource and kind, as the chains' discoveries answer.
 */
function conversionsOf(chains: readonly PreparedChain[]): (r: AdmissionRequest) => Promise<boolean> {
  const known = new Map<string, boolean>();
  return async (r) => {
    const gvr = r.resource;
    if (!gvr) return false;
    const key = `${gvr.group}/${gvr.version}/${gvr.resource}/${r.subResource ?? ''}/${r.kind?.kind ?? ''}`;
    let inexact = known.get(key);
    if (inexact === undefined) {
      inexact = false;
      for (const chain of chains) {
        const others = chain.discovery
          .equivalents(gvr, r.subResource ?? '')
          .filter((e) => e.resource.version !== gvr.version || e.resource.group !== gvr.group);
        if (!others.length) continue;
        await loadTypedData(chain.kubernetesVersion);
        const at = { request: r, discovery: chain.discovery, options: { kubernetesVersion: chain.kubernetesVersion } };
        if (others.some((e) => !convertsExactly(at, e))) inexact = true;
      }
      known.set(key, inexact);
    }
    return inexact;
  };
}

/**
 * Both chains' lean verdicts on a request whose only unknown is the authorizer, where no answer
 * they used may have asked it (each batch's answers, kept ones included: SimOptions.observe, and
 * the engine's own, through `noting`): its answers cannot have changed them. Undefined otherwise.
 */
async function leanUnasked(lean: LeanSet, request: AdmissionRequest, sim: SimOptions): Promise<DecisionPair | undefined> {
  const asked = { authorizer: false };
  const seen = noting(DEFAULT_CEL, asked);
  const [lb, lc] = await leanVerdicts(lean, request, { ...sim, observe: (rs) => rs.forEach((r) => notes(r, asked)) }, seen);
  return lb && lc && !asked.authorizer ? { baseline: leanDecision(lb), candidate: leanDecision(lc) } : undefined;
}

/**
 * A CEL engine that notes whether an evaluation may have asked the authorizer: a check costs
 * AUTHORIZER_CHECK_COST whatever it answers, so an answer that cost less asked none (its answers
 * cannot have changed it); a failure of unknown cost may have.
 */
function noting(cel: PolicyCel, asked: { authorizer: boolean }): PolicyCel {
  const note = (r: CelEvalResult): CelEvalResult => notes(r, asked);
  const batch = cel.evaluateBatch?.bind(cel);
  return {
    evaluate: async (expression, context, inputs, options) => note(await cel.evaluate(expression, context, inputs, options)),
    ...(batch ? { evaluateBatch: async (items, inputs, json) => (await batch(items, inputs, json)).map(note) } : {}),
  };
}

/** Notes an answer that may have asked the authorizer (its cost at or past a check's, or unknown). */
function notes(r: CelEvalResult, asked: { authorizer: boolean }): CelEvalResult {
  if ((r.cost ?? AUTHORIZER_CHECK_COST) >= AUTHORIZER_CHECK_COST) asked.authorizer = true;
  return r;
}

/** Two decisions alike in all the report shows. */
const alike = (a: Decision, b: Decision): boolean => {
  const { undetermined: _a, ...x } = a;
  const { undetermined: _b, ...y } = b;
  return JSON.stringify(x) === JSON.stringify(y);
};

/**
 * Requests of which the replay does not know what a decision may read (`unknownOf`): undefined
 * where it knows all (no promise), or where neither chain may read what is unknown (no plugin that
 * may match the request reads it in its CEL or matches by its labels: `mayRead`): the request is
 * decided as any other, what is unknown cannot change the decision. Else both chains through the
 * full simulation (its steps say which policies and webhooks evaluated CEL), each decision marked
 * with those that read it (`unknownRead`).
 */
function undeterminedDecider(baseline: PreparedChain, candidate: PreparedChain, spec: ChainSpec) {
  let known: [Readers, Readers] | undefined;
  const readers = () => (known ??= [readersOf(baseline), readersOf(candidate)]);
  const conversion = conversionsOf([baseline, candidate]);
  return {
    of: async (request: AdmissionRequest, namespace: unknown) => unknownOf(request, namespace, readers(), await conversion(request)),
    decide: decideUnknown,
  };

  async function decideUnknown(request: AdmissionRequest, sim: SimOptions, unknown: Unknown): Promise<DecisionPair | undefined> {
    const [rb, rc] = readers();
    const [xb, xc] = await Promise.all([
      unknownReach(baseline, request, sim, DEFAULT_CEL, unknown),
      unknownReach(candidate, request, sim, DEFAULT_CEL, unknown),
    ]);
    if (!mayRead(rb, xb) && !mayRead(rc, xc)) return undefined;
    const cel = requestCel(spec.kubernetesVersion);
    const [b, c] = await Promise.all([
      decide(baseline, request, sim, cel, { readers: rb, reach: xb }),
      decide(candidate, request, sim, cel, { readers: rc, reach: xc }),
    ]);
    const read = [...(b.undetermined ?? []), ...(c.undetermined ?? [])];
    const same =
      read.every((k) => rb.texts.has(k) && rb.texts.get(k) === rc.texts.get(k)) &&
      JSON.stringify(b.undetermined ?? []) === JSON.stringify(c.undetermined ?? []);
    return { baseline: b, candidate: c, ...(read.length && same ? { sameUnknown: true as const } : {}) };
  }
}
