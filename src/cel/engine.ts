/**
 * Loading the CEL engine and running its operations: in Node the native engine processes or the
 * in-process WebAssembly engine, in the browser a Web Worker with a deadline per request (or the
 * engine on this thread, loadCelHere). Every public function of ./index.ts runs through `run`;
 * the ones that take no inputs are here. Design: ./README.md.
 */
import type { CelEngineBuild } from '../base/releases';
import { celAssetUrl, engineFile } from './assets';
import { DEFAULT_ENGINE, engineOfOp, engineOfRelease } from './generations';
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
import type { EngineWork } from './protocol';
import type {
  CelBatchItem,
  CelStartPhases,
  CelCompileOptions,
  CelCompileResult,
  CelContext,
  CelDeclarations,
  CelEngineInfo,
  CelTypeAt,
  CelReads,
} from './types';

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
  /** Node on WebAssembly: why not the native engine (not built, older than wasm/, CEL_ENGINE=wasm), for the CLI to say. */
  notNative?: string;
}

/** Where the operations run: the in-process engine (Node, with `sync`) or the worker. */
export type Backend = AsyncCelOps & { sync?: CelOps };

let backend: Backend | undefined;
/** The native engines (Node, CEL_ENGINE native, auto or unset): the backend's operations go to its home; evaluateBatchOnce to the least busy. */
let pool: NativePool | undefined;

