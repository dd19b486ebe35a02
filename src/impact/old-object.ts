/**
 * Which decisions read an old object the replay does not know. An update or delete always has
 * an old object at the apiserver; when neither the log nor the snapshot holds it, the replay
 * decides with none, and a policy or webhook matchCondition that reads `oldObject` then decides
 * something the cluster may not have (`no such key`, under failurePolicy Fail a denial). Such a
 * decision is undetermined, not a denial: `Decision.undetermined` names who read it.
 *
 * Who reads it is read from the CEL text (`oldObject` as an identifier, outside string literals)
 * of each policy (all its expressions: a variable that reads it reads it for all) and each
 * webhook's matchConditions (a webhook's answer is assumed, whatever it is sent); whether the
 * request reached their CEL is read from the simulation's steps.
 */
import type { PreparedChain, SimResult } from '../admission';
import { isObject } from '../base/json';

/** The policies and webhooks of a chain that read `oldObject`, by `kind name` (webhooks: `kind configuration: webhook`), with their text (two chains read alike where it is equal). */
export type Readers = ReadonlyMap<string, string>;

const EXPRESSION_KEYS = new Set(['expression', 'messageExpression', 'valueExpression']);

/** CEL string literals (quoted, triple-quoted, raw, bytes): what they say is no reference. */
const CEL_STRINGS = /[rRbB]{0,2}(?:'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\[\s\S]|[^'\\\n])*'|"(?:\\[\s\S]|[^"\\\n])*")/g;

const OLD_OBJECT = /(^|[^\w.])oldObject\b/;

/** Whether a CEL expression names the `oldObject` variable. */
export const readsOldObject = (expression: string): boolean => OLD_OBJECT.test(expression.replace(CEL_STRINGS, '""'));

/** Every CEL expression under `v` (expression, messageExpression, valueExpression keys). */
function expressions(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) expressions(x, out);
  else if (isObject(v))
    for (const [k, x] of Object.entries(v)) {
      if (EXPRESSION_KEYS.has(k) && typeof x === 'string') out.push(x);
      else expressions(x, out);
    }
  return out;
}

export function readersOf(chain: PreparedChain): Readers {
  const out = new Map<string, string>();
  for (const p of [...chain.ws.policies.mutating, ...chain.ws.policies.validating])
    if (expressions(p.spec).some(readsOldObject)) out.set(`${p.kind} ${p.name}`, JSON.stringify(p.policy));
  for (const w of [...chain.ws.webhooks.mutating, ...chain.ws.webhooks.validating])
    if (expressions(w.webhook.matchConditions).some(readsOldObject)) out.set(`${w.configKind} ${w.configName}: ${w.name}`, JSON.stringify(w.webhook));
  return out;
}

/** The readers whose CEL the request reached: a step not skipped, or skipped by its matchConditions. */
export function oldObjectRead(r: SimResult, readers: Readers): string[] {
  if (!readers.size) return [];
  const read = new Set<string>();
  for (const s of r.steps) {
    const key = s.webhook ? `${s.kind} ${s.name}: ${s.webhook}` : `${s.kind} ${s.name}`;
    if (readers.has(key) && (s.outcome !== 'skipped' || s.path.includes('matchConditions'))) read.add(key);
  }
  return [...read].sort();
}
