/** Shared helpers for the engine tests (real WASM, in-process). */
import { beforeAll, expect } from 'vitest';
import { celStatus, compile, evaluate, evaluateBatch, loadCel } from './index';
import { isEngineFailure, type CelBatchItem, type CelCompileOptions, type CelContext, type CelEvalResult, type CelInputs } from './types';

/**
 * Loads the engine before the file's tests. `native`: the native engine or none (CEL_ENGINE=native:
 * loading fails when it is not built or older than wasm/), for the long differentials, whose
 * thousands of policies outgrow the in-process WebAssembly engine's memory.
 */
export function useEngine(engine?: 'native'): void {
  beforeAll(async () => {
    if (engine) process.env.CEL_ENGINE = engine;
    await loadCel();
    expect(celStatus().message).toBeUndefined();
    expect(celStatus().state).toBe('ready');
    if (engine) expect(celStatus().engine).toBe(engine);
  }, 60_000);
}

/**
 * The engine for tests that hold the Workbench's verdicts to another engine's (the differentials),
 * one per request: `failure` says when the engine itself failed (exited, out of memory, unavailable:
 * no answer about the expression), which admission takes for the policy's CEL error, and failurePolicy
 * Fail then for a denial that agrees with every denying oracle. The caller throws on it.
 */
export function watchedCel() {
  const note = (r: CelEvalResult): CelEvalResult => {
    if (isEngineFailure(r) && !r.ok) w.failure ??= `${r.kind}: ${r.message}`;
    return r;
  };
  const w = {
    failure: undefined as string | undefined,
    evaluate: async (expression: string, context: CelContext, inputs: CelInputs, options?: CelCompileOptions) =>
      note(await evaluate(expression, context, inputs, options)),
    evaluateBatch: async (items: readonly CelBatchItem[], inputs: CelInputs) => (await evaluateBatch(items, inputs)).map(note),
  };
  return w;
}

/** Evaluates and expects success; returns the value. */
export async function value(expression: string, inputs: CelInputs = {}, context: CelContext = 'vap-variable', options?: CelCompileOptions): Promise<unknown> {
  const r = await evaluate(expression, context, inputs, options);
  if (!r.ok) throw new Error(`${expression}: ${r.stage}: ${r.message}`);
  return r.value;
}

/** Evaluates and expects a runtime error; returns its message. */
export async function runtimeError(
  expression: string,
  inputs: CelInputs = {},
  context: CelContext = 'vap-variable',
  options?: CelCompileOptions,
): Promise<string> {
  const r = await evaluate(expression, context, inputs, options);
  if (r.ok) throw new Error(`${expression}: expected a runtime error, got ${JSON.stringify(r.value)}`);
  expect(r.stage).toBe('runtime');
  expect(r.kind).toMatch(/^(runtime|cost-exceeded)$/);
  return r.message;
}

/** Compiles and expects a failure; returns the apiserver's detail message. */
export async function compileError(expression: string, context: CelContext = 'vap-validation', options?: CelCompileOptions): Promise<string> {
  const r = await compile(expression, context, options);
  expect(r.ok, `${expression} should not compile in ${context}`).toBe(false);
  return r.message ?? '';
}

export async function compiles(expression: string, context: CelContext = 'vap-validation', options?: CelCompileOptions) {
  const r = await compile(expression, context, options);
  expect(r.message, `${expression} in ${context}`).toBeUndefined();
  expect(r.ok).toBe(true);
  return r;
}
