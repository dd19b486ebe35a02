/** Entry of the built CLI (dist-cli/admission-workbench.mjs): runs the command and exits with its code. */
import { defaultWorkers, isImpactWorker, runImpactWorker, threadShard, workerPool } from './impact-workers';
import { localShard } from '../impact';
import { runCli } from './main';
import { nodeIO } from './node-io';

// The CEL engine: the native one when built and up to date (npm install and npm run build build it
// where Go is), else WebAssembly; CEL_ENGINE chooses (src/cel/engine.ts). `impact` says which it used.

if (isImpactWorker()) {
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
