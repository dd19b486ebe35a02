/**
 * The CLI benchmarks' shared runner (scripts/bench-cli.mjs, scripts/bench-migrate.mjs): the CLI
 * bundle built once, then run as a user or CI runs it, a new Node process each run (the engine's
 * start included), timed by median.
 */
import { spawnSync } from 'node:child_process';

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Builds dist-cli/ (so that no build is counted in a run). */
export const buildCli = () => spawnSync('npx', ['vite', 'build', '-c', 'vite.cli.config.ts'], { stdio: 'inherit' });

/** Median wall time of `runs` runs of the CLI bundle with `args`, and the last run's exit code and output. */
export function timeCli(args, runs = 3) {
  const ms = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    // the bundle itself (bin/ would rebuild it whenever a file under src/ changes during the run)
    last = spawnSync(process.execPath, ['dist-cli/admission-workbench.mjs', ...args], {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
      env: { ...process.env, CEL_WASM: process.env.CEL_WASM ?? 'public/cel/cel.wasm' },
    });
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), code: last.status, stdout: last.stdout, stderr: last.stderr };
}