/** Each engine process's wire session (the items it was sent, by id: ops.ts), by its call. */
const sessions = new WeakMap<AsyncRawCall, WireSession>();
export function sessionOf(call: AsyncRawCall): WireSession {
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
 * Node: the native engine (native.ts) as `CEL_ENGINE` says: `native` (required: loading fails
 * without it), `auto` or unset (when built and up to date, else WebAssembly: the CLI's and the
 * library's default, so that `npm install`'s build is used without asking), `wasm`: none.
 * `generation`: another engine generation's binary (cel-native-1.38) instead of the default's.
 */
async function startNative(generation?: CelEngineBuild): Promise<{ ops: AsyncCelOps; pool: NativePool } | { notNative: string }> {
  const choice = process.env.CEL_ENGINE || 'auto';
  if (choice === 'wasm') return { notNative: 'CEL_ENGINE=wasm' };
  if (choice !== 'native' && choice !== 'auto') throw new Error(`CEL_ENGINE=${choice}: expected native, wasm or auto`);
  const { findNativeEngine, nativePool, startNativeEngine } = await import('./native');
  const found = await findNativeEngine(generation);
  if ('reason' in found) {
    if (choice === 'native') throw new Error(found.reason);
    return { notNative: found.reason };
  }
  const start = () => startNativeEngine(found.path);
  const engines = nativePool(await start(), start);
  // one wire session per process: the home's own, which onOne's batches to it use too (two
  // sessions numbering items for one process gave them each other's ids: native-sessions.test.ts)
  return { ops: backendOf((op, args) => runOpAsync(engines.call, sessionOf(engines.home().call), op, args)), pool: engines };
}

/**
 * Node with the native engine: starts engine processes until `n` run (default one per core,
 * which lets the thread that asks keep every core busy with evaluateBatchOnce, the impact
 * replay's batches); resolves with how many answer evaluateBatchOnce: 1 with an engine in this
 * process (WebAssembly) or none loaded.
 */
export async function celEngines(n?: number): Promise<number> {
  await loadCel();
  if (!pool) return 1;
  const { cores } = await import('./native');
  return pool.grow(n ?? (await cores()));
}

/** The page's base URL (the app is hosted under arbitrary sub-paths: always resolve relative to it). */
export function pageBaseUrl(): string {
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
    await import(/* @vite-ignore */ celAssetUrl('wasm_exec.js', baseUrl));
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
      const [raw, started] = await Promise.all([loadRawInNode(), startNative()]);
      const native = 'ops' in started ? started.ops : undefined;
      if ('pool' in started) pool = started.pool;
      else status.notNative = started.notNative;
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
      // The worker the page's starter created (start.ts), if it did; a starter that decides later starts none.
      const started = globalThis.__admissionWorkbenchCelWorker ?? undefined;
      globalThis.__admissionWorkbenchCelWorker = null;
      const client = new WorkerClient({
        baseUrl: pageBaseUrl(),
        started,
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

/**
 * Browser: takes over the worker the page's starter created (src/cel/start.ts: a later visit, the
 * engine in the Cache Storage), held until `allowEngineWork`; without one, nothing starts here
 * (and a starter still deciding starts nothing): `loadCel` starts the engine when it is called.
 */
export function connectStartedEngine(): void {
  if (isNode()) return;
  const decide = () => {
    if (globalThis.__admissionWorkbenchCelWorker) void loadCel();
    else globalThis.__admissionWorkbenchCelWorker = null;
  };
  // The starter may still be looking in the Cache Storage: the app's own scripts can come from the
  // HTTP cache sooner than that lookup answers, and going on without it compiled the engine after
  // the first paint on a later visit. Its decision takes milliseconds; the app reads its storage meanwhile.
  const starter = globalThis.__admissionWorkbenchCelStarter;
  if (starter && globalThis.__admissionWorkbenchCelWorker === undefined) void starter.then(decide);
  else decide();
}

/**
 * Browser: lets the worker the page's starter created, held until now, compile the engine from
 * the Cache Storage (`cached`) or do anything, the download included (`all`). main.tsx and
 * startCel say when; a request to the engine allows everything. No-op elsewhere.
 */
export function allowEngineWork(work: EngineWork): void {
  workerClient?.allow(work);
}

/** The backend once loaded, or why there is none. */
export async function ready(): Promise<Backend | EngineFailure> {
  await loadCel();
  if (status.state !== 'ready' || !backend) return unavailable(status.message ?? status.state);
  return backend;
}

/**
 * Runs an operation on the engine generation its target release needs (generations.ts); an engine
 * that is not there answers the operation's `unavailable` failure.
 */
export async function run<K extends CelOp>(op: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
  const target = engineOfOp(op, args);
  if (Array.isArray(target)) return runSplit(op, args, target);
  if (op === 'setInputs') storedInputs.set(args[0] as string, args[1] as string);
  if (target !== DEFAULT_ENGINE) return runOnGeneration(target, op, args);
  const b = await ready();
  if ('kind' in b) return failedOp(op, b, args);
  return (b[op] as (...a: unknown[]) => Promise<OpResult<K>>)(...args);
}

// ---------------------------------------------------------------------------
// Other engine generations (the 1.38 engine): loaded on the first operation that targets one.

interface Generation {
  backend: Backend;
  /** Stored inputs it has been sent (ids of storedInputs). */
  inputs: Set<string>;
}

const generations = new Map<CelEngineBuild, Promise<Generation | EngineFailure>>();
const loadedGenerations = new Map<CelEngineBuild, Generation>();
/** Stored inputs by id (setInputs), sent to another generation when an evaluation there first uses them. */
const storedInputs = new Map<string, string>();

/** Loads an engine generation other than the default (once; never rejects). */
function loadGeneration(build: CelEngineBuild): Promise<Generation | EngineFailure> {
  let p = generations.get(build);
  if (p) return p;
  p = (async (): Promise<Generation | EngineFailure> => {
    try {
      let b: Backend;
      if (isNode()) {
        const { loadRawInNode } = await import('./node');
        const [raw, started] = await Promise.all([loadRawInNode(engineFile(build, false)), startNative(build)]);
        const engine = engineOf(raw);
        b = 'ops' in started ? { ...started.ops, sync: engine } : syncBackend(engine);
      } else {
        const client = new WorkerClient({
          baseUrl: pageBaseUrl(),
          timeoutMs: CEL_REQUEST_TIMEOUT_MS,
          evalTimeoutMs: CEL_EVAL_TIMEOUT_MS,
          wasm: engineFile(build, false),
        });
        const failure = await client.start();
        if (failure !== undefined) throw new Error(failure);
        b = workerBackend(client);
      }
      const info = await b.info();
      if ('ok' in info) throw new Error(info.message);
      const g = { backend: b, inputs: new Set<string>() };
      loadedGenerations.set(build, g);
      return g;
    } catch (err) {
      return unavailable(`the ${build} engine: ${err instanceof Error ? err.message : String(err)}`);
    }
  })();
  generations.set(build, p);
  return p;
}

async function runOnGeneration<K extends CelOp>(build: CelEngineBuild, op: K, args: OpArgs<K>): Promise<OpResult<K>> {
  const g = await loadGeneration(build);
  if ('kind' in g) return failedOp(op, g, args);
  const id = op === 'evaluate' ? args[2] : op === 'evaluateBatch' ? args[0] : undefined;
  if (typeof id === 'string' && !g.inputs.has(id)) {
    const json = storedInputs.get(id);
    if (json !== undefined) {
      const r = await g.backend.setInputs(id, json);
      if (r.ok) g.inputs.add(id);
    }
  }
  return (g.backend[op] as (...a: unknown[]) => Promise<OpResult<K>>)(...args);
}

/** A batch whose items target more than one generation: each generation's items there, the answers in order. */
async function runSplit<K extends CelOp>(op: K, args: OpArgs<K>, builds: readonly CelEngineBuild[]): Promise<OpResult<K>> {
  const items = args[1] as readonly CelBatchItem[];
  const out: unknown[] = new Array(items.length);
  const byBuild = new Map<CelEngineBuild, number[]>();
  builds.forEach((b, i) => byBuild.set(b, [...(byBuild.get(b) ?? []), i]));
  await Promise.all(
    [...byBuild].map(async ([, at]) => {
      const part = (await run(op, ...([args[0], at.map((i) => items[i]!)] as unknown as OpArgs<K>))) as unknown[];
      at.forEach((i, k) => (out[i] = part[k]));
    }),
  );
  return out as OpResult<K>;
}

/** Drops stored inputs from every engine generation that has them. */
export function dropStoredInputs(id: string): void {
  storedInputs.delete(id);
  void backend?.dropInputs(id);
  for (const g of loadedGenerations.values()) if (g.inputs.delete(id)) void g.backend.dropInputs(id);
}

/**
 * The synchronous engine for a target release (Node: the in-process WebAssembly engine of its
 * generation), undefined until that generation is loaded (asking starts loading it).
 */
export function syncEngineFor(kubernetesVersion: unknown): CelOps | undefined {
  const build = engineOfRelease(kubernetesVersion);
  if (build === DEFAULT_ENGINE) return backend?.sync;
  const g = loadedGenerations.get(build);
  if (!g) void loadGeneration(build);
  return g?.backend.sync;
}

/**
 * Loads the engine and the generation a target release needs (idempotent; never rejects). Answers
 * why either did not start, or undefined when both are ready: a caller that goes on without them
 * would compile nothing at that release and report no CEL error at all.
 */
export async function loadCelFor(kubernetesVersion?: string): Promise<string | undefined> {
  await loadCel();
  if (status.state !== 'ready') return status.message ?? 'the CEL engine did not start';
  const build = engineOfRelease(kubernetesVersion);
  if (build === DEFAULT_ENGINE) return undefined;
  const g = await loadGeneration(build);
  return 'kind' in g ? g.message : undefined;
}

/** Whether every item of a batch targets the default generation (index.ts evaluateBatchOnce's native pool path). */
export const onDefaultEngine = (items: readonly CelBatchItem[]): boolean => engineOfOp('evaluateBatchOnce', ['', items]) === DEFAULT_ENGINE;

/** Compiles as the API server does when the object is written. */
export const compile = (expression: string, context: CelContext, options?: CelCompileOptions): Promise<CelCompileResult> =>
  run('compile', expression, context, options);

/** Variables, object types' fields, functions (overloads, docs) and macros of a context's environment. */
export const declarations = (context: CelContext, options?: CelCompileOptions): Promise<CelDeclarations> => run('declarations', context, options);

/** What an expression (and its policy's variables) can read of each object (wasm/reads.go): `projector` (project.ts) cuts inputs down to it. */
export const reads = (expression: string, context: CelContext, options?: CelCompileOptions): Promise<CelReads> => run('reads', expression, context, options);

/** The checked type of the sub-expression at a 0-based code-point offset. */
export const typeAt = (expression: string, context: CelContext, offset: number, options?: CelCompileOptions): Promise<CelTypeAt> =>
  run('typeAt', expression, context, offset, options);

/** The backend as it is now (set while the engine loads; undefined before). */
export const currentBackend = (): Backend | undefined => backend;

/** The backend once the engine is ready (undefined before: ask `ready()`). */
export const readyBackend = (): Backend | undefined => (status.state === 'ready' ? backend : undefined);

/** The native engines when they answer the operations (Node, CEL_ENGINE native, auto or unset). */
export const nativeEngines = (): NativePool | undefined => pool;
