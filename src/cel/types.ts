/**
 * The contract between the CEL engine (cel-go + k8s.io/apiserver compiled to
 * WebAssembly, see /wasm) and the rest of the product. Plain data only.
 */

import type { KubernetesVersion } from '../base/releases';

/** Where an expression lives; each has exactly the variables and result type the apiserver uses. */
export type CelContext =
  | 'webhook-matchCondition'
  | 'vap-matchCondition'
  | 'vap-validation'
  | 'vap-messageExpression'
  | 'vap-auditAnnotation'
  | 'vap-variable'
  | 'map-matchCondition'
  | 'map-applyConfiguration'
  | 'map-jsonPatch';

export const CEL_CONTEXTS: readonly CelContext[] = [
  'webhook-matchCondition',
  'vap-matchCondition',
  'vap-validation',
  'vap-messageExpression',
  'vap-auditAnnotation',
  'vap-variable',
  'map-matchCondition',
  'map-applyConfiguration',
  'map-jsonPatch',
];

/** What the surrounding policy declares, which changes the environment. */
export interface CelCompileOptions {
  /** The target Kubernetes release: its CEL environment (libraries, cost limits); absent = 1.36. */
  kubernetesVersion?: KubernetesVersion;
  /** The policy has `spec.paramKind`: `params` is declared. */
  hasParams?: boolean;
  /** The policy's `spec.variables`, in order; each is declared as `variables.<name>` with its expression's type. */
  variables?: readonly { name: string; expression: string }[];
  /**
   * Compile a policy expression as validation.go's stateless compiler does (`createCompiler(false)`:
   * `variables` is not declared): matchConditions, and a ValidatingAdmissionPolicy without
   * spec.variables. Only `compile` reads it; evaluation composes, as the admission plugins do.
   */
  stateless?: boolean;
  /**
   * Compile as the apiserver compiles an expression it already stores (`environment.StoredExpressions`:
   * the admission plugins, and validation of an update that keeps the expression), not as one being
   * written (`NewExpressions`, the default): a library introduced in the target release is usable
   * in stored expressions there, in new ones only from the next release. The policy's variables
   * are compiled the same way; `stateless` does not apply. Only `compile` reads it.
   */
  stored?: boolean;
  /**
   * For the `vap-variable` context (also MutatingAdmissionPolicy `spec.variables`): only the
   * variables *before* this one in `variables` are declared, as the apiserver compiles them in order.
   */
  variableName?: string;
  /**
   * Evaluation only: also return `trace`, every sub-expression's value (wasm/trace.go). The
   * result and the cost are the same as without it; off, evaluation costs what it did.
   */
  trace?: boolean;
}

/**
 * One node of the checked AST after a traced evaluation (`trace: true`), in pre-order.
 * Offsets are UTF-16 code units into the expression (JavaScript string indices, Monaco
 * columns within a line). `start`/`end` are cel-go's `SourceInfo.GetOffsetRange` of the node
 * (for a call: its operator or function name); `from`/`to` span the whole sub-expression.
 * `value` as cel-go's evaluation state recorded it (JSON-like, as `CelEvalSuccess.value`; in a
 * comprehension the last iteration's), or `error`; `ran: false` for short-circuited operands,
 * untaken `?:` branches and macro bodies never entered.
 */
export interface CelTraceNode {
  start: number;
  end: number;
  from: number;
  to: number;
  value?: unknown;
  error?: string;
  ran: boolean;
  /**
   * For a node that can run more than once in one evaluation and decides a branch — a macro's
   * predicate (`all`, `exists`, `exists_one`, `filter`, `map(x, p, f)`), and inside a macro's body
   * each operand of `&&`/`||` and each `?:` condition — how many of its evaluations were true and
   * false (errors and other values count on neither side); absent when it never ran.
   */
  seen?: { true: number; false: number };
}

/** A compile problem at a 1-based line and column of the expression. */
export interface CelIssue {
  message: string;
  line: number;
  column: number;
}

// ---------------------------------------------------------------------------
// Outcomes: what failed, as data. No caller reads the message to learn what happened.

