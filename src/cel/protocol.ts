/** Messages between the page (browser.ts) and the CEL worker (worker.ts). Plain data. */
import type { EngineFile } from './assets';
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
  /** The engine generation's file (assets.ts engineFile; absent: cel.wasm). */
  wasm?: EngineFile;
  module?: WebAssembly.Module;
  /** Start only what is light (load wasm_exec.js, look the engine up in the Cache Storage) until the page allows more. */
  hold?: boolean;
}

/**
 * What a held worker may do now: compile the engine from the Cache Storage when it is there (a
 * later visit; the page's own storage reads are done), or anything, the download included.
 */
export type EngineWork = 'cached' | 'all';
export interface WorkerAllow {
  op: 'allow';
  work: EngineWork;
}

/**
 * The worker the page's starter (start.ts) created and sent `init` (held) to, before the app's
 * scripts ran, with what it answered until the app's client (browser.ts) took it over.
 */
export interface StartedWorker {
  worker: Worker;
  events: (MessageEvent<WorkerResponse> | ErrorEvent)[];
}

declare global {
  /**
   * Between the starter (start.ts) and the app (engine.ts): the started worker; `null` once the
   * app took it or went on without it (a starter that decides after that starts nothing).
   */
  var __admissionWorkbenchCelWorker: StartedWorker | null | undefined;
  /** The starter's decision (its Cache Storage lookup), set as it begins: what the app waits for. */
  var __admissionWorkbenchCelStarter: Promise<void> | undefined;
}

export type WorkerResponse =
  | { op: 'ready'; info: CelEngineInfo; startMs: number; phases?: CelStartPhases; module?: WebAssembly.Module }
  | { op: 'failed'; message: string }
  | { op: 'result'; id: number; result: OpResult<CelOp> };
