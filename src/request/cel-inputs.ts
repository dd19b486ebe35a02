/**
 * A TestInput as the CEL engine reads it (src/cel CelInputs): one immutable object per input
 * object, so the engine (and the views sharing its answers) marshal each input once.
 */
import type { CelInputs } from '../cel/types';
import type { TestInput } from './model';

const cache = new WeakMap<TestInput, CelInputs>();

/** `request` as CEL sees it: the AdmissionRequest without object / oldObject (those are variables of their own). */
function celRequest(input: TestInput): Record<string, unknown> {
  const { object: _object, oldObject: _oldObject, ...rest } = input.request;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
  return out;
}

export function toCelInputs(input: TestInput): CelInputs {
  const hit = cache.get(input);
  if (hit) return hit;
  const inputs: CelInputs = Object.freeze({
    object: input.request.object ?? null,
    oldObject: input.request.oldObject ?? null,
    params: input.params ?? null,
    namespaceObject: input.namespaceObject ?? null,
    request: celRequest(input),
    authorizer: { rules: input.authorizer ?? [] },
  });
  cache.set(input, inputs);
  return inputs;
}