/**
 * Why the engine gave no value, from the distinctions cel-go and k8s.io/apiserver make
 * (the Go side says which; the page says `unavailable` and `timeout`):
 * - `compile`: the expression does not compile where it lives (cel-go's issues, the result
 *   type, program instantiation: the apiserver's field.Invalid/Required/InternalError, `errorType`);
 * - `runtime`: evaluation failed (`expression '…' resulted in error: …`, a MAP type mismatch);
 * - `cost-exceeded`: an apiserver cost limit stopped it, `limit` says which: the per-expression
 *   limit (cel-go's CostLimitExceeded) or the runtime budget of the policy or match conditions
 *   (apiserver `cel.ErrOutOfBudget`);
 * - `inputs`: the test inputs cannot be used (not JSON-like, not an AdmissionRequest, unknown id);
 * - `engine`: the engine failed to answer (a panic turned into an error, a malformed answer);
 * - `unavailable`: the engine is not loaded, or failed to load;
 * - `timeout`: the worker's wall-clock deadline passed (the worker was replaced).
 */
export type CelErrorKind = 'compile' | 'runtime' | 'cost-exceeded' | 'inputs' | 'engine' | 'unavailable' | 'timeout';

/** Which apiserver cost limit a `cost-exceeded` outcome hit. */
export type CelCostLimit = 'per-expression' | 'budget';

/**
 * What each kind means for a caller, as data: `verdict` is true when the outcome is the answer to
 * the question (the expression with these inputs at this release: the same question gives the same
 * answer, so it may be cached and shown as the expression's result); false when the engine could
 * not answer (ask again later).
 */
export const CEL_ERROR_KINDS: Readonly<Record<CelErrorKind, { verdict: boolean }>> = {
  compile: { verdict: true },
  runtime: { verdict: true },
  'cost-exceeded': { verdict: true },
  inputs: { verdict: true },
  engine: { verdict: false },
  unavailable: { verdict: false },
  timeout: { verdict: false },
};

/** A failure: its kind and the message as the apiserver (or the page, for unavailable/timeout) words it. */
export interface CelFailure {
  ok: false;
  kind: CelErrorKind;
  /** For `cost-exceeded`: which limit. */
  limit?: CelCostLimit;
  message: string;
}

/** The engine could not answer (unavailable, timed out, failed): not a result of the expression. */
export function isEngineFailure(r: { ok: boolean; kind?: CelErrorKind }): boolean {
  return !r.ok && r.kind !== undefined && !CEL_ERROR_KINDS[r.kind].verdict;
}

/** How the apiserver files a compile error: field.Invalid, field.Required or field.InternalError. */
export type CelErrorType = 'Invalid' | 'Required' | 'Internal';

export interface CelCompileResult {
  ok: boolean;
  /** The result type as cel-go prints it: `bool`, `string`, `map(string, dyn)`. */
  type?: string;
  /** When not ok: what failed. The engine always says; a result made by hand without it is a `compile` error. */
  kind?: CelErrorKind;
  /** When not ok: the error detail as the apiserver words it, e.g. `compilation failed: ERROR: <input>:1:5: …`. */
  message?: string;
  /** When not ok and kind is `compile`: how the apiserver files it. */
  errorType?: CelErrorType;
  issues: CelIssue[];
  /** The static cost estimate. */
  cost?: { min: number; max: number };
}

/** What one authorizer check costs at run time, whatever it answers (k8s.io/apiserver pkg/cel/library cost.go `CallCost`: two per expression). */
export const AUTHORIZER_CHECK_COST = 350_000;

/** One authorizer rule of a test input: first match wins; no match means NoOpinion. */
export interface AuthorizerRule {
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  user?: string;
  /** The principal is a member of this group (exactly: no wildcard). */
  userGroup?: string;
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
  error?: string;
}

/** Test inputs, as plain JSON-like values. */
export interface CelInputs {
  object?: unknown;
  oldObject?: unknown;
  request?: unknown;
  params?: unknown;
  namespaceObject?: unknown;
  /** Values of `variables.<name>` given directly (otherwise computed from CelCompileOptions.variables). */
  variables?: Record<string, unknown>;
  authorizer?: { rules: AuthorizerRule[] };
}

