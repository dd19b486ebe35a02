/**
 * The Go side's JS surface (wasm/main_js.go) and a typed, synchronous wrapper around it.
 * Strings in, JSON strings out. Runs wherever the Go program runs (Node in-process, or the
 * Web Worker).
 */
import type {
  CelBatchItem,
  CelCompileOptions,
  CelCompileResultExt,
  CelContext,
  CelDeclarations,
  CelEngineInfo,
  CelEvalResult,
  CelEvalSuccessExt,
  CelTypeAt,
} from './types';

/** The engine's calls (wasm/main_js.go): strings in, JSON strings out (text for setInputs). */
export interface RawCelApi {
  compile(expression: string, context: string, optionsJSON: string): string;
  evaluate(expression: string, context: string, optionsJSON: string, inputsId: string): string;
  evaluateBatch(inputsId: string, itemsJSON: string): string;
  setInputs(id: string, inputsJSON: string): string;
  dropInputs(id: string): string;
  declarations(context: string, optionsJSON: string): string;
  typeAt(expression: string, context: string, optionsJSON: string, offset: number): string;
  info(): string;
}

export const READY_GLOBAL = '__admissionWorkbenchCelReady';

export type EvalResult = CelEvalResult | CelEvalSuccessExt;

/** Synchronous engine operations on the Go program. */
export interface SyncEngine {
  compile(expression: string, context: CelContext, options?: CelCompileOptions): CelCompileResultExt;
  /** inputsId from setInputs. */
  evaluate(expression: string, context: CelContext, inputsId: string, options?: CelCompileOptions): EvalResult;
  /** One result per item, in order (the same shapes as evaluate). */
  evaluateBatch(inputsId: string, items: readonly CelBatchItem[]): EvalResult[];
  /** Returns '' or an error message (invalid inputs). */
  setInputs(id: string, inputsJSON: string): string;
  dropInputs(id: string): void;
  declarations(context: CelContext, options?: CelCompileOptions): CelDeclarations;
  typeAt(expression: string, context: CelContext, offset: number, options?: CelCompileOptions): CelTypeAt;
  info(): CelEngineInfo;
}

export function optionsJSON(options?: CelCompileOptions): string {
  return options ? JSON.stringify(options) : '';
}

/**
 * A batch for the Go side: "\0" then expression, context, options JSON and group of each
 * item, each field ended by "\0" (JSON decoding is slow in WebAssembly: a quarter of a
 * batch's time); JSON when a field contains a NUL character.
 */
export function packBatch(items: readonly CelBatchItem[]): string {
  let out = '\0';
  const options = new Map<object, string>();
  for (const it of items) {
    let o = '';
    if (it.options) {
      o = options.get(it.options) ?? JSON.stringify(it.options);
      options.set(it.options, o);
    }
    const group = it.group ?? '';
    if (it.expression.includes('\0') || it.context.includes('\0') || o.includes('\0') || group.includes('\0')) {
      return JSON.stringify(items);
    }
    out += `${it.expression}\0${it.context}\0${o}\0${group}\0`;
  }
  return out;
}

function parse<T>(json: string, fallback: (message: string) => T): T {
  try {
    return JSON.parse(json) as T;
  } catch (e) {
    return fallback(`engine returned invalid JSON: ${String(e)}`);
  }
}

