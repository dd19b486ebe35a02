/**
 * The admission simulator's public types: a request sent through the workspace's admission
 * chain (`simulate`) and the critical requests a workspace would reject while its webhooks
 * are down (`lockoutReport`).
 */
import type { AuthorizerRule, CelEvalResult } from '../cel/types';
import type { KubernetesVersion } from '../base/releases';
import type { PlatformId } from '../base/platforms';
import type { JsonPatchOp } from '../base/jsonpatch';
import type { AdmissionRequest } from '../request/model';
import type { ConditionalAuthorization, WebhookResponse } from '../request/scenario';
import type { TracedExpression } from '../policy/coverage';
import type { StaticOrder } from '../k8s/static-manifests';

export type { ConditionalAuthorization, JsonPatchOp, WebhookResponse };

/** The request to simulate: the one test-input model's admission request. */
export type SimRequest = AdmissionRequest;

export interface SimOptions {
  /** The response each webhook gives, keyed by webhook name (`webhooks[i].name`); default 'allow'. */
  webhooks?: Record<string, WebhookResponse>;
  /** Namespace objects (namespaceSelector, `namespaceObject`); Namespaces in `objects` count too, these take precedence. */
  namespaces?: unknown[];
  /** Authorizer answers for `authorizer` in CEL (the CEL test-input rules). */
  authorizer?: AuthorizerRule[];
  /**
   * Lean verdicts (lean.ts): each batch's answers as they are used, kept ones included, which reach
   * no engine (the impact replay tells by their cost whether an authorizer check ran).
   */
  observe?: (answers: readonly CelEvalResult[]) => void;
  /** The Kubernetes release simulated (default the newest). */
  kubernetesVersion?: KubernetesVersion;
  /** Indices into `objects` of the documents loaded from static manifests (evaluated first; src/k8s/static-manifests.ts). */
  staticDocuments?: readonly number[];
  /** Where static mutating webhooks run among the API ones (the MutatingAdmissionWebhook plugin's `staticOrder`; default StaticFirst; a release without the field: StaticFirst). */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults (base/releases.ts WORKSPACE_GATES). */
  featureGates?: readonly string[];
  /** With ConditionalAuthorization on: the authorizer's decision on the request, assumed (absent: an unconditional allow). */
  conditionalAuthorization?: ConditionalAuthorization;
  /** Trace the policies' expressions (SimStep.expressions); results and costs are the same. */
  trace?: boolean;
}

/** A workspace document: its kind, name and index in `objects` (-1 when it is not one of them, e.g. a Namespace from options). */
export interface DocumentRef {
  kind: string;
  name: string;
  index: number;
}

export type SimPhase = 'mutating' | 'validating';

export type SimOutcome = 'skipped' | 'called' | 'admitted' | 'denied' | 'warned' | 'audited' | 'patched' | 'error-ignored' | 'error-rejected' | 'reinvoked';

/** The kinds a step is about. */
export type SimStepKind =
  | 'MutatingWebhookConfiguration'
  | 'ValidatingWebhookConfiguration'
  | 'MutatingAdmissionPolicy'
  | 'ValidatingAdmissionPolicy'
  /** A built-in plugin with no document (the step's document has index -1). */
  | 'AuthorizationConditionsEnforcer';

