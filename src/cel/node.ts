/**
 * Node loader (vitest, benchmarks, scripts): reads the built cel.wasm from disk and runs
 * the Go program in-process. `CEL_WASM` overrides the path; default
 * `public/cel/cel.wasm` relative to the repository; wasm_exec.js is taken from the same
 * directory. Never bundled for the browser (the node: modules are imported dynamically).
 */
import type { EngineFile } from './assets';
import { startGo, type RawCall } from './raw';

// Hidden from the bundler: this file is only ever loaded in Node.
const nodeImport = (name: string): Promise<unknown> => import(/* @vite-ignore */ `node:${name}`);

/** wasm_exec.js's fs stub, from the first load. */
let goFs: unknown;

/** `file`: the engine generation (assets.ts engineFile), beside cel.wasm. */
export async function loadRawInNode(file: EngineFile = 'cel.wasm'): Promise<RawCall> {
  const fs = (await nodeImport('fs')) as typeof import('node:fs');
  const path = (await nodeImport('path')) as typeof import('node:path');
  const url = (await nodeImport('url')) as typeof import('node:url');
  const vm = (await nodeImport('vm')) as typeof import('node:vm');
  const here = path.dirname(url.fileURLToPath(import.meta.url));
  const defaultPath = process.env.CEL_WASM ? path.resolve(process.env.CEL_WASM) : path.resolve(here, '..', '..', 'public', 'cel', 'cel.wasm');
  const wasmPath = file === 'cel.wasm' ? defaultPath : path.join(path.dirname(defaultPath), file);
  if (!fs.existsSync(wasmPath)) {
    throw new Error(`CEL engine not built: ${wasmPath} is missing (run npm run build:wasm)`);
  }
  const execPath = path.join(path.dirname(wasmPath), 'wasm_exec.js');
  if (!fs.existsSync(execPath)) throw new Error(`wasm_exec.js is missing next to ${wasmPath}`);

  const g = globalThis as unknown as Record<string, unknown>;
  // Go must not see a real Node fs (zone lookups would block inside a JS callback), but
  // wasm_exec.js's ENOSYS stub, which it installs only when globalThis.fs is absent. The
  // stub is kept for later loads: a snapshotted engine looks its JS values up on every start.
  const savedFs = g.fs;
  try {
    if (typeof g.Go !== 'function') {
      delete g.fs;
      // wasm_exec.js is a classic script that defines globalThis.Go: run it as one.
      vm.runInThisContext(fs.readFileSync(execPath, 'utf8'), { filename: execPath });
      goFs = g.fs;
    }
    if (goFs !== undefined) g.fs = goFs;
    return await startGo(await WebAssembly.compile(fs.readFileSync(wasmPath)));
  } finally {
    // runtime.wasmWrite (Go's own prints) reads globalThis.fs at call time: the stub stays
    // unless the host had an fs of its own.
    if (savedFs !== undefined) g.fs = savedFs;
  }
}
