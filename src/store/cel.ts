/**
 * The CEL engine as the workspace uses it: loaded in the background after the first
 * paint, it feeds validation through a cache (compile results arrive from the worker
 * asynchronously; when they do, problems are recomputed and the UI re-renders).
 */
import {
  allowEngineWork,
  celStatus,
  connectStartedEngine,
  compile,
  createCachedCompiler,
  declarations,
  evaluate,
  DEFAULT_ENGINE,
  engineOfRelease,
  isEngineFailure,
  loadCel,
  loadCelFor,
  notRun,
  traceLabels,
  typeAt,
  type CelTraceNode,
  type TraceLabel,
  type CelCompileOptions,
  type CelCompileResult,
  type CelContext,
  type CelEvalResult,
  type CelInputs,
} from '../cel';
import { appStore } from './app-stores';
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import { checks, loadChecks } from './checks';
import { workspace, type Workspace } from './workspace';
import type { KubernetesVersion } from '../base/releases';
import { loadTypedData } from '../k8s/typed';

/**
 * Takes over the CEL worker the page's starter (src/cel/start.ts) created before the app's scripts
 * ran, on a later visit. Held until `compileCached` (when the app's own storage reads are done: its
 * first render is next), it then compiles the engine from the Cache Storage while the page
 * renders, and answers as soon as it is ready. Nothing waits for it: the checks use the engine
 * from `startCel` on, after the first paint.
 */
export function connectCel(): { compileCached: () => void } {
  connectStartedEngine();
  return { compileCached: () => allowEngineWork('cached') };
}

/** Start the engine (a first visit: download it) and route CEL checks of validation through it. */
export function startCel(): void {
  allowEngineWork('all');
  const compiler = createCachedCompiler(() => {
    checks()?.celAnswered();
    workspace.setState((s) => ({ problemsRevision: s.problemsRevision + 1 }));
  });
  // the checks' CEL from now on (they load beside the first form; none of their results is kept from before)
  void loadChecks().then(
    (c) => c.setCelCompiler(compiler),
    () => {},
  );
  // the type data of the target release comes with the engine: the CEL inputs' objects are decoded with it (src/k8s/typed)
  const typed = (): Promise<void> => loadTypedData(workspace.getState().kubernetesVersion).catch(() => {});
  void Promise.all([loadCel(), typed()]).then(() => followTarget(workspace.getState().kubernetesVersion));
  workspace.subscribe((s, before) => {
    if (s.kubernetesVersion === before.kubernetesVersion) return;
    void typed().then(() => workspace.setState((x) => ({ problemsRevision: x.problemsRevision + 1 })));
    void followTarget(s.kubernetesVersion);
  });
}

/**
 * The CEL state the workspace shows is its target release's: the engine, then the generation that
 * answers the release (another build, such as 1.38's, fetched when first targeted). One that
 * cannot be fetched or started is "unavailable" with the release and the reason: every CEL
 * feature then says so, and no object is said to be accepted while its CEL went unchecked.
 */
async function followTarget(release: KubernetesVersion): Promise<void> {
  const status = celStatus();
  const other = status.state === 'ready' && engineOfRelease(release) !== DEFAULT_ENGINE;
  if (other) workspace.setState({ celState: 'loading', celMessage: `loading the CEL engine of Kubernetes ${release}…` });
  const failure = status.state === 'ready' ? await loadCelFor(release) : undefined;
  // a later pick of the release answers for itself
  if (workspace.getState().kubernetesVersion !== release) return;
  const state: Pick<Workspace, 'celState' | 'celMessage'> = failure
    ? { celState: 'failed', celMessage: `CEL for Kubernetes ${release}: ${failure}` }
    : { celState: status.state, celMessage: status.message };
  workspace.setState((s) => ({ problemsRevision: s.problemsRevision + 1, ...state }));
}

/** Compile one expression in the engine (the CEL editor's squiggles and types). */
export const compileCel = (expression: string, context: CelContext, options: CelCompileOptions): Promise<CelCompileResult> =>
  compile(expression, context, options);

/** What the CEL editor's completion and hover ask the engine (src/monaco/cel-language.ts). */
export const celLanguageServices = { declarations, typeAt };

export type Evaluation = CelEvalResult & { display?: string; staticType?: string; ms: number };

const ids = new WeakMap<object, number>();
let nextId = 1;
/** A number per object identity (inputs objects are immutable: a new object is a new question). */
export function identityOf(o: object): number {
  let id = ids.get(o);
  if (!id) ids.set(o, (id = nextId++));
  return id;
}

const shared = new Map<string, Promise<Evaluation>>();
/**
 * evaluate() shared between the views that ask the same question at the same time (the Test
 * area and the matchConditions view evaluate the same expression with the same inputs).
 * Answers of a restarted or unavailable engine are not kept.
 */
export function evaluateShared(expression: string, context: CelContext, inputs: CelInputs, options: CelCompileOptions): Promise<Evaluation> {
  const key = `${identityOf(inputs)}\u0000${context}\u0000${JSON.stringify(options)}\u0000${expression}`;
  const hit = shared.get(key);
  if (hit) return hit;
  const t0 = performance.now();
  const p = evaluate(expression, context, inputs, options).then((r): Evaluation => {
    if (isEngineFailure(r)) shared.delete(key);
    return { ...r, ms: performance.now() - t0 };
  });
  shared.set(key, p);
  while (shared.size > 300) shared.delete(shared.keys().next().value as string);
  return p;
}

export { notRun, traceLabels, type TraceLabel };

/** The latest traced run of an expression field (docId + path): what its editor shows inline. */
export interface CelTrace {
  expression: string;
  trace: readonly CelTraceNode[];
}
const traces = appStore(createStore<{ byField: Record<string, CelTrace | undefined> }>(() => ({ byField: {} })));
const fieldKey = (docId: string, path: string): string => `${docId}\u0000${path}`;

/** Records (or, with undefined, forgets) the trace of a field's latest run. */
export function setCelTrace(docId: string, path: string, t: CelTrace | undefined): void {
  const key = fieldKey(docId, path);
  const cur = traces.getState().byField[key];
  if (cur === t || (cur && t && cur.expression === t.expression && cur.trace === t.trace)) return;
  traces.setState((s) => ({ byField: { ...s.byField, [key]: t } }));
}

export const useCelTrace = (docId: string, path: string): CelTrace | undefined => useStore(traces, (s) => s.byField[fieldKey(docId, path)]);