export interface SimStep {
  phase: SimPhase;
  /** The configuration or policy kind. */
  kind: SimStepKind;
  /** The configuration or policy name. */
  name: string;
  /** The webhook (webhook configurations). */
  webhook?: string;
  /** The binding (policies; absent when the step is about the policy as a whole). */
  binding?: string;
  outcome: SimOutcome;
  /** Why, in the apiserver's terms. */
  reason: string;
  /** The document whose field decided the step (the binding's for matchResources, a param's …). */
  document: DocumentRef;
  /** The field that decided the step, in the one path language (`webhooks[2].namespaceSelector`, `spec.validations[0].expression`); '' = the document. */
  path: string;
  /** 0: the first pass; 1: the reinvocation round (mutating only). */
  round: 0 | 1;
  /** The webhook or policy is loaded from a static manifest (it runs before the API objects of its plugin). */
  static?: true;
  /** Webhooks: failurePolicy, timeoutSeconds and sideEffects as the apiserver reads them (defaulted). */
  failurePolicy?: string;
  timeoutSeconds?: number;
  sideEffects?: string;
  /** The message of a denial or error, as the client would see it. */
  message?: string;
  /** The JSON Patch this step applied (webhook patches; the changes a MutatingAdmissionPolicy made). */
  patch?: JsonPatchOp[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
  /**
   * Matched through an equivalent resource of another version (matchPolicy Equivalent): the
   * apiVersion the apiserver converts the object to, and whether the simulator's conversion (the
   * apiVersion alone) is the apiserver's (context.ts convertsExactly).
   */
  conversion?: { to: string; exact: boolean };
  /** Where this simulation may differ from a real cluster, or input it had to assume. */
  notes?: string[];
  /** With SimOptions.trace, a policy binding's step: its expressions with their sub-expression values. */
  expressions?: TracedExpression[];
}

export interface SimDenial {
  /** The step kind that denied (or 'Namespace' when the namespace does not exist). */
  kind: SimStepKind | 'Namespace';
  name: string;
  webhook?: string;
  binding?: string;
  /** The status message the client sees, worded as the apiserver words it. */
  message: string;
  /** metav1.StatusReason (Forbidden, Invalid, InternalError, BadRequest, NotFound …). */
  reason?: string;
  /** HTTP status code. */
  code: number;
}

export interface SimResult {
  allowed: boolean;
  deniedBy?: SimDenial;
  /** Warnings the client gets (webhooks, policy bindings with Warn), in order. */
  warnings: string[];
  /** Audit annotations added to the request's audit event. */
  auditAnnotations: Record<string, string>;
  /** The object after all mutations (the request's object as the apiserver decoded it when nothing mutated). */
  object: unknown;
  /** The request's object as the apiserver decoded it, before any mutation (src/k8s/typed): what `object` is compared with to show the mutations. */
  admitted?: unknown;
  /** Patches in the order applied; `by` is the webhook name or `<policy>/<binding>`, `mutator` who applied it as the Impact report names it (context.ts actorOf). */
  patches: { by: string; ops: JsonPatchOp[]; mutator: string }[];
  steps: SimStep[];
  /** Request-level notes: bad or assumed input, where a real cluster may differ. */
  notes: string[];
}

/** A critical system request of the lockout table. */
export interface CriticalRequest {
  id: string;
  /** One line: who sends it and why it matters. */
  title: string;
  /** What breaks when it is rejected. */
  impact: string;
  request: SimRequest;
}

export interface LockoutFinding {
  /** The critical request (CriticalRequest.id) and its title. */
  request: string;
  title: string;
  impact: string;
  /** rejected: the request fails while the webhook is down; stalled: it waits for the webhook's timeout, then goes through. */
  effect: 'rejected' | 'stalled';
  /** The configuration or policy responsible. */
  kind: SimStepKind;
  name: string;
  webhook?: string;
  binding?: string;
  /** The field that makes it so (e.g. `webhooks[0].failurePolicy`, `webhooks[0].namespaceSelector`), and its document. */
  document: DocumentRef;
  path: string;
  /** Why, and the message the sender would get. */
  reason: string;
  message?: string;
  /** A static manifest: it cannot be deleted or edited through the API (only on the control-plane hosts' disks). */
  static?: true;
}

export interface LockoutReport {
  /** One line, e.g. "2 critical requests would be rejected while 'policy-guard' is down" (plain text: the UI shows it as it is). */
  headline: string;
  findings: LockoutFinding[];
  /** Every critical request checked, with what happened to it. */
  checked: { request: string; title: string; allowed: boolean; stalled: boolean; note?: string }[];
}

export interface LockoutOptions {
  /** Namespace objects; kube-system, kube-node-lease and the webhooks' namespaces are assumed with only their name label when absent. */
  namespaces?: unknown[];
  kubernetesVersion?: KubernetesVersion;
  /** A platform (base/platforms.ts): its Kubernetes release wins over kubernetesVersion, and its critical namespaces are checked too. */
  platform?: PlatformId;
  /** A webhook that fails open stalls a request when timeoutSeconds is at least this (default 10, the API default). */
  stallSeconds?: number;
  /** Indices of the documents loaded from static manifests. */
  staticDocuments?: readonly number[];
  /** Where static mutating webhooks run among the API ones (SimOptions.staticOrder): the findings come in the order the chain calls them, the first being the one whose rejection a request meets. */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults (SimOptions.featureGates). */
  featureGates?: readonly string[];
}
