/**
 * Test helpers for the validation suites (not used by the product code):
 * exact (field, type) pair comparison, path-based patching of fixtures and a
 * scripted CEL compiler.
 */
import type { CelCompileOptions, CelCompiler, CelContext } from '../../cel/types';
import type { ErrorType, FieldError } from '../errors';
import { parsePath } from '../../base/path';

/** [field, type] as the apiserver reports them. */
export type Pair = readonly [field: string, type: ErrorType];

/** A sorted, comparable rendering of errors: `Type field`. */
export const pairsOf = (errs: readonly FieldError[]): string[] => errs.map((e) => `${e.type} ${e.field}`).sort();
export const render = (expected: readonly Pair[]): string[] => expected.map(([f, t]) => `${t} ${f}`).sort();

/** Deep copy, then set each path (`webhooks[0].rules[1].scope`) to its value; `undefined` deletes the key. */
export function patch<T>(base: T, changes: Readonly<Record<string, unknown>>): T {
  const out = structuredClone(base) as unknown;
  for (const [path, value] of Object.entries(changes)) {
    const segs = parsePath(path);
    let cur = out as Record<string | number, unknown>;
    for (let i = 0; i < segs.length - 1; i++) {
      const s = segs[i]!;
      if (typeof cur[s] !== 'object' || cur[s] === null) cur[s] = typeof segs[i + 1] === 'number' ? [] : {};
      cur = cur[s] as Record<string | number, unknown>;
    }
    const last = segs[segs.length - 1]!;
    if (value === undefined) {
      if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
      else delete cur[last];
    } else cur[last] = structuredClone(value);
  }
  return out as T;
}

export interface CompileCall {
  expression: string;
  context: CelContext;
  options?: CelCompileOptions;
}

/**
 * A scripted compiler: an expression containing `BAD` fails to compile,
 * `UNKNOWN` is not known yet (undefined), anything else compiles. Calls are recorded.
 */
export function scriptedCompiler(): CelCompiler & { calls: CompileCall[] } {
  const calls: CompileCall[] = [];
  return {
    calls,
    compile(expression, context, options) {
      calls.push({ expression, context, ...(options ? { options } : {}) });
      if (expression.includes('UNKNOWN')) return undefined;
      if (expression.includes('BAD'))
        return { ok: false, message: `compilation failed: ERROR: <input>:1:1: undeclared reference to 'BAD'`, issues: [{ message: 'x', line: 1, column: 1 }] };
      return { ok: true, type: 'bool', issues: [] };
    },
  };
}
