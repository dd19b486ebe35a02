/**
 * The CEL engine: cel-go and the k8s.io/apiserver CEL environment and libraries (Kubernetes
 * 1.36), compiled to WebAssembly (see /wasm).
 *
 * - Node (vitest, benchmarks): `loadCel()` reads `public/cel/cel.wasm` (or `$CEL_WASM`)
 *   and runs it in-process; `createSyncCompiler()` then compiles synchronously.
 * - Browser: the engine runs in a Web Worker (worker.ts) that loads `cel/wasm_exec.js` and
 *   `cel/cel.wasm` relative to the page; every request has a wall-clock deadline
 *   (`CEL_REQUEST_TIMEOUT_MS`), after which the worker is replaced and the request answers
 *   a failure of kind `timeout` (ops.ts: each operation's own shape). `createCachedCompiler()`
 *   gives validation a synchronous view fed by the worker.
 *
 * Errors are values: nothing here throws or rejects. A failure says what failed in `kind`
 * (types.ts CelErrorKind); its message is the apiserver's words, for people, not for code.
 * The operations are listed once, in ops.ts.
 *
 * Inputs: `evaluate(expr, ctx, inputs)` marshals an inputs object once (cached by object
 * identity, so treat inputs as immutable) and reuses it for every evaluation; or call
 * `setInputs(id, inputs)` and pass the id. Values come back JSON-like: int/uint beyond
 * ±2^53 as decimal strings, NaN/±Inf as "NaN"/"+Inf"/"-Inf", bytes as base64, durations as
 * "5400s", timestamps as RFC 3339, optionals as their value or null; `type` says which CEL
 * type it was and `display` renders it in CEL syntax. Integral JS numbers in inputs are
 * CEL ints (JSON cannot mark 1.0 as a double).
 */
import { unavailable, WorkerClient } from './browser';
import { startGo } from './raw';
import {
  engineOf,
  failedOp,
  newWireSession,
  OPS,
  runOpAsync,
  type AsyncCelOps,
  type CelOp,
  type CelOps,
  type EngineFailure,
  type OpArgs,
  type OpResult,
  type WireSession,
  type AsyncRawCall,
} from './ops';
import type { NativePool } from './native';
import type {
  CelStartPhases,
  CelBatchItem,
  CelCompileOptions,
  CelCompileResult,
  CelCompiler,
  CelContext,
  CelDeclarations,
  CelEngineInfo,
  CelEvalResult,
  CelInputs,
  CelInputsResult,
  CelTypeAt,
  CelReads,
} from './types';
import { isEngineFailure } from './types';
import type { CelTypeCheckOptions, CelTypeCheckResult } from './types';
import { readSchemaAsset, schemaReleaseFor, type SchemaRelease } from './schemas';
import type { KubernetesVersion } from '../base/releases';

export * from './types';
export { LABEL_MAX, notRun, shortValue, traceLabels, type TraceLabel } from './trace';
export type { CelOp, CelOps } from './ops';
export { SCHEMA_RELEASES, schemaReleaseFor, type SchemaRelease } from './schemas';

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
  /** Where the operations run: the native engine (Node, CEL_ENGINE), the in-process WebAssembly engine, or the page's worker. */
  engine?: 'native' | 'wasm' | 'worker';
}

/** Where the operations run: the in-process engine (Node, with `sync`) or the worker. */
type Backend = AsyncCelOps & { sync?: CelOps };

let backend: Backend | undefined;
/** The native engines (Node, CEL_ENGINE native or auto): the backend's operations go to its home; evaluateBatchOnce to the least busy. */
let pool: NativePool | undefined;

/** Each engine process's wire session (the items it was sent, by id: ops.ts), by its call. */
const sessions = new WeakMap<AsyncRawCall, WireSession>();
function sessionOf(call: AsyncRawCall): WireSession {
  let s = sessions.get(call);
  if (!s) sessions.set(call, (s = newWireSession()));
  return s;
}

let loading: Promise<void> | undefined;
const status: CelStatus = { state: 'idle' };

export function isNode(): boolean {
  return typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';
}

export function celStatus(): CelStatus {
  return { ...status, restarts: workerClient?.restarts };
}

let workerClient: WorkerClient | undefined;

/** Every operation of the table, answered by `run`. */
function backendOf(run: <K extends CelOp>(op: K, args: OpArgs<K>) => Promise<OpResult<K>>): AsyncCelOps {
  const b = {} as Record<CelOp, (...args: unknown[]) => unknown>;
  for (const op of Object.keys(OPS) as CelOp[]) b[op] = (...args: unknown[]) => run(op, args as never);
  return b as unknown as AsyncCelOps;
}

