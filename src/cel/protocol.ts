/** Messages between the page (browser.ts) and the CEL worker (worker.ts). Plain data. */
import type { CelOp, OpArgs, OpResult } from './ops';
import type { CelEngineInfo, CelStartPhases } from './types';

/** One operation of the table (ops.ts) with its arguments. */
export type WorkerRequest = { [K in CelOp]: { id: number; op: K; args: OpArgs<K> } }[CelOp];

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
  | { op: 'result'; id: number; result: OpResult<CelOp> };
