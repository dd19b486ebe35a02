/**
 * Which decisions read what the replay does not know: an old object (an update or delete always
 * has one at the apiserver; neither the log nor the snapshot holds it) or a Namespace (neither
 * holds it: the simulator assumes it with only its name label). The replay decides with none,
 * or with the assumed one, and a policy or webhook matchCondition that reads `oldObject` or
 * `namespaceObject` then decides something the cluster may not have (`no such key`, under
 * failurePolicy Fail a denial). Such a decision is undetermined, not a denial:
 * `Decision.undetermined` names who read it.
 *
 * Who reads it is read from the CEL text (the variable as an identifier, outside string literals)
 * of each policy (all its expressions: a variable that reads it reads it for all) and each
 * webhook's matchConditions (a webhook's answer is assumed, whatever it is sent); whether the
 * request reached their CEL is read from the simulation's steps. Matching reads them too: a
 * plugin whose objectSelector the object does not match may apply by the old object's labels, one
 * whose namespaceSelector the assumed Namespace does not match by the Namespace's
 * (`unknownReach` in src/admission).
 */
import type { PreparedChain, SimResult, Unknown, UnknownReach } from '../admission';
import { isObject } from '../base/json';

const EXPRESSION_KEYS = new Set(['expression', 'messageExpression', 'valueExpression']);

/** CEL string literals (quoted, triple-quoted, raw, bytes): what they say is no reference. */
const CEL_STRINGS = /[rRbB]{0,2}(?:'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\[\s\S]|[^'\\\n])*'|"(?:\\[\s\S]|[^"\\\n])*")/g;

const OLD_OBJECT = /(^|[^\w.])oldObject\b/;
const NAMESPACE_OBJECT = /(^|[^\w.])namespaceObject\b/;

/** Whether a CEL expression names the `oldObject` variable. */
export const readsOldObject = (expression: string): boolean => OLD_OBJECT.test(expression.replace(CEL_STRINGS, '""'));
const readsNamespaceObject = (expression: string): boolean => NAMESPACE_OBJECT.test(expression.replace(CEL_STRINGS, '""'));

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
 * What of a chain may read what the replay does not know: the policies and webhooks whose CEL
 * names `oldObject` (`oldObject`) or `namespaceObject` (`namespace`); `texts`, every policy (with
 * its bindings) and webhook as JSON, by key: two chains read alike through a plugin where its
 * text is the same.
 */
export interface Readers {
  oldObject: ReadonlySet<string>;
  namespace: ReadonlySet<string>;
  texts: ReadonlyMap<string, string>;
}

export function readersOf(chain: PreparedChain): Readers {
  const oldObject = new Set<string>();
  const namespace = new Set<string>();
  const texts = new Map<string, string>();
  const read = (key: string, cel: string[]) => {
    if (cel.some(readsOldObject)) oldObject.add(key);
    if (cel.some(readsNamespaceObject)) namespace.add(key);
  };
  for (const p of [...chain.ws.policies.mutating, ...chain.ws.policies.validating]) {
    const key = `${p.kind} ${p.name}`;
    texts.set(key, JSON.stringify([p.policy, p.bindings.map((b) => b.binding)]));
    read(key, expressions(p.spec));
  }
  for (const w of [...chain.ws.webhooks.mutating, ...chain.ws.webhooks.validating]) {
    const key = `${w.configKind} ${w.configName}: ${w.name}`;
    texts.set(key, JSON.stringify(w.webhook));
    read(key, expressions(w.webhook.matchConditions));
  }
  return { oldObject, namespace, texts };
}

/** Whether a plugin's CEL reads what of the request is unknown. */
const readsUnknown = (readers: Readers, unknown: Unknown, key: string): boolean =>
  (!!unknown.oldObject && readers.oldObject.has(key)) || (!!unknown.namespace && readers.namespace.has(key));

/** Whether the chain may read what of a request is unknown: a plugin that may match it reads it in its CEL, or matches by its labels. */
export const mayRead = (readers: Readers, reach: UnknownReach): boolean =>
  reach.selected.size > 0 || [...reach.matched].some((k) => readsUnknown(readers, reach.unknown, k));

/**
 * Who read what of the request is unknown in a run: the readers whose CEL the request reached (a
 * step not skipped, or skipped by its matchConditions), and the plugins whose match depends on its labels.
 */
export function unknownRead(r: SimResult, readers: Readers, reach: UnknownReach): string[] {
  const read = new Set<string>(reach.selected);
  for (const s of r.steps) {
    const key = s.webhook ? `${s.kind} ${s.name}: ${s.webhook}` : `${s.kind} ${s.name}`;
    if (readsUnknown(readers, reach.unknown, key) && (s.outcome !== 'skipped' || s.path.includes('matchConditions'))) read.add(key);
  }
  return [...read].sort();
}
