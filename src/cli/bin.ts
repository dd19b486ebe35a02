/** Entry of the built CLI (dist-cli/admission-workbench.mjs): runs the command and exits with its code. */
import { runCli } from './main';
import { nodeIO } from './node-io';

// The native CEL engine when built and up to date (npm run build:native), else WebAssembly (src/cel/native.ts).
process.env.CEL_ENGINE ??= 'auto';

const code = await runCli(process.argv.slice(2), nodeIO);
// Let stdout drain before exiting (piped output is written asynchronously).
process.stdout.write('', () => process.exit(code));
