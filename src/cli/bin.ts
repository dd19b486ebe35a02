/** Entry of the built CLI (dist-cli/admission-workbench.mjs): runs the command and exits with its code. */
import { defaultWorkers, isImpactWorker, runImpactWorker, threadShard, workerPool } from './impact-workers';
import { runCli } from './main';
import { nodeIO } from './node-io';

// The native CEL engine when built and up to date (npm run build:native), else WebAssembly (src/cel/native.ts).
process.env.CEL_ENGINE ??= 'auto';

if (isImpactWorker()) {
  // this bundle started as one of `impact`'s worker threads
  await runImpactWorker();
} else {
  const script = new URL(import.meta.url);
  const code = await runCli(process.argv.slice(2), {
    ...nodeIO,
    impactPool: (n) => workerPool(script, n ?? defaultWorkers()),
    impactShards: (n) => Array.from({ length: n }, () => threadShard(script)),
  });
  // Let stdout drain before exiting (piped output is written asynchronously).
  process.stdout.write('', () => process.exit(code));
}
