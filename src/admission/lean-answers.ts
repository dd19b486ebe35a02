/**
 * The engine's answers to a lean plan's items (./lean.ts): one call per distinct param, the
 * inputs cut down to what the call's items read (src/cel/project.ts). A later batch of the same
 * request (the validating plugins on the object the mutating plugins left) reads the first
 * batch's answers where its items read nothing that changed. Design: ./README.md (Lean verdicts).
 */
import { equalInOrder } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import { reads } from '../cel';
import { alikeOn, projector, unionReads } from '../cel/project';
import { type CelBatchItem, type CelEvalResult, type CelInputs, type CelReads, isEngineFailure } from '../cel/types';
import type { PolicyCel } from '../policy';
import { celInputs } from '../request/cel-inputs';
import { inputFor, type SimContext } from './context';
import { memoCel } from './engine';

/** The engine's batch evaluation (`PolicyCel.evaluateBatch`): the lean path needs it. */
export type EvaluateBatch = NonNullable<PolicyCel['evaluateBatch']>;

/** What a batch asks of the engine: the items, the param of each, the calls once known. */
export interface Batched {
  items: CelBatchItem[];
  /** Per item, the param it is evaluated on (null: none; a policy with paramKind's param otherwise). */
  params: unknown[];
  /** The engine calls, once known (shared by the plan's uses): the slots of each, its param, the inputs cut down to what its items read (src/cel/project.ts), its answers kept (`asked`). */
  engine: { calls?: Call[] };
  /** For a request whose params are other objects than the plan's: its param in place of the plan's. */
  bind?: (param: unknown) => unknown;
}

/** One engine call of a plan: its items' slots, its param, the projection of its inputs, the answers kept by inputs. */
interface Call {
  slots: number[];
  param: unknown;
  project: (inputs: CelInputs) => CelInputs;
  /** Whether two objects project alike on what the items read of `object` (unchangedObject). */
  objectAlike: (a: unknown, b: unknown) => boolean;
  kept: Map<string, CelEvalResult[]>;
}

/** A batch answered on a request's context: a later batch of the request may read its answers (`answers`' `earlier`). */
export interface Answered {
  gp: Batched;
  ctx: SimContext;
  rs: readonly CelEvalResult[];
}

/** Every answer a value: no budget was reached (an error may be one), so any part of the items answers alike. */
const allValues = (e: Answered): boolean => e.rs.length === e.gp.items.length && e.rs.every((r) => r.ok);

/** Each item's reads, asked of the engine once. */
const itemReads = new WeakMap<CelBatchItem, Promise<CelReads>>();

/** The projection of a batch's inputs on what its items read, and the comparison of objects there. */
async function projectorOf(items: readonly CelBatchItem[]): Promise<Pick<Call, 'project' | 'objectAlike'>> {
  const each = items.map((it) => {
    let r = itemReads.get(it);
    if (!r) itemReads.set(it, (r = reads(it.expression, it.context, it.options)));
    return r;
  });
  const all = unionReads(await Promise.all(each));
  return { project: projector(all), objectAlike: alikeOn(all, 'object') };
}

/**
 * A batch's engine calls: one per distinct param. The items without params and those of the
 * first param share one call (the param on the inputs) unless an item of a policy with paramKind
 * is among the former (null params there): usually the request's one batch.
 */
async function callsOf(gp: Batched): Promise<Call[]> {
  const by = new Map<unknown, number[]>();
  gp.params.forEach((param, i) => {
    let at = by.get(param);
    if (!at) by.set(param, (at = []));
    at.push(i);
  });
  const parts = [...by.entries()].map(([param, slots]) => ({ param, slots }));
  const plain = parts.find((x) => x.param === null);
  const first = parts.find((x) => x.param !== null);
  if (plain && first && !plain.slots.some((i) => gp.items[i]!.options?.hasParams)) {
    first.slots = [...plain.slots, ...first.slots].sort((a, b) => a - b);
    parts.splice(parts.indexOf(plain), 1);
  }
  return Promise.all(parts.map(async (x) => ({ ...x, ...(await projectorOf(x.slots.map((i) => gp.items[i]!))), kept: new Map() })));
}

/** Answers kept per call: requests alike in what the call reads recur (each Deployment of a template, each write of a ConfigMap). */
const KEPT = 256;

/**
 * The engine's answers to a call's items on inputs cut down to what they read. The same items on
 * the same inputs (JSON-equal: the engine reads that JSON) answer the same: CEL here is a pure
 * function of its inputs, with no clock or randomness, and its costs depend on the values read.
 * So an answer is kept by its inputs' JSON and given again, unless the engine could not answer
 * (`isEngineFailure`: a deadline or an exit is not the expression's answer).
 */
async function asked(c: Call, items: readonly CelBatchItem[], inputs: CelInputs, batch: EvaluateBatch): Promise<CelEvalResult[]> {
  let key: string | undefined;
  try {
    key = JSON.stringify(inputs);
  } catch {
    // a bigint: the engine's own marshalling words it; nothing kept
  }
  const hit = key === undefined ? undefined : c.kept.get(key);
  if (hit) return hit;
  const out = await batch(items, inputs, key);
  if (key !== undefined && out.length === items.length && !out.some(isEngineFailure)) {
    if (c.kept.size >= KEPT) c.kept.clear();
    c.kept.set(key, out);
  }
  return out;
}

