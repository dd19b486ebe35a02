/**
 * The CEL engine: cel-go and the k8s.io/apiserver CEL environment and libraries (Kubernetes
 * 1.36), compiled to WebAssembly (see /wasm).
 *
 * - Node (vitest, benchmarks): `loadCel()` reads `public/cel/cel.wasm` (or `$CEL_WASM`)
 *   and runs it in-process; `createSyncCompiler()` then compiles synchronously.
 * - Browser: the engine runs in a Web Worker (worker.ts) that loads `cel/wasm_exec.js` and
 *   `cel/cel.wasm` relative to the page; every request has a wall-clock deadline
 *   (`CEL_REQUEST_TIMEOUT_MS`), after which the worker is replaced and the request answers
 *   `{ok: false, stage: 'runtime', message: '… timed out …'}`. `createCachedCompiler()`
 *   gives validation a synchronous view fed by the worker.
 *
 * Errors are values: nothing here throws or rejects.
 *
 * Inputs: `evaluate(expr, ctx, inputs)` marshals an inputs object once (cached by object
 * identity, so treat inputs as immutable) and reuses it for every evaluation; or call
 * `setInputs(id, inputs)` and pass the id. Values come back JSON-like: int/uint beyond
 * ±2^53 as decimal strings, NaN/±Inf as "NaN"/"+Inf"/"-Inf", bytes as base64, durations as
 * "5400s", timestamps as RFC 3339, optionals as their value or null; `type` says which CEL
 * type it was and `display` renders it in CEL syntax. Integral JS numbers in inputs are
 * CEL ints (JSON cannot mark 1.0 as a double).
 */
import { WorkerClient } from './browser';
import { wrapRaw, type EvalResult, type SyncEngine } from './raw';
import type {
  CelStartPhases,
  CelBatchItem,
  CelCompileOptions,
  CelCompileOptionsExt,
  CelCompileResult,
  CelCompileResultExt,
  CelCompiler,
  CelContext,
  CelDeclarations,
  CelEngineInfo,
  CelEvalResult,
  CelEvalSuccessExt,
  CelInputs,
  CelTypeAt,
} from './types';

export * from './types';
export type { EvalResult } from './raw';

/** Wall-clock deadline of one worker request (browser): compile, declarations, typeAt. */
export const CEL_REQUEST_TIMEOUT_MS = 2000;
/**
 * Deadline of evaluate/evaluateBatch (browser): a safety net only. The per-expression cost
 * limit and the per-policy budget stop a runaway first, with the apiserver's message; a
 * runaway reaches the 1M per-call limit in 1.5 s (warm) to 4 s (code not yet optimised) on
 * a 2-core machine, so a 2 s deadline would pre-empt it and say "timed out" instead.
 */
export const CEL_EVAL_TIMEOUT_MS = 10_000;

export interface CelStatus {
  state: 'idle' | 'loading' | 'ready' | 'failed';
  message?: string;
  info?: CelEngineInfo;
  /** Time from loadCel() to a usable engine. */
  startMs?: number;
  /** In the worker: fetch + compile of cel.wasm, and Go's start (browser). */
  phases?: CelStartPhases;
  /** performance.now() of the page when the engine became ready (browser). */
  readyAt?: number;
  /** Worker replacements after a deadline (browser). */
  restarts?: number;
}

interface Backend {
  compile(expression: string, context: CelContext, options?: CelCompileOptionsExt): Promise<CelCompileResultExt>;
  evaluate(expression: string, context: CelContext, inputsId: string, options?: CelCompileOptionsExt): Promise<EvalResult>;
  evaluateBatch(inputsId: string, items: readonly CelBatchItem[]): Promise<EvalResult[]>;
  setInputs(id: string, json: string): Promise<string>;
  dropInputs(id: string): void;
  declarations(context: CelContext, options?: CelCompileOptionsExt): Promise<CelDeclarations>;
  typeAt(expression: string, context: CelContext, offset: number, options?: CelCompileOptionsExt): Promise<CelTypeAt>;
  sync?: SyncEngine;
}

let backend: Backend | undefined;
let loading: Promise<void> | undefined;
const status: CelStatus = { state: 'idle' };

export function isNode(): boolean {
  return typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';
}

export function celStatus(): CelStatus {
  return { ...status, restarts: workerClient?.restarts };
}

let workerClient: WorkerClient | undefined;

function syncBackend(engine: SyncEngine): Backend {
  return {
    sync: engine,
    compile: async (e, c, o) => engine.compile(e, c, o),
    evaluate: async (e, c, id, o) => engine.evaluate(e, c, id, o),
    evaluateBatch: async (id, items) => engine.evaluateBatch(id, items),
    setInputs: async (id, json) => engine.setInputs(id, json),
    dropInputs: (id) => engine.dropInputs(id),
    declarations: async (c, o) => engine.declarations(c, o),
    typeAt: async (e, c, off, o) => engine.typeAt(e, c, off, o),
  };
}

