/// <reference lib="webworker" />
/**
 * The CEL Web Worker. Created by browser.ts with
 * `new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })`.
 * On `init` it loads `cel/wasm_exec.js` and `cel/cel.wasm` relative to the page's base URL
 * (never an absolute path: the app is hosted under arbitrary sub-paths), starts the Go
 * program and then answers requests one at a time, synchronously.
 */
import { startGo, wrapRaw, type SyncEngine } from './raw';
import type { WorkerInit, WorkerRequest, WorkerResponse } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

let engine: SyncEngine | undefined;
const queue: WorkerRequest[] = [];

function post(msg: WorkerResponse): void {
  self.postMessage(msg);
}

function handle(req: WorkerRequest): unknown {
  const e = engine!;
  switch (req.op) {
    case 'compile':
      return e.compile(req.expression, req.context, req.options);
    case 'evaluate':
      return e.evaluate(req.expression, req.context, req.inputsId, req.options);
    case 'evaluateBatch':
      return e.evaluateBatch(req.inputsId, req.items);
    case 'setInputs':
      return e.setInputs(req.inputsId, req.inputsJSON);
    case 'dropInputs':
      e.dropInputs(req.inputsId);
      return '';
    case 'declarations':
      return e.declarations(req.context, req.options);
    case 'typeAt':
      return e.typeAt(req.expression, req.context, req.offset, req.options);
  }
}

function answer(req: WorkerRequest): void {
  let result: unknown;
  try {
    result = handle(req);
  } catch (err) {
    result = { ok: false, stage: 'runtime', message: `engine error: ${String(err)}`, issues: [] };
  }
  post({ op: 'result', id: req.id, result });
}

/**
 * Fetches and compiles cel.wasm. compileStreaming compiles while the bytes arrive, and for a
 * response the HTTP cache keeps (served with a validator: ETag or Last-Modified), Chromium
 * caches the compiled code too, so a second visit skips most of the compile. Served with
 * another content type than application/wasm it falls back to compiling the bytes.
 */
async function compileEngine(wasmUrl: string): Promise<WebAssembly.Module> {
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`fetching ${wasmUrl}: HTTP ${response.status}`);
  if (typeof WebAssembly.compileStreaming === 'function' &&
      (response.headers.get('content-type') ?? '').includes('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

async function init(baseUrl: string, module?: WebAssembly.Module): Promise<void> {
  const t0 = performance.now();
  const execUrl = new URL('cel/wasm_exec.js', baseUrl).href;
  const wasmUrl = new URL('cel/cel.wasm', baseUrl).href;
  // The download and compile start first; wasm_exec.js loads meanwhile. It only assigns
  // globalThis.Go, so it also works as a module import (module workers have no importScripts).
  const compiled = module ? Promise.resolve(module) : compileEngine(wasmUrl);
  compiled.catch(() => undefined); // reported by the await below
  await import(/* @vite-ignore */ execUrl);
  module = await compiled;
  const compiledAt = performance.now();
  const raw = await startGo(module);
  engine = wrapRaw(raw);
  const readyAt = performance.now();
  post({
    op: 'ready',
    module,
    info: engine.info(),
    startMs: Math.round(readyAt - t0),
    phases: {
      bootMs: Math.round(t0), // the worker's clock starts when it is created
      compileMs: Math.round(compiledAt - t0),
      engineStartMs: Math.round(readyAt - compiledAt),
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
