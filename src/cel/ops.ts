/**
 * The engine's operations, listed once. `CelOps` says what each takes and gives; `OPS` says how
 * each goes to the Go side and back (wasm/main_js.go reads strings, answers JSON), which worker
 * deadline applies, and what each answers when the engine cannot (unavailable, past the
 * deadline, a fault). The in-process engine (raw.ts), the worker (worker.ts, browser.ts) and the
 * public functions (index.ts) are all made from this table: a new operation is one entry here,
 * one in main_js.go's `ops`, and a public function if callers need one.
 */
import type {
  CelBatchItem,
  CelCompileOptions,
  CelCompileResult,
  CelContext,
  CelDeclarations,
  CelEngineInfo,
  CelEvalFailure,
  CelEvalResult,
  CelFailure,
  CelInputsResult,
  CelReads,
  CelTypeAt,
  CelTypeCheckOptions,
} from './types';
import type { RawCall } from './raw';
import { tupleMap, type TupleMap } from '../base/tuple-map';

/** Every operation of the engine, synchronous (the in-process engine; the worker runs these). */
export interface CelOps {
  compile(expression: string, context: CelContext, options?: CelCompileOptions): CelCompileResult;
  /** inputsId from setInputs. */
  evaluate(expression: string, context: CelContext, inputsId: string, options?: CelCompileOptions): CelEvalResult;
  /** One result per item, in order (the same shapes as evaluate). */
  evaluateBatch(inputsId: string, items: readonly CelBatchItem[]): CelEvalResult[];
  /** setInputs + evaluateBatch + dropInputs in one: inputs used for one batch (inputs that cannot be used: every item's failure of kind `inputs`). */
  evaluateBatchOnce(inputsJSON: string, items: readonly CelBatchItem[]): CelEvalResult[];
  setInputs(inputsId: string, inputsJSON: string): CelInputsResult;
  dropInputs(inputsId: string): void;
  declarations(context: CelContext, options?: CelCompileOptions): CelDeclarations;
  typeAt(expression: string, context: CelContext, offset: number, options?: CelCompileOptions): CelTypeAt;
  info(): CelEngineInfo | CelFailure;
  /** Keeps a schema asset (public/cel/schemas-1.3x.json's text) under a key, for typeCheck. */
  setSchemas(key: string, assetJSON: string): CelSetSchemasResult;
  /** Type-checks a ValidatingAdmissionPolicy (JSON) as kube-controller-manager does, with the schemas stored under `schemas`. */
  typeCheck(policyJSON: string, schemas: string, options: CelTypeCheckOptions): CelRawTypeCheck;
  /** The paths of each object an expression (and its policy's variables) can read (wasm/reads.go). */
  reads(expression: string, context: CelContext, options?: CelCompileOptions): CelReads;
}

export type CelSetSchemasResult = { ok: true; kinds: number; definitions: number } | CelFailure;
/** The engine's answer; `schemasMissing` when `schemas` is not loaded in this engine (a new worker). */
export type CelRawTypeCheck =
  | { ok: true; warnings: { fieldRef: string; warning: string }[] }
  | (CelFailure & { schemasMissing?: boolean; warnings: { fieldRef: string; warning: string }[] });

export type CelOp = keyof CelOps;
export type OpArgs<K extends CelOp> = Parameters<CelOps[K]>;
export type OpResult<K extends CelOp> = ReturnType<CelOps[K]>;

/** The same operations answered later (the worker; the public functions). */
export type AsyncCelOps = { [K in CelOp]: (...args: OpArgs<K>) => Promise<OpResult<K>> };

/** A failure that is not the expression's: the engine could not answer. */
export type EngineFailure = CelFailure & { kind: 'unavailable' | 'timeout' | 'engine' | 'inputs' };

interface OpSpec<K extends CelOp> {
  /** The arguments as main_js.go reads them: strings, in its order (`session`: what this engine was sent before). */
  wire(session: WireSession, ...args: OpArgs<K>): string[];
  /** The engine's answer, read. */
  read(answer: string, ...args: OpArgs<K>): OpResult<K>;
  /** The answer when the engine cannot give one. */
  failed(failure: EngineFailure, ...args: OpArgs<K>): OpResult<K>;
  /** The worker's wall-clock deadline that applies (browser.ts). */
  deadline: 'request' | 'evaluation';
}

/** Every object read whole. */
const WHOLE_READS: CelReads = { object: null, oldObject: null, namespaceObject: null, params: null, request: null };

export function optionsJSON(options?: CelCompileOptions): string {
  return options ? JSON.stringify(options) : '';
}

