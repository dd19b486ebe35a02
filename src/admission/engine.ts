/**
 * The CEL engine as one simulation uses it: equal inputs are handed to the engine as one
 * object (marshalled once), and an expression evaluated again on equal inputs with equal
 * options (the same matchCondition in several policies, a webhook rechecked in the
 * reinvocation round, the same critical request probed) answers from memory. CEL
 * evaluation is deterministic given the inputs (authorizer answers included), so the
 * answers are the engine's own (a timeout or an unavailable engine is not remembered). With a `kubernetesVersion`, every expression is evaluated in
 * that release's CEL environment.
 */
import { isEngineFailure, type CelCompileOptions, type CelContext, type CelInputs } from '../cel/types';
import type { KubernetesVersion } from '../base/releases';
import type { PolicyCel } from '../policy';

type Answer = ReturnType<PolicyCel['evaluate']>;

const memos = new WeakSet<PolicyCel>();

/** Whether `cel` is already a memo (simulate does not wrap it again: several runs of one request share its answers). */
export const isMemoCel = (cel: PolicyCel): boolean => memos.has(cel);

export function memoCel(cel: PolicyCel, kubernetesVersion?: KubernetesVersion): PolicyCel {
  // equal inputs (by their JSON) are one canonical object with a small number: answers are keyed by
  // the number, not by the whole JSON (a request's JSON in every key cost more than the engine call)
  const inputsByJson = new Map<string, { canonical: CelInputs; n: number }>();
  const entryOf = new WeakMap<object, { canonical: CelInputs; n: number }>();
  const answers = new Map<string, Answer>();
  const inputsEntry = (inputs: CelInputs): { canonical: CelInputs; n: number } => {
    const known = entryOf.get(inputs);
    if (known !== undefined) return known;
    const json = JSON.stringify(inputs, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    let entry = inputsByJson.get(json);
    if (!entry) {
      entry = { canonical: inputs, n: inputsByJson.size };
      inputsByJson.set(json, entry);
    }
    entryOf.set(inputs, entry);
    return entry;
  };
  const memo: PolicyCel = {
    evaluate(expression: string, context: CelContext, inputs: CelInputs, given?: CelCompileOptions): Answer {
      const options = kubernetesVersion ? { ...given, kubernetesVersion } : given;
      const { canonical, n } = inputsEntry(inputs);
      const key = `${n}\u0000${context}\u0000${expression}\u0000${JSON.stringify(options ?? {})}`;
      let answer = answers.get(key);
      if (!answer) {
        answer = cel.evaluate(expression, context, canonical, options);
        answers.set(key, answer);
        // an engine that timed out or is unavailable said nothing about the expression: ask again next time
        void answer.then((r) => isEngineFailure(r) && answers.delete(key));
      }
      return answer;
    },
  };
  memos.add(memo);
  return memo;
}
