/// <reference lib="webworker" />
/**
 * The CEL Web Worker. Created by browser.ts with
 * `new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })`.
 * On `init` it loads `cel/wasm_exec.js` and `cel/cel.wasm` relative to the page's base URL
 * (never an absolute path: the app is hosted under arbitrary sub-paths), starts the Go
 * program and then answers requests one at a time, synchronously.
 */
import { engineOf, failedOp, type CelOps } from './ops';
import { startGo } from './raw';
import type { WorkerInit, WorkerRequest, WorkerResponse } from './protocol';
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

/** The built engine's version (a hash of cel.wasm, vite.config.ts); empty in the dev server. */
declare const __CEL_WASM_VERSION__: string;
const ENGINE_CACHE = 'admission-workbench-cel';

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
  if (!__CEL_WASM_VERSION__ || typeof caches === 'undefined') return undefined;
  return caches.open(ENGINE_CACHE).catch(() => undefined);
}

/** Keeps this version's bytes and drops other versions of the same URL. Best effort. */
async function keepEngine(cache: Cache, key: string, wasmUrl: string, body: ReadableStream<Uint8Array>): Promise<void> {
  try {
    await cache.put(key, new Response(body, { headers: { 'content-type': 'application/wasm' } }));
    for (const old of await cache.keys()) {
      if (old.url !== key && old.url.startsWith(`${wasmUrl}?v=`)) await cache.delete(old);
    }
  } catch {
    // Quota, a closed worker: the next visit fetches again.
  }
}

/**
 * Fetches and compiles cel.wasm; compileStreaming compiles while the bytes arrive. The HTTP
 * cache keeps the response as served (brotli, 3.5 MB), so a second visit would decode all
 * 32 MB again, which is most of a warm start: the decoded bytes are also kept in the Cache
 * Storage, keyed by the engine's version, and a later visit compiles from there without
 * asking the server (in Chromium 120–220 ms instead of 340–560 ms with revalidation).
 */
async function compileEngine(wasmUrl: string): Promise<{ module: WebAssembly.Module; source: CelStartPhases['engineSource'] }> {
  const cache = await engineCache();
  const key = `${wasmUrl}?v=${__CEL_WASM_VERSION__}`;
  const cached = cache && (await cache.match(key).catch(() => undefined));
  if (cached) {
    try {
      return { module: await compileResponse(cached), source: 'cache' };
    } catch {
      await cache.delete(key).catch(() => false); // unreadable: fetch it again
    }
  }
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`fetching ${wasmUrl}: HTTP ${response.status}`);
  if (!cache || !response.body) return { module: await compileResponse(response), source: 'network' };
  const [forCompile, forCache] = response.body.tee();
  const kept = keepEngine(cache, key, wasmUrl, forCache);
  try {
    return { module: await compileResponse(new Response(forCompile, { headers: response.headers })), source: 'network' };
  } catch (err) {
    void kept.then(() => cache.delete(key)).catch(() => false); // not an engine: do not keep it
    throw err;
  }
}

async function init(baseUrl: string, transferred?: WebAssembly.Module): Promise<void> {
  const t0 = performance.now();
  const execUrl = new URL('cel/wasm_exec.js', baseUrl).href;
  const wasmUrl = new URL('cel/cel.wasm', baseUrl).href;
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
      compileMs: Math.round(compiledAt - t0),
      engineStartMs: Math.round(readyAt - compiledAt),
      engineSource: source,
      postedAt: performance.timeOrigin + performance.now(),
    },
  });
  for (const req of queue.splice(0)) answer(req);
}

self.onmessage = (ev: MessageEvent<WorkerInit | WorkerRequest>) => {
  const msg = ev.data;
  if (msg.op === 'init') {
    init(msg.baseUrl, msg.module).catch((err: unknown) => post({ op: 'failed', message: String(err) }));
    return;
  }
  if (!engine) queue.push(msg);
  else answer(msg);
};