/**
 * What one engine instance was sent before: the batch items it has by id. Items are registered
 * by identity (an item object is treated as immutable once sent): the first batch that holds an
 * item sends its fields with a new id, later batches only the id (wasm/batch.go parseBatch); the
 * engine keeps each id's compiled program. Ids are per engine: every engine instance (the
 * in-process one, a worker, the native process) has its session (`engineOf`, `runOpAsync`'s
 * caller). An engine that answers that it does not know an id gets the batch again with every
 * item's fields, after a reset (runOp); past ITEMS_PER_SESSION ids both forget them and start again.
 */
export interface WireSession {
  /** An item's id in this engine. */
  ids: WeakMap<CelBatchItem, number>;
  /** A batch whose items all have ids: its text (a caller that sends the same array again — the lean verdicts — packs it once). */
  packed: WeakMap<readonly CelBatchItem[], string>;
  /**
   * An item's id by its text (expression, context, options, group): a caller that builds new item
   * objects for the same expressions on every request (a simulation per request) sends ids, and the
   * engine reads each item's options and finds its program once, not once a request.
   */
  byText: TupleMap<number>;
  next: number;
  /** The engine is to forget its items before this batch. */
  reset: boolean;
}

export const ITEMS_PER_SESSION = 4096;

export function newWireSession(): WireSession {
  return { ids: new WeakMap(), packed: new WeakMap(), byText: tupleMap(), next: 1, reset: false };
}

function resetSession(s: WireSession): void {
  Object.assign(s, newWireSession(), { reset: true });
}

/** Options objects are shared by many items and runs (src/policy policyOptions): each one's JSON made once. */
const optionsTexts = new WeakMap<CelCompileOptions, string>();
function optionsText(options: CelCompileOptions): string {
  let text = optionsTexts.get(options);
  if (text === undefined) optionsTexts.set(options, (text = JSON.stringify(options)));
  return text;
}

/**
 * A batch for the Go side: "\x01" ("\x02": the engine forgets its items first) and per item its
 * id ended by "\0", or, the first time, by "\x01" and its expression, context, options JSON and
 * group, each ended by "\0". JSON when a field contains a NUL character.
 */
export function packBatch(session: WireSession, items: readonly CelBatchItem[]): string {
  const known = session.packed.get(items);
  if (known !== undefined && !session.reset) return known;
  // the fields of the items this engine does not have yet
  const fields = new Map<CelBatchItem, { text: string; parts: string[] }>();
  for (const it of items) {
    if (session.ids.has(it) || fields.has(it)) continue;
    const parts = [it.expression, it.context, it.options ? optionsText(it.options) : '', it.group ?? ''];
    // found by its strings (an item's fields held no "\0" when first sent), not by their joined text
    const had = session.byText.get(parts);
    if (had !== undefined) {
      session.ids.set(it, had);
      continue;
    }
    if (parts.some((p) => p.includes('\0'))) return JSON.stringify(items);
    fields.set(it, { text: `\x01${parts.join('\0')}\0`, parts });
  }
  if (session.next + fields.size > ITEMS_PER_SESSION) {
    resetSession(session);
    return packBatch(session, items);
  }
  let refs = '';
  let out = session.reset ? '\x02' : '\x01';
  session.reset = false;
  for (const it of items) {
    let id = session.ids.get(it);
    const f = fields.get(it);
    if (id === undefined) session.ids.set(it, (id = session.next++));
    if (f !== undefined) {
      fields.delete(it); // sent once, even when the array holds it twice
      session.byText.set(f.parts, id);
    }
    out += f === undefined ? `${id}\0` : `${id}${f.text}`;
    refs += `${id}\0`;
  }
  session.packed.set(items, `\x01${refs}`);
  return out;
}

/**
 * A batch's answer (wasm/answers.go): "\0" and a record per item — `t`/`f` and the cost (ok, a
 * bool of static type bool), `s` cost, static type, display and value (ok, a string), `n` cost and
 * static type (ok, null), `j` and the result's JSON — each field ended by "\0"; or JSON.
 */
export function readBatchAnswer(answer: string): CelEvalResult[] {
  if (answer.charCodeAt(0) !== 0) return JSON.parse(answer) as CelEvalResult[];
  const out: CelEvalResult[] = [];
  let at = 1;
  const field = (): string => {
    const end = answer.indexOf('\0', at);
    if (end < 0) throw new Error('a batch answer without its end');
    const f = answer.slice(at, end);
    at = end + 1;
    return f;
  };
  while (at < answer.length) {
    const tag = answer[at++];
    if (tag === 'j') {
      out.push(JSON.parse(field()) as CelEvalResult);
      continue;
    }
    const cost = Number(field());
    if (tag === 't' || tag === 'f') out.push({ ok: true, value: tag === 't', type: 'bool', staticType: 'bool', display: tag === 't' ? 'true' : 'false', cost });
    else if (tag === 's') {
      const staticType = field();
      const display = field();
      out.push({ ok: true, value: field(), type: 'string', staticType, display, cost });
    } else if (tag === 'n') out.push({ ok: true, type: 'null_type', staticType: field(), display: 'null', cost, value: null });
    else throw new Error(`a batch answer with a record ${JSON.stringify(tag)}`);
  }
  return out;
}

