/**
 * Evaluating one expression of a policy or webhook for a run: the engine's answer as a
 * trace entry, worded as the apiserver words errors, and the traces of the variables.
 */
import type { CelBatchItem, CelCompileOptions, CelContext, CelEvalResult, CelInputs, CelTraceNode } from '../cel/types';
import { declaredVariables, declaresParams, type PolicyVariable } from '../k8s/cel-scope';
import type { Obj } from '../base/json';

/** The part of the CEL engine a run needs (src/cel `evaluate`). */
export interface PolicyCel {
  evaluate(expression: string, context: CelContext, inputs: CelInputs, options?: CelCompileOptions): Promise<CelEvalResult>;
  /**
   * Many independent expressions (no `group`) on one input in one round trip (src/cel `evaluateBatch`): each answer is what `evaluate` gives.
   * `inputsJson`: `JSON.stringify(inputs)`, where the caller made it already (the impact replay's kept answers: not made twice).
   */
  evaluateBatch?(items: readonly CelBatchItem[], inputs: CelInputs, inputsJson?: string): Promise<CelEvalResult[]>;
  /**
   * Collect, then decide: the expressions a run is about to ask for, sent to the engine at once
   * (one `evaluateBatch` per distinct inputs); the run's own `evaluate` calls then answer from
   * them. Only a hint: an expression listed and never asked changes nothing (its answer, error
   * or not, is never read), one asked and not listed goes to the engine on its own.
   */
  prefetch?(items: readonly PolicyExpressionOn[]): void;
  /**
   * Answers already known (the impact replay's lean batch of the same request): the run's own
   * `evaluate` calls on these expressions and inputs answer from them instead of the engine
   * (`items` is called when the run first asks for one).
   */
  know?(items: () => readonly (PolicyExpressionOn & { answer: CelEvalResult })[]): void;
}

/** One expression a policy or webhook may evaluate, with the compile options its run uses. */
export interface PolicyExpression {
  expression: string;
  context: CelContext;
  options: CelCompileOptions;
}

/** A PolicyExpression and the inputs it would be evaluated on. */
export interface PolicyExpressionOn extends PolicyExpression {
  inputs: CelInputs;
}

export interface ExpressionTrace {
  expression: string;
  ok: boolean;
  value?: unknown;
  type?: string;
  /** The error as the apiserver words it (`expression '…' resulted in error: …`, `compilation error: …`). */
  error?: string;
  cost: number;
  /** Each sub-expression's value, when the run asked for traces (CelCompileOptions.trace). */
  trace?: CelTraceNode[];
}

export interface VariableTrace extends ExpressionTrace {
  name: string;
  /** Some expression of the policy refers to it (directly or through other variables): Kubernetes evaluates it lazily on first use. */
  used: boolean;
}

export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

export async function evalExpr(
  cel: PolicyCel,
  expression: string,
  context: CelContext,
  inputs: CelInputs,
  options: CelCompileOptions,
): Promise<ExpressionTrace> {
  return expressionTrace(expression, await cel.evaluate(expression, context, inputs, options));
}

/** An evaluation's answer as a run records it (the error worded as the apiserver words it). */
export function expressionTrace(expression: string, r: CelEvalResult): ExpressionTrace {
  const trace = r.trace ? { trace: r.trace } : {};
  if (r.ok) return { expression, ok: true, value: r.value, type: r.type, cost: r.cost, ...trace };
  const cost = (r as { cost?: number }).cost ?? 0;
  return { expression, ok: false, error: r.stage === 'compile' ? `compilation error: ${r.message}` : r.message, cost, ...trace };
}

/** utilerrors.NewAggregate(errs).Error() */
export function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

/** Names of variables reachable from expressions (textual `variables.<name>`, then transitively). */
export function usedVariables(variables: readonly PolicyVariable[], expressions: readonly string[]): Set<string> {
  const used = new Set<string>();
  const refs = (e: string) => [...e.matchAll(/\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
  const queue = expressions.flatMap(refs);
  while (queue.length) {
    const n = queue.pop()!;
    if (used.has(n)) continue;
    used.add(n);
    const v = variables.find((x) => x.name === n);
    if (v) queue.push(...refs(v.expression));
  }
  return used;
}

/**
 * The compile options of one policy spec's expressions. A run per request asks with these same
 * objects, so the engine client keys and packs each once (their JSON holds every variable's
 * expression) instead of once a request. They depend on the spec's variables and paramKind only, so
 * they are made once per variables list (a run's defaulted copy of the spec keeps its list; lists are
 * read, never changed in place) and whether params are declared.
 */
export interface PolicyOptions {
  hasParams: boolean;
  variables: readonly PolicyVariable[];
  /** The policy's expressions (matchConditions, validations, messages, mutations): `variables` declared. */
  options: CelCompileOptions;
  /** `options` with `trace: true`. */
  traced: CelCompileOptions;
  /** Each variable's own: the variables before it declared (`variableName`); [untraced, traced]. */
  variable: ReadonlyMap<string, readonly [CelCompileOptions, CelCompileOptions]>;
}

/** By the spec's `variables` (NO_VARIABLES when it is not a list), then by hasParams. */
const policyOptionsOf = new WeakMap<object, { false?: PolicyOptions; true?: PolicyOptions }>();
const NO_VARIABLES = {};

export function policyOptions(spec: Obj): PolicyOptions {
  const key = Array.isArray(spec.variables) ? spec.variables : NO_VARIABLES;
  const hasParams = declaresParams(spec);
  let byParams = policyOptionsOf.get(key);
  if (!byParams) policyOptionsOf.set(key, (byParams = {}));
  const hit = byParams[`${hasParams}`];
  if (hit) return hit;
  const variables = declaredVariables(spec.variables);
  const options: CelCompileOptions = { hasParams, variables };
  const variable = new Map(
    variables.map((v) => {
      const own: CelCompileOptions = { hasParams, variables, variableName: v.name };
      return [v.name, [own, { ...own, trace: true }] as const];
    }),
  );
  return (byParams[`${hasParams}`] = { hasParams, variables, options, traced: { ...options, trace: true }, variable });
}

/** Every variable's value, each evaluated on its own with the variables before it (traced: with its sub-expression values). */
export async function traceVariables(
  cel: PolicyCel,
  { variables, variable }: PolicyOptions,
  used: Set<string>,
  inputs: CelInputs,
  trace = false,
): Promise<VariableTrace[]> {
  const out: VariableTrace[] = [];
  for (const v of variables) {
    const t = await evalExpr(cel, v.expression, 'vap-variable', inputs, variable.get(v.name)![trace ? 1 : 0]);
    out.push({ ...t, name: v.name, used: used.has(v.name) });
  }
  return out;
}
