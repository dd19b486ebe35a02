/** Entry of the built CLI (dist-cli/admission-workbench.mjs): runs the command and exits with its code. */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { defaultWorkers, isImpactWorker, runImpactWorker, threadShard, workerPool } from './impact-workers';
import { localShard } from '../impact';
import { runCli } from './main';
import { nodeIO } from './node-io';

// The CEL engine: the native one when built and up to date (npm install and npm run build build it
// where Go is), else WebAssembly; CEL_ENGINE chooses (src/cel/engine.ts). `impact` says which it used.

/**
 * `impact` decides one shard on this thread, beside reading the log: much short-lived data per
 * request, which Node's default young generation (16 MB semi-spaces) promotes. At 200,000
 * realistic events that thread spent ~30 % of its time in scavenges; 64 MB took the run from ~61
 * to ~54 s in alternating runs, and 128 MB (once the engine's answers were kept across requests)
 * from 34.8–45.8 to 31.0–37.2 s in four pairs; 256 MB was no faster and held ~300 MB more
 * (docs/performance.md). V8 sizes it only when the process starts, so `impact` starts again
 * once with it, unless the flag was given (here or in NODE_OPTIONS) or an inspector is on (the
 * child would ask for the same port). The worker threads get theirs: impact-workers.ts.
 */
const YOUNG = '--max-semi-space-size=128';

function restartWithYoungGeneration(): Promise<number> | undefined {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (!isMainThread || process.argv[2] !== 'impact' || given.some((a) => a.startsWith('--max-semi-space-size') || a.startsWith('--inspect'))) return undefined;
  const child = spawn(process.execPath, [...process.execArgv, YOUNG, ...process.argv.slice(1)], { stdio: 'inherit' });
  // a signal to this process (Ctrl-C reaches both; a kill only this one) ends the child too
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((done) => {
    child.on('error', (e) => {
      process.stderr.write(`admission-workbench: could not start impact with a larger young generation: ${e.message}\n`);
      done(2);
    });
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)));
  });
}

const restarted = restartWithYoungGeneration();
if (restarted) {
  process.exitCode = await restarted;
} else if (isImpactWorker()) {
  // this bundle started as one of `impact`'s worker threads
  await runImpactWorker();
} else {
  const script = new URL(import.meta.url);
  const code = await runCli(process.argv.slice(2), {
    ...nodeIO,
    impactPool: (n) => workerPool(script, n ?? defaultWorkers()),
    // one shard on this thread, the others in worker threads (src/impact/shard.ts localShard)
    impactShards: (n) => [...Array.from({ length: n - 1 }, () => threadShard(script)), localShard()],
  });
  // Let stdout drain before exiting (piped output is written asynchronously).
  process.stdout.write('', () => process.exit(code));
}