/** A value, or a failure with its kind. */
export type CelEvalResult = CelEvalSuccess | CelEvalFailure;

export interface CelEvalSuccess {
  ok: true;
  value: unknown;
  /** The runtime type name (`int`, `double`, `map`, `list`, `google.protobuf.Timestamp`, ...). */
  type: string;
  /** The budget spent, including the variables the expression pulled in. */
  cost: number;
  /** The checked (static) result type of the expression, e.g. `dyn`, `bool`. */
  staticType?: string;
  /** The value in CEL literal syntax (`1.0`, `3u`, `duration("5s")`, `{"a": 1}`). */
  display?: string;
  /** With the `trace` option. */
  trace?: CelTraceNode[];
}

export interface CelEvalFailure extends CelFailure {
  /** `compile` when kind is `compile`, else `runtime` (where the apiserver would have stopped). */
  stage: 'compile' | 'runtime';
  issues?: CelIssue[];
  /** The budget spent before it failed, when known. */
  cost?: number;
  /** With the `trace` option, when the evaluation ran (not past the cost limit): where the error started. */
  trace?: CelTraceNode[];
}

/** Stored inputs (setInputs): accepted, or why not. */
export type CelInputsResult = { ok: true } | CelFailure;

/** A synchronous compiler, as validation needs one (Node: the WASM directly; browser: a cache fed by the worker). */
export interface CelCompiler {
  /** undefined means "not known yet" (e.g. the worker has not answered): validation skips the CEL check. */
  compile(expression: string, context: CelContext, options?: CelCompileOptions): CelCompileResult | undefined;
}

/**
 * Where the worker's start-up went: fetch + compile of cel.wasm, then the engine's start:
 * instantiating the pre-initialised module (scripts/wasm-snapshot.mjs), or, for a plain build
 * (CEL_WASM_SNAPSHOT=0), Go's start (runtime, package initialisers, warm-up).
 */
export interface CelStartPhases {
  /** From the worker's creation to its init message being handled (loading the worker's script). */
  bootMs: number;
  /** Absolute time (the worker's timeOrigin) the worker was created. */
  createdAt?: number;
  /** The worker was created by the page's starter (start.ts) before the app's scripts ran, not by the app. */
  fromStarter?: boolean;
  /** How long the starter's worker waited for the app to allow the compile or the download (browser.ts `allow`). */
  heldMs?: number;
  /** Fetch (or read from the Cache Storage) and compile, without the wait above. */
  compileMs: number;
  engineStartMs: number;
  /**
   * Where the compiled bytes came from: the server (through the HTTP cache), the worker's
   * Cache Storage (a later visit of the same build), or the page (a worker restarted after a
   * deadline gets the compiled module).
   */
  engineSource?: 'network' | 'cache' | 'transferred';
  /** From the worker posting "ready" to the page handling it (the page's main thread was busy). */
  deliveryMs?: number;
  /** Absolute time (timeOrigin + now) the worker posted "ready". */
  postedAt: number;
}

/**
 * One expression of evaluateBatch. Items with the same `group` are evaluated as the
 * apiserver evaluates one policy for one request: they share the cost budget (match
 * conditions their own; the rest one budget, used in order) and compute each variable
 * once; when the budget runs out, every item of the group fails with the apiserver's
 * message. Items without a group are independent, as separate evaluate() calls.
 */
export interface CelBatchItem {
  expression: string;
  context: CelContext;
  options?: CelCompileOptions;
  group?: string;
}

/** One function overload as declared in the environment. */
export interface CelOverload {
  id: string;
  /** `string.startsWith(string) -> bool` or `size(list(A)) -> int`. */
  signature: string;
  member: boolean;
  receiver?: string;
  args: string[];
  result: string;
  doc?: string;
  examples?: string[];
}

export interface CelFunction {
  name: string;
  doc?: string;
  overloads: CelOverload[];
}

export interface CelMacro {
  name: string;
  argCount: number;
  varArg: boolean;
  receiver: boolean;
  doc?: string;
  examples?: string[];
}