function workerBackend(client: WorkerClient): Backend {
  return {
    compile: (expression, context, options) =>
      client.request({ op: 'compile', expression, context, options }, (message): CelCompileResultExt => ({
        ok: false,
        message,
        issues: [],
      })),
    evaluate: (expression, context, inputsId, options) =>
      client.request({ op: 'evaluate', expression, context, inputsId, options }, (message): EvalResult => ({
        ok: false,
        stage: 'runtime',
        message,
      })),
    evaluateBatch: (inputsId, items) =>
      client.request({ op: 'evaluateBatch', inputsId, items }, (message): EvalResult[] =>
        items.map(() => ({ ok: false, stage: 'runtime', message })),
      ),
    setInputs: (inputsId, inputsJSON) => {
      client.inputs.set(inputsId, inputsJSON);
      return client.request({ op: 'setInputs', inputsId, inputsJSON }, (message) => message);
    },
    dropInputs: (inputsId) => {
      client.inputs.delete(inputsId);
      void client.request({ op: 'dropInputs', inputsId }, () => '');
    },
    declarations: (context, options) =>
      client.request({ op: 'declarations', context, options }, (message) => failedDeclarations(context, message)),
    typeAt: (expression, context, offset, options) =>
      client.request({ op: 'typeAt', expression, context, offset, options }, (): CelTypeAt => ({ ok: false })),
  };
}

function failedDeclarations(context: CelContext, message: string): CelDeclarations {
  return { ok: false, message, context, resultTypes: [], variables: [], types: {}, functions: [], macros: [] };
}

/** The page's base URL (the app is hosted under arbitrary sub-paths: always resolve relative to it). */
function pageBaseUrl(): string {
  if (typeof document !== 'undefined' && document.baseURI) return document.baseURI;
  return typeof location !== 'undefined' ? location.href : '';
}

/** Loads the engine (idempotent). Never rejects: see celStatus() for failures. */
export function loadCel(): Promise<void> {
  if (loading) return loading;
  status.state = 'loading';
  const t0 = performance.now();
  loading = (async () => {
    try {
      if (isNode()) {
        const { loadRawInNode } = await import('./node');
        const engine = wrapRaw(await loadRawInNode());
        backend = syncBackend(engine);
        status.info = engine.info();
      } else {
        const client = new WorkerClient({
          baseUrl: pageBaseUrl(),
          timeoutMs: CEL_REQUEST_TIMEOUT_MS,
          evalTimeoutMs: CEL_EVAL_TIMEOUT_MS,
          onReady: (_info, _ms, phases) => {
            status.phases = phases && { ...phases, deliveryMs: Math.round(performance.timeOrigin + performance.now() - phases.postedAt) };
          },
        });
        workerClient = client;
        backend = workerBackend(client);
        const failure = await client.start();
        if (failure !== undefined) throw new Error(failure);
        status.info = client.info;
      }
      status.state = 'ready';
      status.startMs = Math.round(performance.now() - t0);
      status.readyAt = Math.round(performance.now());
      // For npm run bench (and devtools): when the engine became ready and where its start went.
      if (!isNode()) performance.mark?.('cel:ready', { detail: { startMs: status.startMs, phases: status.phases } });
    } catch (err) {
      status.state = 'failed';
      status.message = err instanceof Error ? err.message : String(err);
    }
  })();
  return loading;
}

async function ready(): Promise<Backend | string> {
  await loadCel();
  if (status.state !== 'ready' || !backend) return `CEL engine unavailable: ${status.message ?? status.state}`;
  return backend;
}

/** Compiles as the API server does when the object is written. */
export async function compile(
  expression: string,
  context: CelContext,
  options?: CelCompileOptionsExt,
): Promise<CelCompileResultExt> {
  const b = await ready();
  if (typeof b === 'string') return { ok: false, message: b, issues: [] };
  return b.compile(expression, context, options);
}

// ---------------------------------------------------------------------------
// Inputs

let inputsCounter = 0;
const inputsIds = new WeakMap<object, string>();
const inputsFinalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<string>((id) => backend?.dropInputs(id))
    : undefined;

/** Stores inputs under an id for later evaluate(…, id). Resolves with '' or an error message. */
export async function setInputs(id: string, inputs: CelInputs): Promise<string> {
  const b = await ready();
  if (typeof b === 'string') return b;
  return b.setInputs(id, JSON.stringify(inputs));
}

export function dropInputs(id: string): void {
  backend?.dropInputs(id);
}

