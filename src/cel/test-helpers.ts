/** Shared helpers for the engine tests (real WASM, in-process). */
import { beforeAll, expect } from 'vitest';
import { celStatus, compile, evaluate, loadCel } from './index';
import type { CelCompileOptions, CelContext, CelInputs } from './types';

export function useEngine(): void {
  beforeAll(async () => {
    await loadCel();
    expect(celStatus().message).toBeUndefined();
    expect(celStatus().state).toBe('ready');
  }, 60_000);
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
