/** Messages between the page (browser.ts) and the CEL worker (worker.ts). Plain data. */
import type { CelBatchItem, CelCompileOptions, CelContext, CelEngineInfo, CelStartPhases } from './types';

export type WorkerRequest =
  | { id: number; op: 'compile'; expression: string; context: CelContext; options?: CelCompileOptions }
  | { id: number; op: 'evaluate'; expression: string; context: CelContext; inputsId: string; options?: CelCompileOptions }
  | { id: number; op: 'evaluateBatch'; inputsId: string; items: readonly CelBatchItem[] }
  | { id: number; op: 'setInputs'; inputsId: string; inputsJSON: string }
  | { id: number; op: 'dropInputs'; inputsId: string }
  | { id: number; op: 'declarations'; context: CelContext; options?: CelCompileOptions }
  | { id: number; op: 'typeAt'; expression: string; context: CelContext; offset: number; options?: CelCompileOptions };

/**
 * First message to a new worker: where cel/wasm_exec.js and cel/cel.wasm are (the page's base
 * URL), and the engine's compiled module when an earlier worker compiled it (a worker that
 * replaces one stopped at its deadline starts the Go program without fetching or compiling).
 */
export interface WorkerInit {
  op: 'init';
  baseUrl: string;
  module?: WebAssembly.Module;
}

export type WorkerResponse =
  | { op: 'ready'; info: CelEngineInfo; startMs: number; phases?: CelStartPhases; module?: WebAssembly.Module }
  | { op: 'failed'; message: string }
  | { op: 'result'; id: number; result: unknown };
