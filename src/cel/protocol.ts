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

/** First message to a new worker: where cel/wasm_exec.js and cel/cel.wasm are (the page's base URL). */
export interface WorkerInit {
  op: 'init';
  baseUrl: string;
}

export type WorkerResponse =
  | { op: 'ready'; info: CelEngineInfo; startMs: number; phases?: CelStartPhases }
  | { op: 'failed'; message: string }
  | { op: 'result'; id: number; result: unknown };
