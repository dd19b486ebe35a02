/**
 * The floor of the CEL engine's start in `npm run bench -- --chromium` (scripts/bench.mjs): a
 * minimal Go WebAssembly program (scripts/go-min) fetched, compiled and started on a blank page
 * of the same server, the way the worker starts a plain Go program (compileStreaming,
 * instantiate, go.run until it signals). Its cold start (a new browser profile) is "the Go
 * floor" the engine-ready rows are read against: measured in the same run, it moves with the
 * machine's load as they do. Beside it, the engine alone on a blank page (pre-initialised,
 * scripts/wasm-snapshot.mjs: instantiate is its start).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { VALUES_SECTION } from './wasm-snapshot.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** fetch + compile and start of `wasm` (a file of dist/cel/) on a new page of `context`, in ms. */
async function startOf(context, url, wasm) {
  const page = await context.newPage();
  await page.goto(`${url}cel/wasm_exec.js`);
  const [compile, start] = await page.evaluate(
    async ({ wasm, valuesSection }) => {
      // biome-ignore lint/security/noGlobalEval: indirect eval runs wasm_exec.js in the page's global scope, where it must define Go
      (0, eval)(await (await fetch('wasm_exec.js')).text());
      const t0 = performance.now();
      const module = await WebAssembly.compileStreaming(fetch(wasm));
      const t1 = performance.now();
      const go = new Go();
      const instance = await WebAssembly.instantiate(module, go.importObject);
      if (WebAssembly.Module.customSections(module, valuesSection).length === 0) {
        const ready = new Promise((r) => (globalThis.__admissionWorkbenchCelReady = r));
        go.run(instance);
        await ready;
      }
      return [t1 - t0, performance.now() - t1];
    },
    { wasm, valuesSection: VALUES_SECTION },
  );
  await page.waitForTimeout(2000);
  await page.close();
  return { compile, start, total: compile + start };
}

/**
 * Builds go-min into dist/cel/, measures it cold (`runs` new profiles) and warm (a second page of
 * the first profile), and the engine alone; prints them. Resolves with the floor (the median cold
 * total, ms), or undefined when go-min does not build.
 */
export async function goFloor({ url, chromiumPath, chromiumArgs, runs = 3 }) {
  const goMin = 'dist/cel/go-min.wasm';
  const built = spawnSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', `../../${goMin}`, '.'], {
    cwd: 'scripts/go-min',
    env: { ...process.env, GOOS: 'js', GOARCH: 'wasm' },
  });
  if (built.status !== 0) {
    console.log(`the Go floor: scripts/go-min did not build (${String(built.stderr).trim()})`);
    return undefined;
  }
  const fmt = (t) => `${t.total.toFixed(0)} ms (fetch + compile ${t.compile.toFixed(0)}, start ${t.start.toFixed(0)})`;
  const cold = [];
  let warm;
  const engine = {};
  try {
    for (let i = 0; i < runs; i++) {
      const profile = mkdtempSync(join(tmpdir(), 'bench-profile-'));
      const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, args: chromiumArgs });
      try {
        cold.push(await startOf(context, url, 'go-min.wasm'));
        if (i === 0) {
          warm = await startOf(context, url, 'go-min.wasm');
          engine.cold = await startOf(context, url, 'cel.wasm');
          engine.warm = await startOf(context, url, 'cel.wasm');
        }
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(goMin, { force: true });
  }
  const floor = median(cold.map((t) => t.total));
  console.log(
    `the Go floor: a minimal Go WebAssembly program (scripts/go-min) fetched, compiled and started on a blank page, new profile: median ${floor.toFixed(0)} ms (${cold.map(fmt).join('; ')}); a later page of the same profile ${fmt(warm)}`,
  );
  console.log(`the engine alone on a blank page (main thread): new profile ${fmt(engine.cold)}; a later page ${fmt(engine.warm)}`);
  return floor;
}
