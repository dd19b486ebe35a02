/**
 * The CEL engine as one simulation uses it: equal inputs are handed to the engine as one
 * object (marshalled once), and an expression evaluated again on equal inputs with equal
 * options (the same matchCondition in several policies, a webhook rechecked in the
 * reinvocation round, the same critical request probed) answers from memory. CEL
 * evaluation is deterministic given the inputs (authorizer answers included), so the
 * answers are the engine's own (a timeout or an unavailable engine is not remembered). With a `kubernetesVersion`, every expression is evaluated in
 * that release's CEL environment.
 */
import { isEngineFailure, type CelBatchItem, type CelCompileOptions, type CelContext, type CelEvalResult, type CelInputs } from '../cel/types';
import type { KubernetesVersion } from '../base/releases';
import { tupleMap } from '../base/tuple-map';
import type { PolicyCel, PolicyExpressionOn } from '../policy';

type Answer = ReturnType<PolicyCel['evaluate']>;
type InputsEntry = { canonical: CelInputs; n: number };
/** An answer's key: the inputs' number, the context, the expression, the options' key. */
type AnswerKey = readonly [string, string, string, string];

const memos = new WeakSet<PolicyCel>();

/** Whether `cel` is already a memo (simulate does not wrap it again: several runs of one request share its answers). */
export const isMemoCel = (cel: PolicyCel): boolean => memos.has(cel);

/** The members celInputs builds; inputs with others are keyed by their JSON alone. */
const MEMBERS = ['object', 'oldObject', 'params', 'namespaceObject', 'request', 'authorizer'] as const;

type ReleaseOptions = { options: CelCompileOptions | undefined; key: string };
const NO_OPTIONS: CelCompileOptions = Object.freeze({});

/**
 * An options object is shared by a policy's expressions and, made once per spec (policyOptions), by
 * every run of it: its release variant and key are made once, not once a simulation (the key's JSON
 * holds the policy's variables).
 */
const optionsWith = new WeakMap<CelCompileOptions, Map<string, ReleaseOptions>>();
function releaseOptions(given: CelCompileOptions | undefined, kubernetesVersion: KubernetesVersion | undefined): ReleaseOptions {
  const base = given ?? NO_OPTIONS; // NO_OPTIONS stands for "none given" only
  let variants = optionsWith.get(base);
  if (!variants) optionsWith.set(base, (variants = new Map()));
  let hit = variants.get(kubernetesVersion ?? '');
  if (!hit) {
    const options = kubernetesVersion ? { ...given, kubernetesVersion } : given;
    variants.set(kubernetesVersion ?? '', (hit = { options, key: JSON.stringify(options ?? {}) }));
  }
  return hit;
}

