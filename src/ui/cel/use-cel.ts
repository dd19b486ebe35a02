/**
 * Hooks shared by the CEL UI: the compile options a document implies for an expression,
 * the document's test inputs, and debounced compile / evaluate calls against the engine
 * (stale answers are dropped; the engine itself enforces the cost limit and the worker deadline).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { CelCompileOptions, CelCompileResult, CelContext, CelInputs } from '../../cel/types';
import { compileCel, evaluateShared, identityOf, type Evaluation } from '../../store/cel';

export { evaluateShared, type Evaluation };

/** A value in CEL-like syntax when the engine did not render one. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** An evaluation as a case's expectation reads it (request's `passes`): its value, or that it failed. */
export function outcomeOf(r: Evaluation): { ok: true; value: unknown } | { ok: false } {
  return r.ok ? { ok: true, value: r.value } : { ok: false };
}
import { celScopeOf } from '../../k8s/cel-scope';
import { isObject } from '../../base/json';
import { parsePath } from '../../base/path';
import { DEFAULT_KUBERNETES_VERSION } from '../../base/releases';
import { draftOf, testInputs, useDraft } from '../../store/test-inputs';
import type { TestInputDraft } from '../../request';
import { useWorkspace } from '../../store';

/** Re-run this long after the last edit. */
export const DEBOUNCE_MS = 100;

/** The object of a workspace document (re-renders when it changes). */
export const useDocObject = (docId: string): unknown => useWorkspace((s) => s.docs.find((d) => d.id === docId)?.object);

/**
 * What the surrounding policy declares for an expression at `path` (src/k8s/cel-scope.ts):
 * params when spec.paramKind is set, the spec.variables in scope (those before it, for a
 * variable's own expression; none for matchConditions).
 */
export function celOptionsFor(object: unknown, path: string, context: CelContext): CelCompileOptions {
  if (!isObject(object)) return {};
  const i = context === 'vap-variable' ? parsePath(path)[2] : undefined;
  return celScopeOf(object.spec, context, typeof i === 'number' ? i : undefined);
}

/**
 * Options as a stable object: the same object while its content is the same. They carry the
 * workspace's target release, so compile, evaluate, completion and hover use its CEL environment.
 */
export function useCelOptions(docId: string, path: string, context: CelContext): CelCompileOptions {
  const object = useDocObject(docId);
  const release = useWorkspace((s) => s.kubernetesVersion);
  const options = celOptionsFor(object, path, context);
  if (release !== DEFAULT_KUBERNETES_VERSION) options.kubernetesVersion = release;
  const key = JSON.stringify(options);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the options' JSON, so that an equal new object keeps the memoised one
  return useMemo(() => options, [key]);
}

/** The document's test inputs: the saved draft, or defaults from its rules. */
export const useDocInputs = (docId: string): { draft: TestInputDraft; edited: boolean } => useDraft(docId);

export function setDocInputs(docId: string, draft: TestInputDraft) {
  testInputs.getState().setDraft(docId, draft);
}

export const useCelState = () => useWorkspace((s) => s.celState);

/** Compile result of an expression (debounced); undefined until known. */
export function useCompile(expression: string, context: CelContext, options: CelCompileOptions, enabled: boolean): CelCompileResult | undefined {
  const [result, setResult] = useState<{ key: string; r: CelCompileResult }>();
  const seq = useRef(0);
  const key = `${context}\u0000${JSON.stringify(options)}\u0000${expression}`;
  useEffect(() => {
    if (!enabled) return;
    const mine = ++seq.current;
    const t = setTimeout(() => {
      void compileCel(expression, context, options).then((r) => {
        if (mine === seq.current) setResult({ key, r });
      });
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [key, enabled, expression, context, options]);
  return result?.r;
}

/**
 * Evaluates `expression` against each inputs object (debounced, one after the other in the
 * worker). Answers arrive together; `running` is true while a newer run is under way.
 */
export function useEvaluations(
  expression: string,
  context: CelContext,
  inputs: readonly CelInputs[],
  options: CelCompileOptions,
  enabled = true,
): { results: (Evaluation | undefined)[]; running: boolean } {
  const [state, setState] = useState<{ results: (Evaluation | undefined)[]; running: boolean }>({ results: [], running: false });
  const seq = useRef(0);
  // inputs identity changes only when an input changed (drafts are immutable, converted once each).
  const inputsKey = useIdentityKey(inputs);
  // biome-ignore lint/correctness/useExhaustiveDependencies: inputs are followed by their identity key, so that a new array of the same inputs does not run the evaluations again
  useEffect(() => {
    if (!enabled) return;
    const mine = ++seq.current;
    setState((s) => (s.running ? s : { ...s, running: true }));
    const t = setTimeout(async () => {
      // Results replace the previous run's one by one, as they arrive.
      let timedOut: Evaluation | undefined;
      for (let i = 0; i < inputs.length; i++) {
        if (mine !== seq.current) return;
        // After a deadline (the worker was replaced), the other inputs are not tried: each would cost a restart.
        const evaluation: Evaluation = timedOut
          ? {
              ok: false,
              kind: 'timeout',
              stage: 'runtime',
              message: 'not run: the expression timed out on other inputs (each timeout restarts the engine)',
              ms: 0,
            }
          : await evaluateShared(expression, context, inputs[i], options);
        if (!evaluation.ok && evaluation.kind === 'timeout' && !timedOut) timedOut = evaluation;
        if (mine !== seq.current) return;
        const done = i === inputs.length - 1;
        setState((s) => {
          const results = s.results.slice(0, inputs.length);
          results[i] = evaluation;
          return { results, running: !done };
        });
      }
      if (!inputs.length) setState({ results: [], running: false });
    }, DEBOUNCE_MS);
    return () => clearTimeout(t);
    // inputs are read through inputsKey (their JSON), so an equal new array does not re-run.
  }, [expression, context, inputsKey, options, enabled]);
  return state;
}

/** A key that changes when any element's identity changes. */
function useIdentityKey(list: readonly object[]): string {
  return list.map(identityOf).join(',');
}

/** The document's current test inputs draft, read outside React (completion). */
export const celTestsInputsOf = (docId: string): TestInputDraft => draftOf(docId);
