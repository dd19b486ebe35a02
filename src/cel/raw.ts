/**
 * The Go side's calls (wasm/main_js.go) as one function: an operation's index and its
 * arguments as strings in, the answer's text out. Runs wherever the Go program runs (Node
 * in-process, or the Web Worker); ops.ts makes the typed operations from it.
 */

/** The engine's one call: `OP_INDEX[op]` and the strings of `OPS[op].wire(...)` in, the answer's text out. */
export type RawCall = (index: number, args: readonly string[]) => string;

export const READY_GLOBAL = '__admissionWorkbenchCelReady';

/** Go's host object (wasm_exec.js): what `run` sets up, which a snapshot's resume sets instead. */
interface GoHost {
  importObject: WebAssembly.Imports;
  env: Record<string, string>;
  run(instance: WebAssembly.Instance): Promise<void>;
  _inst: WebAssembly.Instance;
  mem: DataView;
  _values: unknown[];
  _goRefCounts: number[];
  _ids: Map<unknown, number>;
  _idPool: number[];
  exited: boolean;
}

/** The custom section of a pre-initialised engine (scripts/wasm-snapshot.mjs writes it). */
export const SNAPSHOT_SECTION = 'admission-workbench.js-values';

/** The JS values the snapshotted program holds references to, from ids 7 on. */
interface SnapshotValues {
  values: ({ path: string | null } | { value: string | number | boolean })[];
  refCounts: number[];
  idPool: number[];
}

/**
 * Sets up wasm_exec.js's Go object as `run` would have left it when the program had
 * started: the instance and its memory, and the table of JS values by id, each looked up
 * again where the build found it (`fs`, `fs.constants`, `Uint8Array`, …). The memory and
 * globals already hold the started program, so nothing runs.
 */
function resumeGo(go: GoHost, instance: WebAssembly.Instance, snapshot: SnapshotValues): void {
  const at = (path: string | null): unknown =>
    path === null ? undefined : path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], globalThis);
  go._inst = instance;
  go.mem = new DataView((instance.exports.mem as WebAssembly.Memory).buffer);
  go._values = [NaN, 0, null, true, false, globalThis, go, ...snapshot.values.map((v) => ('value' in v ? v.value : at(v.path)))];
  go._goRefCounts = [...new Array<number>(7).fill(Infinity), ...snapshot.refCounts];
  go._ids = new Map<unknown, number>([
    [0, 1],
    [null, 2],
    [true, 3],
    [false, 4],
    [globalThis, 5],
    [go, 6],
  ]);
  go._values.forEach((v, id) => {
    if (id >= 7 && v !== undefined) go._ids.set(v, id);
  });
  go._idPool = [...snapshot.idPool];
  go.exited = false;
}

/**
 * Starts the engine from its compiled module. globalThis.Go (wasm_exec.js) must already be
 * defined. A pre-initialised module (the build's default) resumes at once; a plain one runs
 * main(), which runs the package initialisers and says when it is ready.
 */
export async function startGo(module: WebAssembly.Module): Promise<RawCall> {
  const g = globalThis as unknown as Record<string, unknown>;
  const GoCtor = g.Go as (new () => GoHost) | undefined;
  if (typeof GoCtor !== 'function') throw new Error('wasm_exec.js did not define globalThis.Go');
  const go = new GoCtor();
  zonesNotFound(g.fs);
  const [section] = WebAssembly.Module.customSections(module, SNAPSHOT_SECTION);
  const instance = await WebAssembly.instantiate(module, go.importObject);
  if (section) {
    resumeGo(go, instance, JSON.parse(new TextDecoder().decode(section)) as SnapshotValues);
    return rawFromExports(instance.exports as unknown as CelExports);
  }
  // GOGC from the Node environment (a tuning knob for benchmarks of a plain build).
  const gogc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.GOGC;
  if (gogc) go.env = { ...go.env, GOGC: gogc };
  const ready = new Promise<void>((resolve) => {
    g[READY_GLOBAL] = () => resolve();
  });
  const exited = go.run(instance).then(() => {
    throw new Error('the CEL engine exited');
  });
  await Promise.race([ready, exited]);
  return rawFromExports(instance.exports as unknown as CelExports);
}

/**
 * wasm_exec.js's fs stub answers every open with ENOSYS, so Go's time.LoadLocation, which tries
 * the host's zoneinfo before the embedded tzdata (main_js.go), fails an unknown zone with "not
 * implemented on js" where the apiserver says "unknown time zone X". An open that finds nothing
 * (ENOENT) makes Go fall through to the embedded data and word the failure as the apiserver.
 * Only the stub is changed (its constants are -1); a host's real fs is left alone.
 */
function zonesNotFound(fs: unknown): void {
  const stub = fs as { constants?: { O_WRONLY?: number }; open?: unknown } | undefined;
  if (stub?.constants?.O_WRONLY !== -1) return;
  stub.open = (_path: string, _flags: number, _mode: number, callback: (err: Error) => void) =>
    callback(Object.assign(new Error('no such file or directory'), { code: 'ENOENT' }));
}

/** What wasm/main_js.go exports (go:wasmexport) besides Go's own run/resume/getsp. */
export interface CelExports {
  mem: WebAssembly.Memory;
  celBuffer(size: number): number;
  celCall(op: number, size: number): number;
  celResponse(): number;
}

/**
 * The raw call over the engine's exports: the arguments are written into the engine's
 * request buffer (each a little-endian uint32 byte length, then its UTF-8 bytes) and the
 * answer is read from its response buffer. No syscall/js on this path: see main_js.go.
 */
export function rawFromExports(ex: CelExports): RawCall {
  if (typeof ex.celCall !== 'function') throw new Error('the CEL engine does not export celCall (rebuild it: npm run build:wasm)');
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return (index, args) => {
    let bound = 0;
    for (const a of args) bound += 4 + 3 * a.length; // UTF-8 takes at most 3 bytes per UTF-16 unit
    // Go's uint32 addresses come through WebAssembly's i32 as signed: past 2 GiB of memory they read
    // negative unless taken as unsigned (the engine's memory does grow past it: a differential's thousands of policies)
    const base = ex.celBuffer(bound) >>> 0; // may grow the memory: take views after it
    const bytes = new Uint8Array(ex.mem.buffer, base, bound);
    const view = new DataView(ex.mem.buffer, base, bound);
    let size = 0;
    for (const a of args) {
      const { written } = encoder.encodeInto(a, bytes.subarray(size + 4));
      view.setUint32(size, written, true);
      size += 4 + written;
    }
    const length = ex.celCall(index, size);
    return decoder.decode(new Uint8Array(ex.mem.buffer, ex.celResponse() >>> 0, length));
  };
}
