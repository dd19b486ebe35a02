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

export function memoCel(cel: PolicyCel, kubernetesVersion?: KubernetesVersion): PolicyCel {
  const inputsByKey = new Map<string, CelInputs>();
  const keyOf = new WeakMap<object, string>();
  const answers = new Map<string, Answer>();
  const inputsKey = (inputs: CelInputs): string => {
    const known = keyOf.get(inputs);
    if (known !== undefined) return known;
    const key = JSON.stringify(inputs, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    keyOf.set(inputs, key);
    return key;
  };
  return {
    evaluate(expression: string, context: CelContext, inputs: CelInputs, given?: CelCompileOptions): Answer {
      const options = kubernetesVersion ? { ...given, kubernetesVersion } : given;
      const ik = inputsKey(inputs);
      let canonical = inputsByKey.get(ik);
      if (!canonical) {
        canonical = inputs;
        inputsByKey.set(ik, inputs);
      }
      const key = `${context}\u0000${expression}\u0000${JSON.stringify(options ?? {})}\u0000${ik}`;
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
}
