/**
 * `impact` over the machine's cores (Node): worker threads that each load their own CEL engine,
 * prepare both chains once (`chainDecider`) and decide the requests the main thread sends them.
 * The main thread reads the log and rebuilds the requests in order (the old-object state is
 * sequential); analyzeImpact takes the decisions back in log order. The built CLI starts its own
 * bundle as the worker (`bin.ts`: `isImpactWorker()`), so there is no second file to ship.
 */
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { loadCel } from '../cel';
import { chainDecider, type ChainSpec, type Decider, type DecisionPair } from '../impact';
import type { AdmissionRequest } from '../request/model';

const ROLE = 'admission-workbench impact decider';

interface Ask {
  id: number;
  request: AdmissionRequest;
  namespaceObject: unknown;
}

interface Answer {
  id: number;
  pair: DecisionPair;
}

/** Whether this thread is an impact worker started by `workerPool`. */
export const isImpactWorker = (): boolean => !isMainThread && (workerData as { role?: string } | null)?.role === ROLE;

/** The worker's side: decide every request it is sent, answering with its id. */
export async function runImpactWorker(): Promise<void> {
  const port = parentPort!;
  await loadCel();
  const decide = chainDecider((workerData as { spec: ChainSpec }).spec);
  port.on('message', (m: Ask) => void decide(m.request, m.namespaceObject).then((pair) => port.postMessage({ id: m.id, pair } satisfies Answer)));
}

/**
 * A decider allocates much short-lived data per request (each policy's trace, steps, messages):
 * a larger young generation than Node's default spends less time collecting it (about a tenth
 * of the CPU time of a replay in one measurement, `--max-semi-space-size=32` on the main thread).
 */
const YOUNG_GENERATION_MB = 96;

/** Default number of workers: the machine's cores. */
export const defaultWorkers = (): number => availableParallelism();

export interface WorkerPool {
  decider: (spec: ChainSpec) => Decider;
  /** Decisions in flight that keep every worker busy. */
  inFlight: number;
  close(): void;
}

/**
 * `n` workers running `script` (the CLI bundle). Each request goes to the worker with the fewest
 * outstanding; if a worker fails, its requests and the rest are decided on this thread.
 */
export function workerPool(script: URL, n: number): WorkerPool {
  const workers: { worker: Worker; waiting: Map<number, (pair: DecisionPair) => void>; failed: boolean; ask: Map<number, Ask> }[] = [];
  let nextId = 0;
  let local: Decider | undefined;
  let closed = false;
  return {
    inFlight: n * 16,
    decider(spec) {
      const localDecider = () => (local ??= chainDecider(spec));
      for (let i = 0; i < n; i++) {
        const w = { worker: new Worker(script, { workerData: { role: ROLE, spec }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }), waiting: new Map<number, (pair: DecisionPair) => void>(), failed: false, ask: new Map<number, Ask>() };
        w.worker.on('message', (m: Answer) => {
          w.ask.delete(m.id);
          const done = w.waiting.get(m.id);
          w.waiting.delete(m.id);
          done?.(m.pair);
        });
        const fail = () => {
          if (closed) return;
          w.failed = true;
          for (const [id, done] of w.waiting) {
            const a = w.ask.get(id)!;
            void localDecider()(a.request, a.namespaceObject).then(done);
          }
          w.waiting.clear();
          w.ask.clear();
        };
        w.worker.on('error', fail);
        w.worker.on('exit', fail);
        workers.push(w);
      }
      return (request, namespaceObject) => {
        const live = workers.filter((w) => !w.failed);
        if (!live.length) return localDecider()(request, namespaceObject);
        const w = live.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
        const ask: Ask = { id: nextId++, request, namespaceObject };
        return new Promise<DecisionPair>((resolve) => {
          w.waiting.set(ask.id, resolve);
          w.ask.set(ask.id, ask);
          w.worker.postMessage(ask);
        });
      };
    },
    close() {
      closed = true;
      for (const w of workers) void w.worker.terminate();
    },
  };
}