/** What the environment of a context declares (read from the cel.Env). */
export interface CelDeclarations {
  ok: boolean;
  /** When not ok: what failed (the engine could not answer, or an unknown context: `compile`). */
  kind?: CelErrorKind;
  message?: string;
  context: CelContext;
  /** The result types the context requires (`bool`; `string`, `null_type`; `any`, `dyn`; `Object`; `list(JSONPatch)`). */
  resultTypes: string[];
  variables: { name: string; type: string; doc?: string }[];
  /** Fields of every object type reachable from the variables, by type name (`kubernetes.AdmissionRequest`, `kubernetes.variables`, ...). */
  types: Record<string, { name: string; type: string }[]>;
  functions: CelFunction[];
  macros: CelMacro[];
}

/** The checked type of the smallest sub-expression at a position. Offsets are 0-based code points. */
export interface CelTypeAt {
  ok: boolean;
  type?: string;
  start?: number;
  end?: number;
  /** The referenced variable name or the chosen overload ids. */
  detail?: string;
}

/** The variables whose reads `reads` reports (the authorizer's rules are always sent whole; an expression that uses the authorizer reads the request whole). */
export const READ_ROOTS = ['object', 'oldObject', 'namespaceObject', 'params', 'request'] as const;
export type ReadRoot = (typeof READ_ROOTS)[number];

/**
 * What an expression (with its policy's variables) can read of each object: null when a variable
 * is read whole, else its field paths (`object.metadata.name` → ["metadata", "name"]; none: not
 * read). wasm/reads.go says why a projection to these paths evaluates as the whole input does.
 */
export type CelReads = Record<ReadRoot, string[][] | null>;

/** Versions and limits reported by the engine. */
export interface CelEngineInfo {
  kubernetesVersion: string;
  compatibilityVersion: string;
  apiserverModule: string;
  celGoModule: string;
  perCallLimit: number;
  runtimeCelCostBudget: number;
  runtimeCelCostBudgetMatchConditions: number;
  maxEvaluatedMessageExpressionSizeBytes: number;
  checkFrequency: number;
}

/** k8s.io/apiserver/pkg/apis/cel/config.go (unchanged since 1.27; the engine reports the same numbers in CelEngineInfo). */
export const CEL_LIMITS = {
  /** Per-expression runtime cost limit: exceeding it aborts with "operation cancelled: actual cost limit exceeded". */
  perCallLimit: 1_000_000,
  /** Per policy evaluation (validations + messageExpressions + the variables they use), and per MAP mutation. */
  runtimeCelCostBudget: 10_000_000,
  /** Per webhook / per policy-binding evaluation of matchConditions. */
  runtimeCelCostBudgetMatchConditions: 2_500_000,
  /** Longer messageExpression results fall back to `message`. */
  maxEvaluatedMessageExpressionSizeBytes: 5 * 1024,
  /** Comprehension iterations between interrupt checks. */
  checkFrequency: 100,
} as const;

/** A custom resource's schema for type checking (a CustomResourceDefinition's `openAPIV3Schema` of one version). */
export interface CelTypeCheckCRD {
  group: string;
  version: string;
  kind: string;
  schema: unknown;
}

/** What type checking needs beside the policy: the REST mapping of matchConstraints' resources and the schemas. */
export interface CelTypeCheckOptions {
  /** "1.30" … "1.37"; also picks the schema asset (schemaReleaseFor). */
  kubernetesVersion?: string;
  /** resource → kind, as the controller's RESTMapper answers (built-ins served by the release and the workspace's custom resources). */
  mappings: readonly { group: string; version: string; resource: string; kind: string }[];
  crds?: readonly CelTypeCheckCRD[];
}

/** One entry of `status.typeChecking.expressionWarnings`. */
export interface CelExpressionWarning {
  /** `spec.validations[0].expression` */
  fieldRef: string;
  /** The controller's text: one paragraph per checked kind (`apps/v1, Kind=Deployment: ERROR: <input>:1:12: …`). */
  warning: string;
}

export type CelTypeCheckResult = { ok: true; warnings: CelExpressionWarning[]; schemaRelease: string } | (CelFailure & { warnings: CelExpressionWarning[] });
