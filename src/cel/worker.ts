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

async function init(baseUrl: string): Promise<void> {
  const t0 = performance.now();
  const execUrl = new URL('cel/wasm_exec.js', baseUrl).href;
  const wasmUrl = new URL('cel/cel.wasm', baseUrl).href;
  // wasm_exec.js only assigns globalThis.Go, so it also works as a module import
  // (importScripts is not available in module workers).
  await import(/* @vite-ignore */ execUrl);
  const raw = await startGo(async (imports) => {
    const response = await fetch(wasmUrl);
    if (!response.ok) throw new Error(`fetching ${wasmUrl}: HTTP ${response.status}`);
    if (typeof WebAssembly.instantiateStreaming === 'function' &&
        (response.headers.get('content-type') ?? '').includes('application/wasm')) {
      return (await WebAssembly.instantiateStreaming(response, imports)).instance;
    }
    return (await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance;
  });
  engine = wrapRaw(raw);
  post({ op: 'ready', info: engine.info(), startMs: Math.round(performance.now() - t0) });
  for (const req of queue.splice(0)) answer(req);
}

self.onmessage = (ev: MessageEvent<WorkerInit | WorkerRequest>) => {
  const msg = ev.data;
  if (msg.op === 'init') {
    init(msg.baseUrl).catch((err: unknown) => post({ op: 'failed', message: String(err) }));
    return;
  }
  if (!engine) queue.push(msg);
  else answer(msg);
};
