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
 * request reached their CEL is read from the simulation's steps. Matching reads it too: a plugin
 * whose objectSelector the object does not match may apply by the old object's labels
 * (`oldObjectReach` in src/admission).
 */
import type { OldObjectReach, PreparedChain, SimResult } from '../admission';
import { isObject } from '../base/json';

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

/**
 * What of a chain may read an unknown old object: `cel`, the policies and webhooks whose CEL names
 * it; `texts`, every policy (with its bindings) and webhook as JSON, by key: two chains read the old
 * object alike through a plugin where its text is the same.
 */
export interface Readers {
  cel: ReadonlySet<string>;
  texts: ReadonlyMap<string, string>;
}

export function readersOf(chain: PreparedChain): Readers {
  const cel = new Set<string>();
  const texts = new Map<string, string>();
  for (const p of [...chain.ws.policies.mutating, ...chain.ws.policies.validating]) {
    const key = `${p.kind} ${p.name}`;
    texts.set(key, JSON.stringify([p.policy, p.bindings.map((b) => b.binding)]));
    if (expressions(p.spec).some(readsOldObject)) cel.add(key);
  }
  for (const w of [...chain.ws.webhooks.mutating, ...chain.ws.webhooks.validating]) {
    const key = `${w.configKind} ${w.configName}: ${w.name}`;
    texts.set(key, JSON.stringify(w.webhook));
    if (expressions(w.webhook.matchConditions).some(readsOldObject)) cel.add(key);
  }
  return { cel, texts };
}

/** Whether a request whose old object is unknown may read it in this chain: a plugin that may match it reads it, or matches by its labels. */
export const mayRead = (readers: Readers, reach: OldObjectReach): boolean => reach.selected.size > 0 || [...reach.matched].some((k) => readers.cel.has(k));

/**
 * Who read the unknown old object in a run: the readers whose CEL the request reached (a step not
 * skipped, or skipped by its matchConditions), and the plugins whose match depends on its labels.
 */
export function oldObjectRead(r: SimResult, readers: Readers, reach: OldObjectReach): string[] {
  const read = new Set<string>(reach.selected);
  for (const s of r.steps) {
    const key = s.webhook ? `${s.kind} ${s.name}: ${s.webhook}` : `${s.kind} ${s.name}`;
    if (readers.cel.has(key) && (s.outcome !== 'skipped' || s.path.includes('matchConditions'))) read.add(key);
  }
  return [...read].sort();
}