async function inputsIdFor(b: Backend, inputs: CelInputs): Promise<string | { error: string }> {
  const known = inputsIds.get(inputs);
  if (known) return known;
  const id = `inputs-${++inputsCounter}`;
  let json: string;
  try {
    json = JSON.stringify(inputs, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch (err) {
    return { error: `inputs cannot be serialised: ${String(err)}` };
  }
  inputsIds.set(inputs, id);
  inputsFinalizer?.register(inputs, id);
  const message = await b.setInputs(id, json);
  if (message) {
    inputsIds.delete(inputs);
    return { error: message };
  }
  return id;
}

/** Evaluates as admission does. `inputs` is an inputs object (marshalled once per object) or an id from setInputs. */
export async function evaluate(
  expression: string,
  context: CelContext,
  inputs: CelInputs | string,
  options?: CelCompileOptionsExt,
): Promise<CelEvalResult & Partial<Omit<CelEvalSuccessExt, 'ok'>>> {
  const b = await ready();
  if (typeof b === 'string') return { ok: false, stage: 'runtime', message: b };
  const id = typeof inputs === 'string' ? inputs : await inputsIdFor(b, inputs);
  if (typeof id !== 'string') return { ok: false, stage: 'runtime', message: id.error };
  return b.evaluate(expression, context, id, options);
}

/**
 * Evaluates many expressions against one input in one round trip (one worker request in
 * the browser; one deadline for the whole batch). One result per item, in order, with the
 * shapes of evaluate(). See CelBatchItem for `group` (a policy's shared budget).
 */
export async function evaluateBatch(
  items: readonly CelBatchItem[],
  inputs: CelInputs | string,
): Promise<(CelEvalResult & Partial<Omit<CelEvalSuccessExt, 'ok'>>)[]> {
  if (items.length === 0) return [];
  const b = await ready();
  if (typeof b === 'string') return items.map(() => ({ ok: false, stage: 'runtime', message: b }));
  const id = typeof inputs === 'string' ? inputs : await inputsIdFor(b, inputs);
  if (typeof id !== 'string') return items.map(() => ({ ok: false, stage: 'runtime', message: id.error }));
  return b.evaluateBatch(id, items);
}

/** Variables, object types' fields, functions (overloads, docs) and macros of a context's environment. */
export async function declarations(context: CelContext, options?: CelCompileOptionsExt): Promise<CelDeclarations> {
  const b = await ready();
  if (typeof b === 'string') return failedDeclarations(context, b);
  return b.declarations(context, options);
}

/** The checked type of the sub-expression at a 0-based code-point offset. */
export async function typeAt(
  expression: string,
  context: CelContext,
  offset: number,
  options?: CelCompileOptionsExt,
): Promise<CelTypeAt> {
  const b = await ready();
  if (typeof b === 'string') return { ok: false };
  return b.typeAt(expression, context, offset, options);
}

// ---------------------------------------------------------------------------
// Synchronous compilers for validation

function compileKey(expression: string, context: CelContext, options?: CelCompileOptions): string {
  return `${context}\u0000${options ? JSON.stringify(options) : ''}\u0000${expression}`;
}

/**
 * Node: a synchronous compiler on the in-process engine (call after `await loadCel()`).
 * Before the engine is loaded (or in the browser) it answers `undefined` ("not known").
 */
export function createSyncCompiler(): CelCompiler & {
  compile(expression: string, context: CelContext, options?: CelCompileOptionsExt): CelCompileResultExt | undefined;
} {
  return {
    compile(expression, context, options) {
      const engine = backend?.sync;
      return engine ? engine.compile(expression, context, options) : undefined;
    },
  };
}

/**
 * A synchronous compiler backed by a cache: answers a cached result, or `undefined` while
 * it asks the engine in the background; `onUpdate()` is called (coalesced) when new results
 * have arrived, so the caller re-validates. Works with the worker and in Node.
 */
export function createCachedCompiler(
  onUpdate: () => void,
  maxEntries = 4000,
): CelCompiler & { clear(): void; size(): number } {
  const cache = new Map<string, CelCompileResult>();
  const inflight = new Set<string>();
  let scheduled = false;
  const notify = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      onUpdate();
    }, 0);
  };
  return {
    compile(expression, context, options) {
      const key = compileKey(expression, context, options);
      const hit = cache.get(key);
      if (hit) {
        cache.delete(key);
        cache.set(key, hit); // LRU order
        return hit;
      }
      const sync = backend?.sync;
      if (sync) {
        const r = sync.compile(expression, context, options);
        cache.set(key, r);
        return r;
      }
      if (!inflight.has(key)) {
        inflight.add(key);
        void compile(expression, context, options).then((r) => {
          inflight.delete(key);
          // A failure of the engine itself (unavailable, or a request past its deadline on a busy
          // machine) is "not known", not a compile error: never cache it as the expression's verdict.
          if (!r.ok && r.issues.length === 0 && (r.message?.startsWith('CEL engine unavailable') || r.message?.startsWith('timed out after'))) return;
          cache.set(key, r);
          while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
          notify();
        });
      }
      return undefined;
    },
    clear: () => cache.clear(),
    size: () => cache.size,
  };
}