function syncBackend(engine: CelOps): Backend {
  const run = <K extends CelOp>(op: K, args: OpArgs<K>) => Promise.resolve((engine[op] as (...a: unknown[]) => OpResult<K>)(...args));
  return { ...backendOf(run), sync: engine };
}

function workerBackend(client: WorkerClient): Backend {
  const b = backendOf((op, args) => client.request(op, ...args));
  return {
    ...b,
    // Stored inputs are kept on the page too: a worker that replaces one past its deadline gets them again.
    setInputs: (inputsId, inputsJSON) => {
      client.inputs.set(inputsId, inputsJSON);
      return client.request('setInputs', inputsId, inputsJSON);
    },
    dropInputs: (inputsId) => {
      client.inputs.delete(inputsId);
      return client.request('dropInputs', inputsId);
    },
  };
}

/**
 * Node: the native engine (native.ts) when `CEL_ENGINE` asks for it: `native` (required:
 * loading fails without it), `auto` (when built and up to date, else WebAssembly; the CLI's
 * default, src/cli/bin.ts); unset or `wasm`: none.
 */
async function startNative(): Promise<AsyncCelOps | undefined> {
  const choice = process.env.CEL_ENGINE ?? 'wasm';
  if (choice === 'wasm') return undefined;
  if (choice !== 'native' && choice !== 'auto') throw new Error(`CEL_ENGINE=${choice}: expected native, wasm or auto`);
  const { findNativeEngine, nativePool, startNativeEngine } = await import('./native');
  const found = await findNativeEngine();
  if ('reason' in found) {
    if (choice === 'native') throw new Error(found.reason);
    return undefined;
  }
  const start = () => startNativeEngine(found.path);
  const engines = nativePool(await start(), start);
  pool = engines;
  return backendOf((op, args) => runOpAsync(engines.call, sessionOf(engines.call), op, args));
}

/**
 * Node with the native engine: starts engine processes until `n` run (one per core lets the
 * thread that asks keep every core busy with evaluateBatchOnce, the impact replay's batches);
 * resolves with how many answer evaluateBatchOnce: 1 with an engine in this process
 * (WebAssembly) or none loaded.
 */
export async function celEngines(n: number): Promise<number> {
  await loadCel();
  return pool ? pool.grow(n) : 1;
}

/** The page's base URL (the app is hosted under arbitrary sub-paths: always resolve relative to it). */
function pageBaseUrl(): string {
  if (typeof document !== 'undefined' && document.baseURI) return document.baseURI;
  return typeof location !== 'undefined' ? location.href : '';
}

