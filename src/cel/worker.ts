/// <reference lib="webworker" />
/**
 * The CEL Web Worker. Created by browser.ts with
 * `new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })`.
 * On `init` it loads `cel/wasm_exec.js` and `cel/cel.wasm` relative to the page's base URL
 * (never an absolute path: the app is hosted under arbitrary sub-paths), starts the Go
 * program and then answers requests one at a time, synchronously.
 */
import { CEL_WASM_VERSION, celAssetUrl, ENGINE_CACHE, type EngineFile } from './assets';
import { engineOf, failedOp, type CelOps } from './ops';
import { startGo } from './raw';
import type { EngineWork, WorkerAllow, WorkerInit, WorkerRequest, WorkerResponse } from './protocol';
import type { CelStartPhases } from './types';

declare const self: DedicatedWorkerGlobalScope;

let engine: CelOps | undefined;
const queue: WorkerRequest[] = [];

function post(msg: WorkerResponse): void {
  self.postMessage(msg);
}

function answer(req: WorkerRequest): void {
  const run = engine![req.op] as (...args: unknown[]) => unknown;
  let result: unknown;
  try {
    result = run(...req.args);
  } catch (err) {
    result = failedOp(req.op, { ok: false, kind: 'engine', message: `engine error: ${String(err)}` }, req.args as never);
  }
  post({ op: 'result', id: req.id, result: result as never });
}

/**
 * What the page allows (WorkerInit.hold): a worker the page's starter created before the app's
 * scripts ran holds the compile until the app's own storage reads are done, and a download until
 * the first form is on screen, so that they do not compete with them on two cores (start.ts).
 */
let allowed: EngineWork | undefined = 'all';
let allowedNow: () => void = () => {};
let allowedChange = new Promise<void>((r) => (allowedNow = r));
function allow(work: EngineWork): void {
  if (allowed === 'all') return;
  allowed = work;
  allowedNow();
  allowedChange = new Promise<void>((r) => (allowedNow = r));
}
/** How long the worker waited for the page's allowance (ms). */
let heldMs = 0;
async function allowedTo(work: EngineWork): Promise<void> {
  const t0 = performance.now();
  while (allowed !== 'all' && allowed !== work) await allowedChange;
  heldMs += performance.now() - t0;
}

/** Compiles a response's body: streaming when it is served as application/wasm. */
function compileResponse(response: Response): Promise<WebAssembly.Module> {
  if (typeof WebAssembly.compileStreaming === 'function' && (response.headers.get('content-type') ?? '').includes('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
}

/**
 * The Cache Storage where the engine's decoded bytes are kept between visits, or undefined
 * where there is none (an insecure context, storage disabled) or no version to key it by.
 */
async function engineCache(): Promise<Cache | undefined> {
  if (!CEL_WASM_VERSION || typeof caches === 'undefined') return undefined;
  return caches.open(ENGINE_CACHE).catch(() => undefined);
}

/** Keeps this version's bytes and drops other versions of the same file. Best effort. */
async function keepEngine(cache: Cache, wasmUrl: string, body: ReadableStream<Uint8Array>): Promise<void> {
  try {
    await cache.put(wasmUrl, new Response(body, { headers: { 'content-type': 'application/wasm' } }));
    const path = wasmUrl.replace(/\?.*/, '');
    for (const old of await cache.keys()) {
      if (old.url !== wasmUrl && old.url.startsWith(`${path}?v=`)) await cache.delete(old);
    }
  } catch {
    // Quota, a closed worker: the next visit fetches again.
  }
}

/**
 * Fetches and compiles cel.wasm (its URL carries the build's version); compileStreaming compiles
 * while the bytes arrive. The HTTP cache keeps the response as served (brotli, 3.3 MB), so a
 * later visit from there would decode all 30 MB again, and Chromium's code cache for streamed
 * WebAssembly holds only functions V8 has optimised, which a visit of the app rarely has (it
 * answers a few compiles): the decoded bytes are kept in the Cache Storage, under the versioned
 * URL, and a later visit compiles from there without asking the server (docs/performance.md:
 * about half the CPU of the HTTP cache's copy with or without the code cache).
 */
async function compileEngine(wasmUrl: string): Promise<{ module: WebAssembly.Module; source: CelStartPhases['engineSource'] }> {
  const cache = await engineCache();
  const cached = cache && (await cache.match(wasmUrl).catch(() => undefined));
  if (cached) {
    await allowedTo('cached');
    try {
      return { module: await compileResponse(cached), source: 'cache' };
    } catch {
      await cache.delete(wasmUrl).catch(() => false); // unreadable: fetch it again
    }
  }
  await allowedTo('all');
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`fetching ${wasmUrl}: HTTP ${response.status}`);
  if (!cache || !response.body) return { module: await compileResponse(response), source: 'network' };
  const [forCompile, forCache] = response.body.tee();
  const kept = keepEngine(cache, wasmUrl, forCache);
  try {
    return { module: await compileResponse(new Response(forCompile, { headers: response.headers })), source: 'network' };
  } catch (err) {
    void kept.then(() => cache.delete(wasmUrl)).catch(() => false); // not an engine: do not keep it
    throw err;
  }
}

async function init(baseUrl: string, transferred?: WebAssembly.Module, wasm: EngineFile = 'cel.wasm'): Promise<void> {
  const t0 = performance.now();
  const execUrl = celAssetUrl('wasm_exec.js', baseUrl);
  const wasmUrl = celAssetUrl(wasm, baseUrl);
  // The download and compile start first; wasm_exec.js loads meanwhile. It only assigns
  // globalThis.Go, so it also works as a module import (module workers have no importScripts).
  const compiled = transferred ? Promise.resolve({ module: transferred, source: 'transferred' as const }) : compileEngine(wasmUrl);
  compiled.catch(() => undefined); // reported by the await below
  await import(/* @vite-ignore */ execUrl);
  const { module, source } = await compiled;
  const compiledAt = performance.now();
  engine = engineOf(await startGo(module));
  const info = engine.info();
  if ('ok' in info) throw new Error(info.message);
  const readyAt = performance.now();
  post({
    op: 'ready',
    module,
    info,
    startMs: Math.round(readyAt - t0),
    phases: {
      bootMs: Math.round(t0), // the worker's clock starts when it is created
      createdAt: performance.timeOrigin,
      heldMs: Math.round(heldMs),
      compileMs: Math.round(compiledAt - t0 - heldMs),
      engineStartMs: Math.round(readyAt - compiledAt),
      engineSource: source,
      postedAt: performance.timeOrigin + performance.now(),
    },
  });
  for (const req of queue.splice(0)) answer(req);
}

self.onmessage = (ev: MessageEvent<WorkerInit | WorkerAllow | WorkerRequest>) => {
  const msg = ev.data;
  if (msg.op === 'allow') return allow(msg.work);
  if (msg.op === 'init') {
    if (msg.hold) allowed = undefined;
    init(msg.baseUrl, msg.module, msg.wasm).catch((err: unknown) => post({ op: 'failed', message: String(err) }));
    return;
  }
  if (!engine) queue.push(msg);
  else answer(msg);
};
