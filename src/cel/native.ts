/**
 * The native engine (Node only: the CLI): the same Go program as cel.wasm, built natively by
 * `npm run build:native` (scripts/build-native.mjs), run as a child process that answers
 * wasm/ops.go's operations over stdin/stdout (wasm/main_native.go `serve`). A request is the
 * op's index and its arguments' byte length (little-endian uint32 each), then the arguments
 * encoded as for the WebAssembly request buffer (raw.ts); an answer is its byte length and
 * its text. Requests are answered in order, so answers are matched to requests by position.
 * Never bundled for the browser (the node: modules are imported dynamically).
 */
import { OP_INDEX, type AsyncRawCall, type EngineFailure } from './ops';

const nodeImport = (name: string): Promise<unknown> => import(/* @vite-ignore */ `node:${name}`);

/** The machine's cores (one engine process each keeps them busy). */
export async function cores(): Promise<number> {
  const os = (await nodeImport('os')) as typeof import('node:os');
  return os.availableParallelism();
}

/** Where the binary is by default, under the repository (ignored by git). */
export const NATIVE_ENGINE_PATH = 'node_modules/.cache/admission-workbench/cel-native';

/**
 * The built native engine (`generation`: another engine generation's, `<path>-1.38`), or why it cannot be used: `CEL_NATIVE` names it, else it is
 * NATIVE_ENGINE_PATH under the repository (the first directory up from here with
 * wasm/go.mod). Where wasm/ is there, the binary must be newer than every file in it (as
 * scripts/build-native.mjs decides).
 */
export async function findNativeEngine(generation?: string): Promise<{ path: string } | { reason: string }> {
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
  const base = env ? path.resolve(env) : root ? path.join(root, NATIVE_ENGINE_PATH) : undefined;
  // another engine generation's binary is beside the default one, named by its release (scripts/engine-builds.mjs)
  const bin = base && generation ? `${base}-${generation}` : base;
  // an installed package carries the WebAssembly engine only (no wasm/ to build from)
  if (!bin) return { reason: 'this installation has no native CEL engine (CEL_NATIVE=path names one built from the repository)' };
  if (!fs.existsSync(bin)) return { reason: `the native CEL engine is not built (npm run build:native; it needs Go 1.26+): ${bin} is missing` };
  if (root) {
    const newest = (dir: string): number =>
      fs.readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return Math.max(m, newest(p));
        return e.name.endsWith('_test.go') ? m : Math.max(m, fs.statSync(p).mtimeMs);
      }, 0);
    if (fs.statSync(bin).mtimeMs < newest(path.join(root, 'wasm')))
      return { reason: `the native CEL engine is older than wasm/ (npm run build:native): ${bin}` };
  }
  return { path: bin };
}

/** A running native engine: its raw call, and `close()` (ends the process). */
export interface NativeEngine {
  call: AsyncRawCall;
  close(): void;
  /** Calls sent and not yet answered. */
  outstanding(): number;
  /** false once the process has exited or `close()` was called (every call then answers a failure of kind `engine`). */
  alive(): boolean;
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
  // closed is dead at once, not at the exit event: a call in between would reach a process that
  // may still answer it (a test that ends the engine then saw a verdict under load)
  const close = () => {
    die('the native CEL engine exited (closed)');
    child.kill();
  };
  return { call, close, outstanding: () => waiting.length, alive: () => !dead };
}

/**
 * Several engine processes, one per core (the CLI's impact replay: CEL runs in these processes,
 * so the thread that asks needs no engine of its own). Stored state (inputs under an id, schema
 * assets) lives in one of them, the home: `call` sends every operation there. `pick()` gives the
 * least busy live engine, for a sequence of operations that stores nothing beyond itself
 * (evaluateBatchOnce: the inputs stored, the batch, the inputs dropped, all on that one engine).
 * When the home exits, the next live engine becomes the home and gets the stored inputs and
 * schemas again (kept here, as the browser's worker client keeps them), and the calls the dead
 * one failed are sent there again; when none is left, calls answer the failure.
 */
export interface NativePool {
  call: AsyncRawCall;
  pick(): NativeEngine;
  /**
   * Runs `sequence` (calls that store nothing beyond it) on the least busy live engine, and again
   * on another while the one it ran on exited before it finished (its answers are then failures).
   */
  onOne<R>(sequence: (call: AsyncRawCall) => Promise<R>): Promise<R>;
  /**
   * The engine that is the home now: its own `call` keys its wire session of batch items
   * (src/cel/engine.ts sessionOf), whether a batch reaches it through `call` or `onOne`.
   */
  home(): NativeEngine;
  /** Starts engines until `n` are live (never fewer than now); resolves with how many are. */
  grow(n: number): Promise<number>;
  size(): number;
  close(): void;
}

export function nativePool(first: NativeEngine, start: () => Promise<NativeEngine>): NativePool {
  const engines = [first];
  const live = () => engines.filter((e) => e.alive());
  /** What the home holds, to give a new home: setInputs and setSchemas arguments by their key. */
  const stored = new Map<string, readonly [number, readonly string[]]>();
  const remember = (index: number, args: readonly string[]) => {
    if (index === OP_INDEX.setInputs || index === OP_INDEX.setSchemas) stored.set(`${index}\u0000${args[0]}`, [index, args]);
    else if (index === OP_INDEX.dropInputs) stored.delete(`${OP_INDEX.setInputs}\u0000${args[0]}`);
  };
  let home = first;
  const homeCall: AsyncRawCall = async (index, args) => {
    remember(index, args);
    for (;;) {
      const e = home;
      const answer = await e.call(index, args);
      if (typeof answer === 'string' || e.alive()) return answer;
      // the home died with this call outstanding: the next live one takes its place
      if (home === e) {
        const next = live()[0];
        if (!next) return answer;
        home = next;
        for (const [i, a] of stored.values()) void next.call(i, a);
      }
    }
  };
  const pick = (): NativeEngine => {
    const ok = live();
    return ok.length ? ok.reduce((a, b) => (b.outstanding() < a.outstanding() ? b : a)) : first;
  };
  return {
    call: homeCall,
    home: () => home,
    pick,
    async onOne(sequence) {
      for (;;) {
        const e = pick();
        const r = await sequence(e.call);
        if (e.alive() || !live().length) return r;
      }
    },
    async grow(n) {
      const missing = n - live().length;
      if (missing > 0) {
        const started = await Promise.allSettled(Array.from({ length: missing }, start));
        for (const s of started) if (s.status === 'fulfilled') engines.push(s.value);
      }
      return live().length;
    },
    size: () => live().length,
    close: () => engines.forEach((e) => e.close()),
  };
}
