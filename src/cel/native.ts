/**
 * The native engine (Node only: the CLI): the same Go program as cel.wasm, built natively by
 * `npm run build:native` (scripts/build-native.mjs), run as a child process that answers
 * wasm/ops.go's operations over stdin/stdout (wasm/main_native.go `serve`). A request is the
 * op's index and its arguments' byte length (little-endian uint32 each), then the arguments
 * encoded as for the WebAssembly request buffer (raw.ts); an answer is its byte length and
 * its text. Requests are answered in order, so answers are matched to requests by position.
 * Never bundled for the browser (the node: modules are imported dynamically).
 */
import type { AsyncRawCall, EngineFailure } from './ops';

const nodeImport = (name: string): Promise<unknown> => import(/* @vite-ignore */ `node:${name}`);

/** Where the binary is by default, under the repository (ignored by git). */
export const NATIVE_ENGINE_PATH = 'node_modules/.cache/admission-workbench/cel-native';

/**
 * The built native engine, or why it cannot be used: `CEL_NATIVE` names it, else it is
 * NATIVE_ENGINE_PATH under the repository (the first directory up from here with
 * wasm/go.mod). Where wasm/ is there, the binary must be newer than every file in it (as
 * scripts/build-native.mjs decides).
 */
export async function findNativeEngine(): Promise<{ path: string } | { reason: string }> {
  const fs = (await nodeImport('fs')) as typeof import('node:fs');
  const path = (await nodeImport('path')) as typeof import('node:path');
  const url = (await nodeImport('url')) as typeof import('node:url');
  let root: string | undefined;
  for (let dir = path.dirname(url.fileURLToPath(import.meta.url)), i = 0; i < 6; i++, dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'wasm', 'go.mod'))) {
      root = dir;
      break;
    }
  }
  const env = process.env.CEL_NATIVE;
  const bin = env ? path.resolve(env) : root ? path.join(root, NATIVE_ENGINE_PATH) : undefined;
  if (!bin || !fs.existsSync(bin)) return { reason: `the native CEL engine is not built (npm run build:native)${bin ? `: ${bin} is missing` : ''}` };
  if (root) {
    const newest = (dir: string): number =>
      fs.readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return Math.max(m, newest(p));
        return e.name.endsWith('_test.go') ? m : Math.max(m, fs.statSync(p).mtimeMs);
      }, 0);
    if (fs.statSync(bin).mtimeMs < newest(path.join(root, 'wasm'))) return { reason: `the native CEL engine is older than wasm/ (npm run build:native): ${bin}` };
  }
  return { path: bin };
}

/** A running native engine: its raw call, and `close()` (ends the process). */
export interface NativeEngine {
  call: AsyncRawCall;
  close(): void;
}

/**
 * Starts the engine at `bin`. The process does not keep Node alive while no request is
 * waiting; it ends when Node does (its stdin closes). If it exits, every waiting and later
 * request answers a failure of kind `engine`.
 */
export async function startNativeEngine(bin: string): Promise<NativeEngine> {
  const cp = (await nodeImport('child_process')) as typeof import('node:child_process');
  const child = cp.spawn(bin, ['serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((answer: string | EngineFailure) => void)[] = [];
  let dead: EngineFailure | undefined;
  const die = (message: string) => {
    dead ??= { ok: false, kind: 'engine', message };
    for (const answer of waiting.splice(0)) answer(dead);
  };
  child.on('error', (e) => die(`the native CEL engine failed: ${e.message}`));
  child.on('exit', (code, signal) => die(`the native CEL engine exited (${signal ?? code})`));
  child.stdin.on('error', (e) => die(`the native CEL engine failed: ${e.message}`));
  const idle = () => {
    child.unref();
    (child.stdout as unknown as { unref(): void }).unref();
    (child.stdin as unknown as { unref(): void }).unref();
  };
  const busy = () => {
    child.ref();
    (child.stdout as unknown as { ref(): void }).ref();
  };
  idle();

  let chunks: Buffer[] = [];
  let held = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    held += chunk.length;
    let buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, held);
    let at = 0;
    while (buf.length - at >= 4) {
      const size = buf.readUInt32LE(at);
      if (buf.length - at - 4 < size) break;
      const text = buf.toString('utf8', at + 4, at + 4 + size);
      at += 4 + size;
      waiting.shift()?.(text);
    }
    buf = buf.subarray(at);
    chunks = buf.length ? [buf] : [];
    held = buf.length;
    if (waiting.length === 0) idle();
  });

  let corked = false;
  const uncork = () => {
    corked = false;
    child.stdin.uncork();
  };
  const call: AsyncRawCall = (index, args) => {
    if (dead) return Promise.resolve(dead);
    let size = 0;
    for (const a of args) size += 4 + Buffer.byteLength(a);
    const frame = Buffer.allocUnsafe(8 + size);
    frame.writeUInt32LE(index, 0);
    frame.writeUInt32LE(size, 4);
    let at = 8;
    for (const a of args) {
      const n = frame.write(a, at + 4);
      frame.writeUInt32LE(n, at);
      at += 4 + n;
    }
    busy();
    // the requests of one turn (a batch's inputs, the batch, the inputs dropped; several requests
    // in flight) leave in one write: a write per request was a sixth of a replay's time
    if (!corked) {
      corked = true;
      child.stdin.cork();
      process.nextTick(uncork);
    }
    child.stdin.write(frame);
    return new Promise((resolve) => waiting.push(resolve));
  };
  return { call, close: () => child.kill() };
}
