/**
 * `impact` in worker threads (Node), each with its own CEL engine and both chains prepared once,
 * deciding what the main thread sends them: with the WebAssembly engine, or when `--workers N`
 * asks for them (the native engine otherwise spreads batches over engine processes). The built
 * CLI starts its own bundle as the worker. src/impact/README.md ("At scale").
 */
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { loadCel } from '../cel';
import {
  chainDecider,
  decisionPool,
  decisionServer,
  POOL_DEPTH,
  shardServer,
  type ChainSpec,
  type Decider,
  type OpenMember,
  type OpenShard,
  type PoolAnswer,
  type ToMember,
  type ShardAnswer,
  type ShardBatch,
  type ShardSetup,
} from '../impact';

const ROLE = 'admission-workbench impact decider';
const SHARD_ROLE = 'admission-workbench impact shard';

const roleOf = (): string | undefined => (workerData as { role?: string } | null)?.role;

/** Whether this thread is an impact worker started by `workerPool` or `threadShard`. */
export const isImpactWorker = (): boolean => !isMainThread && (roleOf() === ROLE || roleOf() === SHARD_ROLE);

/** The worker's side: decide every request (a decider) or replay every batch of lines (a shard) it is sent, answering with its id. */
export async function runImpactWorker(): Promise<void> {
  const port = parentPort!;
  await loadCel();
  if (roleOf() === SHARD_ROLE)
    port.on(
      'message',
      shardServer((workerData as { setup: ShardSetup }).setup, chainDecider, (a) => port.postMessage(a)),
    );
  else
    port.on(
      'message',
      decisionServer((workerData as { spec: ChainSpec }).spec, (a) => port.postMessage(a)),
    );
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
  /** Its worker threads. */
  size?: number;
  close(): void;
}

/** A worker thread running `script` as a pool member (`workerData` carries its role and the chains). */
export function threadMember(script: URL | string, data: Record<string, unknown>, options: { eval?: boolean } = {}): OpenMember {
  return ({ answer, failed }) => {
    const worker = new Worker(script, {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      ...(options.eval ? { eval: true } : {}),
    });
    worker.on('message', (m: PoolAnswer) => answer(m));
    worker.on('error', failed);
    worker.on('exit', failed);
    return { send: (m: ToMember) => worker.postMessage(m), close: () => void worker.terminate() };
  };
}

/**
 * A replay shard in a worker thread running `script` (the CLI bundle; src/impact/shard.ts): it
 * loads its own engine, and replays and decides the lines of its namespaces.
 */
export function threadShard(script: URL): OpenShard {
  return (setup, { answer, failed }) => {
    const worker = new Worker(script, { workerData: { role: SHARD_ROLE, setup }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    worker.on('message', (a: ShardAnswer) => answer(a));
    worker.on('error', (e) => failed(e.message));
    worker.on('exit', (code) => failed(`its thread exited (${code})`));
    return { send: (b: ShardBatch) => worker.postMessage(b), close: () => void worker.terminate() };
  };
}

/**
 * `n` workers running `script` (the CLI bundle). Each request goes to the worker with the fewest
 * outstanding; if a worker fails, its requests and the rest are decided by the others, or on
 * this thread when none is left.
 */
export function workerPool(script: URL, n: number): WorkerPool {
  let pool: ReturnType<typeof decisionPool> | undefined;
  return {
    inFlight: n * POOL_DEPTH,
    size: n,
    decider(spec) {
      // the log changed the chains (or the existing objects are judged with the snapshot's): the same workers, other chains
      if (pool) {
        pool.respec(spec, () => chainDecider(spec));
        return pool.decide;
      }
      const members = Array.from({ length: n }, () => threadMember(script, { role: ROLE, spec }));
      pool = decisionPool(members, () => chainDecider(spec), spec);
      return pool.decide;
    },
    close: () => pool?.close(),
  };
}