/** Starts loading once: `load` sets the backend; its failure is kept in the status. */
function startLoading(load: () => Promise<void>): Promise<void> {
  if (loading) return loading;
  status.state = 'loading';
  const t0 = performance.now();
  loading = (async () => {
    try {
      await load();
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

/**
 * The engine's compiled module (browser, once the page's CEL worker started; undefined in Node
 * or when it failed): Web Workers of the app's own start engines from it (`loadCelHere`) without
 * fetching and compiling it again, and share its compiled code.
 */
export async function celModule(): Promise<WebAssembly.Module | undefined> {
  await loadCel();
  return workerClient?.compiled;
}

/**
 * In a Web Worker of the app's own (the Impact view's deciders): the engine on this thread,
 * started from `module` (celModule(), sent by the page) with `cel/wasm_exec.js` from the app's
 * base URL; the operations then run synchronously here, as in Node. Call before anything else
 * asks for the engine (idempotent, never rejects: see celStatus()).
 */
export function loadCelHere(baseUrl: string, module: WebAssembly.Module | undefined): Promise<void> {
  return startLoading(async () => {
    if (!module) throw new Error("no compiled engine was given (the page's engine did not start)");
    await import(/* @vite-ignore */ new URL('cel/wasm_exec.js', baseUrl).href);
    const engine = engineOf(await startGo(module));
    const info = engine.info();
    if ('ok' in info) throw new Error(info.message);
    backend = syncBackend(engine);
    status.engine = 'wasm';
    status.info = info;
  });
}

/** Loads the engine (idempotent). Never rejects: see celStatus() for failures. */
export function loadCel(): Promise<void> {
  return startLoading(async () => {
    if (isNode()) {
      const { loadRawInNode } = await import('./node');
      const [raw, native] = await Promise.all([loadRawInNode(), startNative()]);
      const engine = engineOf(raw);
      const info = native ? await native.info() : engine.info();
      if ('ok' in info) throw new Error(info.message);
      // The native engine answers every operation; the in-process WebAssembly engine stays
      // for the synchronous compiles (createSyncCompiler), which a child process cannot serve.
      backend = native ? { ...native, sync: engine } : syncBackend(engine);
      status.engine = native ? 'native' : 'wasm';
      status.info = info;
    } else {
      status.engine = 'worker';
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
  });
}

/** The backend once loaded, or why there is none. */
async function ready(): Promise<Backend | EngineFailure> {
  await loadCel();
  if (status.state !== 'ready' || !backend) return unavailable(status.message ?? status.state);
  return backend;
}

/** Runs an operation; an engine that is not there answers the operation's `unavailable` failure. */
async function run<K extends CelOp>(op: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
  const b = await ready();
  if ('kind' in b) return failedOp(op, b, args);
  return (b[op] as (...a: unknown[]) => Promise<OpResult<K>>)(...args);
}

/** Compiles as the API server does when the object is written. */
export const compile = (expression: string, context: CelContext, options?: CelCompileOptions): Promise<CelCompileResult> =>
  run('compile', expression, context, options);

// ---------------------------------------------------------------------------
// Inputs

let inputsCounter = 0;
const inputsIds = new WeakMap<object, string>();
const inputsFinalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<string>((id) => void backend?.dropInputs(id)) : undefined;

/** The inputs as the engine reads them (bigints as decimal strings), or why they cannot be sent. */
function inputsJSON(inputs: CelInputs): string | EngineFailure {
  try {
    // without a replacer first: calling one for every key was most of the marshalling; a bigint throws
    return JSON.stringify(inputs);
  } catch {
    try {
      return JSON.stringify(inputs, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    } catch (err) {
      return { ok: false, kind: 'inputs', message: `inputs cannot be serialised: ${String(err)}` };
    }
  }
}

/** Stores inputs under an id for later evaluate(…, id). */
export function setInputs(id: string, inputs: CelInputs): Promise<CelInputsResult> {
  const json = inputsJSON(inputs);
  return typeof json === 'string' ? run('setInputs', id, json) : Promise.resolve(json);
}

export function dropInputs(id: string): void {
  void backend?.dropInputs(id);
}

/** The id of an inputs object, stored once per object; or why it cannot be stored. */
async function inputsIdFor(inputs: CelInputs | string): Promise<string | CelInputsResult> {
  if (typeof inputs === 'string') return inputs;
  const known = inputsIds.get(inputs);
  if (known) return known;
  const id = `inputs-${++inputsCounter}`;
  inputsIds.set(inputs, id);
  const r = await setInputs(id, inputs);
  if (!r.ok) {
    inputsIds.delete(inputs);
    return r;
  }
  inputsFinalizer?.register(inputs, id);
  return id;
}

/** Evaluates as admission does. `inputs` is an inputs object (marshalled once per object) or an id from setInputs. */
export async function evaluate(expression: string, context: CelContext, inputs: CelInputs | string, options?: CelCompileOptions): Promise<CelEvalResult> {
  const id = await inputsIdFor(inputs);
  if (typeof id !== 'string') return failedOp('evaluate', id as EngineFailure, [expression, context, '', options]);
  return run('evaluate', expression, context, id, options);
}

/**
 * Evaluates many expressions against one input in one round trip (one worker request in
 * the browser; one deadline for the whole batch). One result per item, in order, with the
 * shapes of evaluate(). See CelBatchItem for `group` (a policy's shared budget).
 */
export async function evaluateBatch(items: readonly CelBatchItem[], inputs: CelInputs | string): Promise<CelEvalResult[]> {
  if (items.length === 0) return [];
  const id = await inputsIdFor(inputs);
  if (typeof id !== 'string') return failedOp('evaluateBatch', id as EngineFailure, ['', items]);
  return run('evaluateBatch', id, items);
}

/**
 * evaluateBatch on inputs used once (the impact replay's lean verdicts: one batch per request):
 * the inputs and the batch go in one operation (the engine reads them, evaluates, and keeps
 * nothing of the inputs); no id is kept. The same answers as evaluateBatch.
 */
export async function evaluateBatchOnce(items: readonly CelBatchItem[], inputs: CelInputs): Promise<CelEvalResult[]> {
  if (items.length === 0) return [];
  // once per replayed request: no wait on the loaded engine
  const b = status.state === 'ready' && backend ? backend : await ready();
  if ('kind' in b) return failedOp('evaluateBatch', b, ['', items]);
  const json = inputsJSON(inputs);
  if (typeof json !== 'string') return failedOp('evaluateBatch', json, ['', items]);
  if (!pool) return b.evaluateBatchOnce(json, items);
  // native engines: the least busy one takes the batch (it keeps nothing of the inputs); another if it exits
  return pool.onOne((call) => runOpAsync(call, sessionOf(call), 'evaluateBatchOnce', [json, items]));
}

/** Variables, object types' fields, functions (overloads, docs) and macros of a context's environment. */
export const declarations = (context: CelContext, options?: CelCompileOptions): Promise<CelDeclarations> => run('declarations', context, options);

/** What an expression (and its policy's variables) can read of each object (wasm/reads.go): `projector` (project.ts) cuts inputs down to it. */
export const reads = (expression: string, context: CelContext, options?: CelCompileOptions): Promise<CelReads> => run('reads', expression, context, options);

/** The checked type of the sub-expression at a 0-based code-point offset. */
export const typeAt = (expression: string, context: CelContext, offset: number, options?: CelCompileOptions): Promise<CelTypeAt> =>
  run('typeAt', expression, context, offset, options);

// ---------------------------------------------------------------------------
// Type checking (kube-controller-manager's status.typeChecking)

/** Each release's schema asset's text, read once (the first type check of that release). */
const schemaTexts = new Map<SchemaRelease, Promise<string>>();

function schemaText(release: SchemaRelease): Promise<string> {
  let p = schemaTexts.get(release);
  if (!p) {
    p = readSchemaAsset(release, pageBaseUrl(), isNode());
    schemaTexts.set(release, p);
    p.catch(() => schemaTexts.delete(release));
  }
  return p;
}

/** A release's schema asset (public/cel/schemas-1.3x.json): GVK → definition name, and the definitions (refs "#/definitions/NAME"). */
export interface SchemaAsset {
  release: string;
  gvks: Record<string, string>;
  definitions: Record<string, unknown>;
}

const schemaAssets = new Map<SchemaRelease, Promise<SchemaAsset>>();

/** The schema asset of the release a target release is checked with, parsed once (for completion and hover over typed fields). */
export function schemaAsset(version?: KubernetesVersion): Promise<SchemaAsset> {
  const release = schemaReleaseFor(version);
  let p = schemaAssets.get(release);
  if (!p) {
    p = schemaText(release).then((t) => JSON.parse(t) as SchemaAsset);
    schemaAssets.set(release, p);
    p.catch(() => schemaAssets.delete(release));
  }
  return p;
}

/**
 * Type-checks a ValidatingAdmissionPolicy as kube-controller-manager's
 * validatingadmissionpolicy-status-controller does (wasm/typecheck.go): the warnings it
 * writes into status.typeChecking.expressionWarnings. The release's schema asset is loaded
 * into the engine on first use (and again into a worker that replaced one).
 */
export async function typeCheck(policy: unknown, options: CelTypeCheckOptions): Promise<CelTypeCheckResult> {
  const release = schemaReleaseFor(options.kubernetesVersion as KubernetesVersion | undefined);
  let policyJSON: string;
  try {
    policyJSON = JSON.stringify(policy);
  } catch (err) {
    return { ok: false, kind: 'inputs', message: `policy cannot be serialised: ${String(err)}`, warnings: [] };
  }
  for (let attempt = 0; ; attempt++) {
    const r = await run('typeCheck', policyJSON, release, options);
    if (r.ok) return { ok: true, warnings: r.warnings, schemaRelease: release };
    if (!r.schemasMissing || attempt > 0) return { ok: false, kind: r.kind, message: r.message, warnings: [] };
    let text: string;
    try {
      text = await schemaText(release);
    } catch (err) {
      return { ok: false, kind: 'unavailable', message: `schemas of ${release}: ${err instanceof Error ? err.message : String(err)}`, warnings: [] };
    }
    const set = await run('setSchemas', release, text);
    if (!set.ok) return { ok: false, kind: set.kind, message: set.message, warnings: [] };
  }
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
export function createSyncCompiler(): CelCompiler {
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
  /** Where to ask (tests: a worker client); default the loaded engine, synchronously in Node. */
  engine?: Pick<AsyncCelOps, 'compile'>,
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
      const sync = engine ? undefined : backend?.sync;
      if (sync) {
        const r = sync.compile(expression, context, options);
        if (!isEngineFailure(r)) cache.set(key, r);
        return r;
      }
      if (!inflight.has(key)) {
        inflight.add(key);
        void (engine ?? { compile }).compile(expression, context, options).then((r) => {
          inflight.delete(key);
          // A failure of the engine itself (unavailable, a request past its deadline on a busy
          // machine, a fault) is "not known", not a compile error: never cache it as the expression's verdict.
          if (isEngineFailure(r)) return;
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