/** JSON from the engine, or the failure when it is not JSON. */
function parse<T>(json: string, failed: (f: EngineFailure) => T): T {
  try {
    return JSON.parse(json) as T;
  } catch (e) {
    return failed({ ok: false, kind: 'engine', message: `engine returned invalid JSON: ${String(e)}` });
  }
}

const evalFailure = (f: CelFailure): CelEvalFailure => ({ ...f, stage: 'runtime' });

function readBatch(answer: string, items: readonly CelBatchItem[]): CelEvalResult[] {
  const failAll = (f: CelFailure): CelEvalResult[] => items.map(() => evalFailure(f));
  let rs: CelEvalResult[];
  try {
    rs = readBatchAnswer(answer);
  } catch (e) {
    return failAll({ ok: false, kind: 'engine', message: `engine returned an invalid batch answer: ${String(e)}` });
  }
  // The Go side answers one failure for a batch it cannot read (or inputs it cannot use).
  if (Array.isArray(rs) && rs.length === 1 && items.length !== 1 && !rs[0]!.ok) return items.map(() => rs[0]!);
  if (!Array.isArray(rs) || rs.length !== items.length) return failAll({ ok: false, kind: 'engine', message: 'engine returned a malformed batch' });
  for (const r of rs) readEval(r);
  return rs;
}

function readEval(r: CelEvalResult): CelEvalResult {
  if (r.ok && !('value' in r)) (r as { value: unknown }).value = null;
  return r;
}

function failedDeclarations(f: CelFailure, context: CelContext): CelDeclarations {
  return { ok: false, kind: f.kind, message: f.message, context, resultTypes: [], variables: [], types: {}, functions: [], macros: [] };
}

export const OPS: { readonly [K in CelOp]: OpSpec<K> } = {
  compile: {
    wire: (_s, expression, context, options) => [expression, context, optionsJSON(options)],
    read(answer) {
      const r = parse<CelCompileResult>(answer, (f) => ({ ...f, issues: [] }));
      if (!Array.isArray(r.issues)) r.issues = [];
      return r;
    },
    failed: (f) => ({ ...f, issues: [] }),
    deadline: 'request',
  },
  evaluate: {
    wire: (_s, expression, context, inputsId, options) => [expression, context, optionsJSON(options), inputsId],
    read: (answer) => readEval(parse<CelEvalResult>(answer, evalFailure)),
    failed: evalFailure,
    deadline: 'evaluation',
  },
  evaluateBatch: {
    wire: (session, inputsId, items) => [inputsId, packBatch(session, items)],
    read: (answer, _inputsId, items) => readBatch(answer, items),
    failed: (f, _inputsId, items) => items.map(() => evalFailure(f)),
    deadline: 'evaluation',
  },
  evaluateBatchOnce: {
    wire: (session, inputsJSON, items) => [inputsJSON, packBatch(session, items)],
    read: (answer, _inputsJSON, items) => readBatch(answer, items),
    failed: (f, _inputsJSON, items) => items.map(() => evalFailure(f)),
    deadline: 'evaluation',
  },
  setInputs: {
    wire: (_s, inputsId, inputsJSON) => [inputsId, inputsJSON],
    // Text, not JSON: '' or why the inputs cannot be used.
    read: (answer) => (answer === '' ? { ok: true } : { ok: false, kind: 'inputs', message: answer }),
    failed: (f) => f,
    deadline: 'request',
  },
  dropInputs: {
    wire: (_s, inputsId) => [inputsId],
    read: () => undefined,
    failed: () => undefined,
    deadline: 'request',
  },
  declarations: {
    wire: (_s, context, options) => [context, optionsJSON(options)],
    read: (answer, context) => parse<CelDeclarations>(answer, (f) => failedDeclarations(f, context)),
    failed: failedDeclarations,
    deadline: 'request',
  },
  typeAt: {
    wire: (_s, expression, context, offset, options) => [expression, context, optionsJSON(options), String(offset)],
    read: (answer) => parse<CelTypeAt>(answer, () => ({ ok: false })),
    failed: () => ({ ok: false }),
    deadline: 'request',
  },
  info: {
    wire: () => [],
    read: (answer) => parse<CelEngineInfo | CelFailure>(answer, (f) => f),
    failed: (f) => f,
    deadline: 'request',
  },
  // Parsing an asset (0.3–0.4 MB of JSON) and checking a policy against up to ten kinds take longer than a compile.
  setSchemas: {
    wire: (_s, key, assetJSON) => [key, assetJSON],
    read(answer) {
      const r = parse<CelSetSchemasResult | { ok: false; message: string }>(answer, (f) => f);
      return r.ok ? r : { ok: false, kind: 'kind' in r ? r.kind : 'engine', message: r.message };
    },
    failed: (f) => f,
    deadline: 'evaluation',
  },
  typeCheck: {
    wire: (_s, policyJSON, schemas, options) => [policyJSON, JSON.stringify({ ...options, schemas })],
    read(answer) {
      const r = parse<CelRawTypeCheck>(answer, (f) => ({ ...f, warnings: [] }));
      if (!Array.isArray(r.warnings)) r.warnings = [];
      if (!r.ok && !r.kind) r.kind = 'inputs';
      return r;
    },
    failed: (f) => ({ ...f, warnings: [] }),
    deadline: 'evaluation',
  },
  reads: {
    wire: (_s, expression, context, options) => [expression, context, optionsJSON(options)],
    // an answer that cannot be read reads everything (the projection then keeps the whole inputs)
    read: (answer) => parse<CelReads>(answer, () => WHOLE_READS),
    failed: () => WHOLE_READS,
    deadline: 'request',
  },
};