export function memoCel(cel: PolicyCel, kubernetesVersion?: KubernetesVersion): PolicyCel {
  const optionsFor = (given: CelCompileOptions | undefined): ReleaseOptions => releaseOptions(given, kubernetesVersion);
  // equal inputs (by their JSON) are one canonical object with a small number: answers are keyed by
  // the number, not by the whole JSON (a request's JSON in every key cost more than the engine call)
  const inputsByJson = new Map<string, InputsEntry>();
  const entryOf = new WeakMap<object, InputsEntry>();
  // the runs build a new inputs object per policy from the same members (celInputs): the members'
  // identities find the entry without the JSON (which was a seventh of a replayed request's time)
  const ids = new WeakMap<object, number>();
  let lastId = 0;
  const byMembers = new Map<string, InputsEntry>();
  const idOf = (v: unknown): string | undefined => {
    if (v === null || v === undefined) return '';
    if (typeof v !== 'object') return undefined;
    let id = ids.get(v);
    if (id === undefined) ids.set(v, (id = ++lastId));
    return String(id);
  };
  // a member built anew for each inputs (request, authorizer) by its own members: primitives by
  // value (length-prefixed: no two members read alike), objects by identity
  const shallowKey = (v: Record<string, unknown>): string | undefined => {
    let key = '{';
    for (const k in v) {
      const x = v[k];
      let id: string | undefined;
      if (typeof x === 'string') id = `s${x.length}:${x}`;
      else if (typeof x === 'number' || typeof x === 'boolean') id = `${typeof x}${x}`;
      else if (typeof x === 'object' && x !== null) id = `o${idOf(x)}`;
      else if (x === undefined) continue; // JSON leaves it out
      if (id === undefined) return undefined;
      key += `${k.length}:${k}=${id};`;
    }
    return key;
  };
  const membersKey = (inputs: CelInputs): string | undefined => {
    const rec = inputs as Record<string, unknown>;
    let key = '';
    let count = 0;
    for (const m of MEMBERS) {
      const v = rec[m];
      if (v === undefined) continue;
      count++;
      const id =
        (m === 'request' || m === 'authorizer') && typeof v === 'object' && v !== null && !Array.isArray(v)
          ? shallowKey(v as Record<string, unknown>)
          : idOf(v);
      if (id === undefined) return undefined;
      key += `${m}:${id},`;
    }
    return count === Object.keys(rec).length ? key : undefined;
  };
  let entries = 0;
  /** `byJson` false: found by its members alone (know: inputs equal to others by JSON only are then another entry, asked again). */
  const inputsEntry = (inputs: CelInputs, byJson = true): InputsEntry | undefined => {
    const known = entryOf.get(inputs);
    if (known !== undefined) return known;
    const mk = membersKey(inputs);
    let entry = mk === undefined ? undefined : byMembers.get(mk);
    if (!entry) {
      if (!byJson && mk === undefined) return undefined;
      const json = byJson ? JSON.stringify(inputs, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) : undefined;
      entry = json === undefined ? undefined : inputsByJson.get(json);
      if (!entry) {
        entry = { canonical: inputs, n: entries++ };
        if (json !== undefined) inputsByJson.set(json, entry);
      }
      if (mk !== undefined) byMembers.set(mk, entry);
    }
    entryOf.set(inputs, entry);
    return entry;
  };
  // keyed by the strings themselves, not a key joined from them (base/tuple-map.ts: an expression
  // of 10 KB joined into a key cost ~20 µs a lookup)
  const answers = tupleMap<Answer>();
  const keyOf = (n: number, context: CelContext, expression: string, optionsKey: string): AnswerKey => [String(n), context, expression, optionsKey];
  const remember = (key: AnswerKey, answer: Answer) => {
    answers.set(key, answer);
    // an engine that timed out or is unavailable said nothing about the expression: ask again next time
    void answer.then((r) => isEngineFailure(r) && answers.get(key) === answer && answers.delete(key));
  };
  /** know's answers, listed when first asked for (a run that asks nothing costs nothing). */
  const known: (() => readonly (PolicyExpressionOn & { answer: CelEvalResult })[])[] = [];
  const settle = () => {
    for (const items of known.splice(0))
      for (const it of items()) {
        const entry = inputsEntry(it.inputs, false);
        if (!entry) continue;
        const key = keyOf(entry.n, it.context, it.expression, optionsFor(it.options).key);
        if (!answers.has(key)) answers.set(key, Promise.resolve(it.answer));
      }
  };
  const memo: PolicyCel = {
    evaluate(expression: string, context: CelContext, inputs: CelInputs, given?: CelCompileOptions): Answer {
      if (known.length) settle();
      const { options, key: optionsKey } = optionsFor(given);
      const { canonical, n } = inputsEntry(inputs)!;
      const key = keyOf(n, context, expression, optionsKey);
      let answer = answers.get(key);
      if (!answer) {
        answer = cel.evaluate(expression, context, canonical, options);
        remember(key, answer);
      }
      return answer;
    },
    prefetch(items: readonly PolicyExpressionOn[]): void {
      const batch = cel.evaluateBatch?.bind(cel);
      if (!batch) return;
      if (known.length) settle();
      // one evaluateBatch per distinct inputs, of the items not answered yet (each once)
      const groups = new Map<number, { canonical: CelInputs; keys: AnswerKey[]; items: CelBatchItem[] }>();
      const listed = tupleMap<true>();
      for (const it of items) {
        const { options, key: optionsKey } = optionsFor(it.options);
        const { canonical, n } = inputsEntry(it.inputs)!;
        const key = keyOf(n, it.context, it.expression, optionsKey);
        if (answers.has(key) || listed.has(key)) continue;
        listed.set(key, true);
        let g = groups.get(n);
        if (!g) groups.set(n, (g = { canonical, keys: [], items: [] }));
        g.keys.push(key);
        g.items.push(options ? { expression: it.expression, context: it.context, options } : { expression: it.expression, context: it.context });
      }
      for (const g of groups.values()) {
        const results = batch(g.items, g.canonical);
        results.catch(() => undefined); // surfaces where an answer is awaited
        g.keys.forEach((key, i) =>
          remember(
            key,
            results.then((rs) => rs[i] ?? { ok: false, kind: 'engine', stage: 'runtime', message: 'evaluateBatch answered fewer items than asked' }),
          ),
        );
      }
    },
    know(items): void {
      known.push(items);
    },
  };
  memos.add(memo);
  return memo;
}