/**
 * An earlier batch's answers to `items` on `param`, where it asked each of them and the inputs
 * cut down to what they read are the same values in the same order (so the engine sees the same
 * inputs: the same values, errors and costs). Only where every answer of that batch was a value:
 * then no budget was reached there, so none is by any part of its items here.
 */
function earlierAnswers(
  e: Answered,
  items: readonly CelBatchItem[],
  param: unknown,
  project: (inputs: CelInputs) => CelInputs,
  inputs: CelInputs,
): CelEvalResult[] | undefined {
  if (!allValues(e)) return undefined;
  const out: CelEvalResult[] = [];
  for (const it of items) {
    const k = e.gp.items.findIndex((x, i) => x === it && (e.gp.bind ? e.gp.bind(e.gp.params[i]) : e.gp.params[i]) === param);
    if (k < 0) return undefined;
    out.push(e.rs[k]!);
  }
  return equalInOrder(project(celInputs(inputFor(e.ctx), param)), inputs) ? out : undefined;
}

/** The projection of items asked on their own (answersOn), by the item where there is one, else by the list. */
const alone = new WeakMap<object, Promise<Pick<Call, 'project' | 'objectAlike'>>>();

/**
 * Items on a context's inputs with `object` in place of its object (a mutation on the object as
 * the mutations before it left it, a webhook's matchConditions on the object as the patches
 * before it left it), and `param` as params (a MutatingAdmissionPolicy's), cut down to what
 * they read: one engine call.
 */
export async function answersOn(
  items: readonly CelBatchItem[],
  ctx: SimContext,
  object: unknown,
  batch: EvaluateBatch,
  param: unknown = null,
): Promise<CelEvalResult[]> {
  return batch(items, (await aloneOf(items)).project(celInputs(inputFor(ctx), param, object)));
}

/** Whether items asked on their own read the same of two objects (alikeOn). */
export const readAlike = async (items: readonly CelBatchItem[], a: unknown, b: unknown): Promise<boolean> => (await aloneOf(items)).objectAlike(a, b);

function aloneOf(items: readonly CelBatchItem[]): Promise<Pick<Call, 'project' | 'objectAlike'>> {
  const key = items.length === 1 ? items[0]! : items;
  let p = alone.get(key);
  if (!p) alone.set(key, (p = projectorOf(items)));
  return p;
}

/**
 * Whether a batch's answers still answer its items after a mutation that changed only the
 * request's object (`object`: the object then): each call's items read the same of it, and every
 * answer was a value (no budget reached: a later batch of fewer items answers alike).
 */
export function unchangedObject(e: Answered, object: unknown): boolean {
  const calls = e.gp.engine.calls;
  return !!calls && allValues(e) && calls.every((c) => c.objectAlike(e.ctx.object, object));
}

/**
 * The engine's answers to a batch's items on the request's inputs (cut down to what they read);
 * undefined when the engine did not answer them all. `earlier`: the request's first batch, whose
 * answers a call reads instead of the engine where its inputs did not change (earlierAnswers).
 */
export async function answers(gp: Batched, ctx: SimContext, batch: EvaluateBatch, earlier?: Answered): Promise<CelEvalResult[] | undefined> {
  const calls = (gp.engine.calls ??= await callsOf(gp));
  const input = inputFor(ctx);
  const rs: CelEvalResult[] = [];
  let complete = true;
  await Promise.all(
    calls.map(async (c) => {
      const items = c.slots.map((i) => gp.items[i]!);
      const param = gp.bind ? gp.bind(c.param) : c.param;
      const inputs = c.project(celInputs(input, param));
      const out = (earlier && earlierAnswers(earlier, items, param, c.project, inputs)) || (await asked(c, items, inputs, batch));
      if (out.length !== c.slots.length) complete = false;
      c.slots.forEach((i, j) => (rs[i] = out[j]!));
    }),
  );
  if (complete) ctx.options.observe?.(rs);
  return complete ? rs : undefined;
}

/**
 * A CEL memo (./engine.ts) for a chain's plugins run in full on the request (simulate.ts), that
 * knows the first batch's answers on its inputs: a plugin asks the engine only what that batch
 * did not answer (the same expression, context, options and inputs), as where it ran the
 * matchConditions of a MutatingAdmissionPolicy or a webhook.
 */
export function knowingMemo(cel: PolicyCel, version: KubernetesVersion, e: Answered): PolicyCel {
  const memo = memoCel(cel, version);
  if (!allValues(e) || !memo.know) return memo;
  memo.know(() => {
    const input = inputFor(e.ctx);
    const inputsOn = new Map<unknown, CelInputs>();
    return e.gp.items.flatMap((it, k) => {
      // the memo evaluates in its own release
      if (it.options?.kubernetesVersion !== undefined && it.options.kubernetesVersion !== version) return [];
      const param = e.gp.bind ? e.gp.bind(e.gp.params[k]) : e.gp.params[k];
      let inputs = inputsOn.get(param);
      if (!inputs) inputsOn.set(param, (inputs = celInputs(input, param)));
      return [{ expression: it.expression, context: it.context, options: it.options ?? {}, inputs, answer: e.rs[k]! }];
    });
  });
  return memo;
}