/** The operations in the order of wasm/main_js.go's `ops` table: an operation is called by its index. */
export const OP_INDEX: { readonly [K in CelOp]: number } = {
  compile: 0,
  evaluate: 1,
  evaluateBatch: 2,
  setInputs: 3,
  dropInputs: 4,
  declarations: 5,
  typeAt: 6,
  info: 7,
  setSchemas: 8,
  typeCheck: 9,
  evaluateBatchOnce: 10,
  reads: 11,
};

/** An operation's arguments as the Go side reads them, or why they cannot be sent. */
export function wireOf<K extends CelOp>(session: WireSession, op: K, args: OpArgs<K>): string[] | EngineFailure {
  try {
    return (OPS[op].wire as (...x: unknown[]) => string[])(session, ...(args as unknown[]));
  } catch (e) {
    return { ok: false, kind: 'inputs', message: `cannot be serialised: ${String(e)}` };
  }
}

const readOp = <K extends CelOp>(op: K, answer: string, args: OpArgs<K>): OpResult<K> =>
  (OPS[op].read as (...x: unknown[]) => OpResult<K>)(answer, ...(args as unknown[]));

/** The engine did not have a batch's items by id (wasm/answers.go): the session starts again and the batch is sent again. */
const lostItems = (answer: string, session: WireSession): boolean => {
  if (answer.charCodeAt(0) !== 2) return false;
  resetSession(session);
  return true;
};

/** Runs an operation given the engine's raw call (strings in, the answer's text out). */
export function runOp<K extends CelOp>(call: RawCall, session: WireSession, op: K, args: OpArgs<K>): OpResult<K> {
  let wire = wireOf(session, op, args);
  if (!Array.isArray(wire)) return failedOp(op, wire, args);
  let answer = call(OP_INDEX[op], wire);
  if (lostItems(answer, session)) {
    wire = wireOf(session, op, args);
    if (!Array.isArray(wire)) return failedOp(op, wire, args);
    answer = call(OP_INDEX[op], wire);
  }
  return readOp(op, answer, args);
}

/** The engine's call answered later (the native engine, native.ts): the answer's text, or why there is none. */
export type AsyncRawCall = (index: number, args: readonly string[]) => Promise<string | EngineFailure>;

/** Runs an operation over an asynchronous raw call (one session per engine): the same arguments and reading as runOp. */
export async function runOpAsync<K extends CelOp>(call: AsyncRawCall, session: WireSession, op: K, args: OpArgs<K>): Promise<OpResult<K>> {
  let wire = wireOf(session, op, args);
  if (!Array.isArray(wire)) return failedOp(op, wire, args);
  let answer = await call(OP_INDEX[op], wire);
  if (typeof answer === 'string' && lostItems(answer, session)) {
    wire = wireOf(session, op, args);
    if (!Array.isArray(wire)) return failedOp(op, wire, args);
    answer = await call(OP_INDEX[op], wire);
  }
  return typeof answer === 'string' ? readOp(op, answer, args) : failedOp(op, answer, args);
}

/** The synchronous engine over a raw call: each operation of the table (with the engine's own session). */
export function engineOf(call: RawCall): CelOps {
  const engine = {} as Record<CelOp, (...args: unknown[]) => unknown>;
  const session = newWireSession();
  for (const op of Object.keys(OPS) as CelOp[]) engine[op] = (...args: unknown[]) => runOp(call, session, op, args as never);
  return engine as unknown as CelOps;
}

/** The failure an operation answers when the engine cannot (index.ts, browser.ts, worker.ts). */
export function failedOp<K extends CelOp>(op: K, failure: EngineFailure, args: OpArgs<K>): OpResult<K> {
  return (OPS[op].failed as (...x: unknown[]) => OpResult<K>)(failure, ...(args as unknown[]));
}