export function wrapRaw(raw: RawCelApi): SyncEngine {
  return {
    compile(expression, context, options) {
      const r = parse<CelCompileResultExt>(raw.compile(expression, context, optionsJSON(options)), (message) => ({
        ok: false,
        message,
        issues: [],
      }));
      if (!Array.isArray(r.issues)) r.issues = [];
      return r;
    },
    evaluate(expression, context, inputsId, options) {
      const r = parse<EvalResult>(
        raw.evaluate(expression, context, optionsJSON(options), inputsId),
        (message) => ({ ok: false, stage: 'runtime', message }),
      );
      if (r.ok && !('value' in r)) (r as { value: unknown }).value = null;
      return r;
    },
    evaluateBatch(inputsId, items) {
      const failAll = (message: string): EvalResult[] => items.map(() => ({ ok: false, stage: 'runtime', message }));
      let packed: string;
      try {
        packed = packBatch(items);
      } catch (e) {
        return failAll(`batch cannot be serialised: ${String(e)}`);
      }
      const rs = parse<EvalResult[]>(raw.evaluateBatch(inputsId, packed), failAll);
      if (!Array.isArray(rs) || rs.length !== items.length) {
        return failAll(Array.isArray(rs) && rs.length === 1 && !rs[0]!.ok ? rs[0]!.message : 'engine returned a malformed batch');
      }
      for (const r of rs) if (r.ok && !('value' in r)) (r as { value: unknown }).value = null;
      return rs;
    },
    setInputs(id, inputsJSON) {
      return raw.setInputs(id, inputsJSON);
    },
    dropInputs(id) {
      raw.dropInputs(id);
    },
    declarations(context, options) {
      return parse<CelDeclarations>(raw.declarations(context, optionsJSON(options)), (message) => ({
        ok: false,
        message,
        context,
        resultTypes: [],
        variables: [],
        types: {},
        functions: [],
        macros: [],
      }));
    },
    typeAt(expression, context, offset, options) {
      return parse<CelTypeAt>(raw.typeAt(expression, context, optionsJSON(options), offset), () => ({ ok: false }));
    },
    info() {
      return JSON.parse(raw.info()) as CelEngineInfo;
    },
  };
}

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
  go._ids = new Map<unknown, number>([[0, 1], [null, 2], [true, 3], [false, 4], [globalThis, 5], [go, 6]]);
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
export async function startGo(module: WebAssembly.Module): Promise<RawCelApi> {
  const g = globalThis as unknown as Record<string, unknown>;
  const GoCtor = g.Go as (new () => GoHost) | undefined;
  if (typeof GoCtor !== 'function') throw new Error('wasm_exec.js did not define globalThis.Go');
  const go = new GoCtor();
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

/** What wasm/main_js.go exports (go:wasmexport) besides Go's own run/resume/getsp. */
interface CelExports {
  mem: WebAssembly.Memory;
  celBuffer(size: number): number;
  celCall(op: number, size: number): number;
  celResponse(): number;
}

/** The ops in the order of wasm/main_js.go's `ops` table (an op is called by its index). */
const OPS = ['compile', 'evaluate', 'evaluateBatch', 'setInputs', 'dropInputs', 'declarations', 'typeAt', 'info'] as const;

/**
 * The raw API over the engine's exports: the arguments are written into the engine's
 * request buffer (each a little-endian uint32 byte length, then its UTF-8 bytes) and the
 * answer is read from its response buffer. No syscall/js on this path: see main_js.go.
 */
export function rawFromExports(ex: CelExports): RawCelApi {
  if (typeof ex.celCall !== 'function') throw new Error('the CEL engine does not export celCall (rebuild it: npm run build:wasm)');
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const call = (op: (typeof OPS)[number], ...args: string[]): string => {
    let bound = 0;
    for (const a of args) bound += 4 + 3 * a.length; // UTF-8 takes at most 3 bytes per UTF-16 unit
    const base = ex.celBuffer(bound); // may grow the memory: take views after it
    const bytes = new Uint8Array(ex.mem.buffer, base, bound);
    const view = new DataView(ex.mem.buffer, base, bound);
    let size = 0;
    for (const a of args) {
      const { written } = encoder.encodeInto(a, bytes.subarray(size + 4));
      view.setUint32(size, written, true);
      size += 4 + written;
    }
    const length = ex.celCall(OPS.indexOf(op), size);
    return decoder.decode(new Uint8Array(ex.mem.buffer, ex.celResponse(), length));
  };
  return {
    compile: (expression, context, options) => call('compile', expression, context, options),
    evaluate: (expression, context, options, inputsId) => call('evaluate', expression, context, options, inputsId),
    evaluateBatch: (inputsId, items) => call('evaluateBatch', inputsId, items),
    setInputs: (id, inputs) => call('setInputs', id, inputs),
    dropInputs: (id) => call('dropInputs', id),
    declarations: (context, options) => call('declarations', context, options),
    typeAt: (expression, context, options, offset) => call('typeAt', expression, context, options, String(offset)),
    info: () => call('info'),
  };
}
