/**
 * The CEL engine: cel-go and the k8s.io/apiserver CEL environment and libraries, compiled from
 * wasm/ and driven from here. Errors are values: nothing here throws or rejects. Inputs are
 * marshalled once per object (cached by identity: treat them as immutable) or stored under an
 * id. The engine's loading: ./engine.ts; design and the public API: ./README.md.
 */
import { failedOp, runOpAsync, type EngineFailure } from './ops';
import type { CelBatchItem, CelCompileOptions, CelContext, CelEvalResult, CelInputs, CelInputsResult } from './types';
import { dropStoredInputs, nativeEngines, onDefaultEngine, readyBackend, ready, run, sessionOf } from './engine';

export * from './types';
export { LABEL_MAX, notRun, shortValue, traceLabels, type TraceLabel } from './trace';
export type { CelOp, CelOps } from './ops';
export { SCHEMA_RELEASES, schemaReleaseFor, type SchemaRelease } from './schemas';
export type { EngineWork } from './protocol';
export {
  allowEngineWork,
  CEL_EVAL_TIMEOUT_MS,
  CEL_REQUEST_TIMEOUT_MS,
  celEngines,
  celModule,
  celStatus,
  compile,
  connectStartedEngine,
  declarations,
  isNode,
  loadCel,
  loadCelFor,
  loadCelHere,
  reads,
  typeAt,
  type CelStatus,
} from './engine';
export { schemaAsset, typeCheck, type SchemaAsset } from './typecheck';
export { createCachedCompiler, createFillingCompiler, createSyncCompiler } from './compilers';
export { DEFAULT_ENGINE, engineOfRelease } from './generations';

// ---------------------------------------------------------------------------
// Inputs

let inputsCounter = 0;
const inputsIds = new WeakMap<object, string>();
const inputsFinalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<string>((id) => dropStoredInputs(id)) : undefined;

/** The inputs as the engine reads them (bigints as decimal strings), or why they cannot be sent. */
function inputsJSON(inputs: CelInputs): string | EngineFailure {
  try {
    // without a replacer first: calling one for every key was most of the marshalling; a bigint throws
    return JSON.stringify(inputs);
  } catch {
    try {
      return JSON.stringify(inputs, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    } catch (err) {
      return { ok: false, kind: 'inputs', message: `inputs cannot be serialised: ${String(err)}` };
    }
  }
}

/** Stores inputs under an id for later evaluate(…, id). */
export function setInputs(id: string, inputs: CelInputs): Promise<CelInputsResult> {
  const json = inputsJSON(inputs);
  return typeof json === 'string' ? run('setInputs', id, json) : Promise.resolve(json);
}

export function dropInputs(id: string): void {
  dropStoredInputs(id);
}

/** The id of an inputs object, stored once per object; or why it cannot be stored. */
async function inputsIdFor(inputs: CelInputs | string): Promise<string | CelInputsResult> {
  if (typeof inputs === 'string') return inputs;
  const known = inputsIds.get(inputs);
  if (known) return known;
  const id = `inputs-${++inputsCounter}`;
  inputsIds.set(inputs, id);
  const r = await setInputs(id, inputs);
  if (!r.ok) {
    inputsIds.delete(inputs);
    return r;
  }
  inputsFinalizer?.register(inputs, id);
  return id;
}

/** Evaluates as admission does. `inputs` is an inputs object (marshalled once per object) or an id from setInputs. */
export async function evaluate(expression: string, context: CelContext, inputs: CelInputs | string, options?: CelCompileOptions): Promise<CelEvalResult> {
  const id = await inputsIdFor(inputs);
  if (typeof id !== 'string') return failedOp('evaluate', id as EngineFailure, [expression, context, '', options]);
  return run('evaluate', expression, context, id, options);
}

/**
 * Evaluates many expressions against one input in one round trip (one worker request in
 * the browser; one deadline for the whole batch). One result per item, in order, with the
 * shapes of evaluate(). See CelBatchItem for `group` (a policy's shared budget).
 */
export async function evaluateBatch(items: readonly CelBatchItem[], inputs: CelInputs | string): Promise<CelEvalResult[]> {
  if (items.length === 0) return [];
  const id = await inputsIdFor(inputs);
  if (typeof id !== 'string') return failedOp('evaluateBatch', id as EngineFailure, ['', items]);
  return run('evaluateBatch', id, items);
}

/**
 * evaluateBatch on inputs used once (the impact replay's lean verdicts: one batch per request):
 * the inputs and the batch go in one operation (the engine reads them, evaluates, and keeps
 * nothing of the inputs); no id is kept. The same answers as evaluateBatch. `inputsJson`: the
 * inputs' `JSON.stringify`, where the caller made it already.
 */
export async function evaluateBatchOnce(items: readonly CelBatchItem[], inputs: CelInputs, inputsJson?: string): Promise<CelEvalResult[]> {
  if (items.length === 0) return [];
  // another engine generation (a target the default engine does not answer): through run, which routes it
  if (!onDefaultEngine(items)) {
    const json = inputsJson ?? inputsJSON(inputs);
    return typeof json === 'string' ? run('evaluateBatchOnce', json, items) : failedOp('evaluateBatch', json, ['', items]);
  }
  // once per replayed request: no wait on the loaded engine
  const b = readyBackend() ?? (await ready());
  if ('kind' in b) return failedOp('evaluateBatch', b, ['', items]);
  const json = inputsJson ?? inputsJSON(inputs);
  if (typeof json !== 'string') return failedOp('evaluateBatch', json, ['', items]);
  const pool = nativeEngines();
  if (!pool) return b.evaluateBatchOnce(json, items);
  // native engines: the least busy one takes the batch (it keeps nothing of the inputs); another if it exits
  return pool.onOne((call) => runOpAsync(call, sessionOf(call), 'evaluateBatchOnce', [json, items]));
}
