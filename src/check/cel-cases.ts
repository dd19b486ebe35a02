/**
 * Saved CEL cases of a workspace file: the expression at a path of a document, evaluated on
 * each case's test input in the context the field registry gives that path, as the CEL
 * editor's Test area does.
 */
import type { CelCompileOptions, CelContext, CelEvalResult, CelInputs, CelTraceNode } from '../cel/types';
import { getIn } from '../k8s/edit';
import { parsePath } from '../base/path';
import { fieldAt, kindSpecOf } from '../k8s/registry';
import { admittedInput, passes, toCelInputs, toTestInput, type CelCase } from '../request';
import type { KubernetesVersion } from '../base/releases';
import { celScopeOf } from '../k8s/cel-scope';
import { obj } from '../base/json';

export interface CelRunner {
  evaluate(expression: string, context: CelContext, inputs: CelInputs, options?: CelCompileOptions): Promise<CelEvalResult>;
}

/** One case's evaluation, traced (runCelCases' `traced`: for coverage of the expression at the path). */
export interface CelCaseRun {
  ok: boolean;
  value?: unknown;
  trace?: CelTraceNode[];
}

/** Per case: undefined when it passes, else why not. With `traced`, each evaluation is traced and pushed there. */
export async function runCelCases(
  object: unknown,
  path: string,
  cases: readonly CelCase[],
  cel: CelRunner,
  traced?: CelCaseRun[],
  release?: KubernetesVersion,
): Promise<(string | undefined)[]> {
  const spec = kindSpecOf(object);
  const segments = parsePath(path);
  const field = spec ? fieldAt(spec, segments) : undefined;
  const context = field?.type === 'string' ? field.cel : undefined;
  const expression = getIn(object, segments);
  if (!context || typeof expression !== 'string') return cases.map(() => `no CEL expression at ${path}`);
  const variableIndex = context === 'vap-variable' && typeof segments[2] === 'number' ? segments[2] : undefined;
  const scope: CelCompileOptions = celScopeOf(obj(object).spec, context, variableIndex);
  const options: CelCompileOptions = traced ? { ...scope, trace: true } : scope;
  const out: (string | undefined)[] = [];
  for (const c of cases) {
    const { input, errors } = toTestInput(c.input);
    if (errors.length) {
      out.push(`its ${errors[0]!.field} does not parse: ${errors[0]!.message}`);
      continue;
    }
    const r = await cel.evaluate(expression, context, toCelInputs(await admittedInput(input, release)), options);
    traced?.push({ ok: r.ok, ...(r.ok ? { value: r.value } : {}), ...(r.trace ? { trace: r.trace } : {}) });
    if (passes(c.expect, r.ok ? { ok: true, value: r.value } : { ok: false })) out.push(undefined);
    else out.push(`expected ${c.expect.error ? 'an error' : c.expect.value}, got ${r.ok ? JSON.stringify(r.value) : `${r.stage} error: ${r.message}`}`);
  }
  return out;
}
