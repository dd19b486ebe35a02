/**
 * The contract between the CEL engine (cel-go + k8s.io/apiserver compiled to
 * WebAssembly, see /wasm) and the rest of the product. Plain data only.
 */

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
  /** The policy has `spec.paramKind`: `params` is declared. */
  hasParams?: boolean;
  /** The policy's `spec.variables`, in order; each is declared as `variables.<name>` with its expression's type. */
  variables?: readonly { name: string; expression: string }[];
}

/** A compile problem at a 1-based line and column of the expression. */
export interface CelIssue {
  message: string;
  line: number;
  column: number;
}

export interface CelCompileResult {
  ok: boolean;
  /** The result type as cel-go prints it: `bool`, `string`, `map(string, dyn)`. */
  type?: string;
  /** When not ok: the error detail as the apiserver words it, e.g. `compilation failed: ERROR: <input>:1:5: …`. */
  message?: string;
  issues: CelIssue[];
  /** The static cost estimate. */
  cost?: { min: number; max: number };
}

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

export type CelEvalResult =
  | { ok: true; value: unknown; type: string; cost: number }
  | { ok: false; stage: 'compile' | 'runtime'; message: string; issues?: CelIssue[] };

/** A synchronous compiler, as validation needs one (Node: the WASM directly; browser: a cache fed by the worker). */
export interface CelCompiler {
  /** undefined means "not known yet" (e.g. the worker has not answered): validation skips the CEL check. */
  compile(expression: string, context: CelContext, options?: CelCompileOptions): CelCompileResult | undefined;
}
