/**
 * Which decisions read what the replay does not know: an old object (an update or delete always
 * has one at the apiserver; neither the log nor the snapshot holds it), a Namespace (neither
 * holds it: the simulator assumes it with only its name label) or the authorizer's answers (no
 * RBAC in the inputs; members of system:masters are allowed everything, so for them only a check
 * for another principal). The replay decides with none, or with the assumed one, and a policy or
 * webhook matchCondition that reads `oldObject`, `namespaceObject` or `authorizer` then decides
 * something the cluster may not have (`no such key`, a check not allowed, under failurePolicy
 * Fail a denial). Such a decision is undetermined, not a denial: `Decision.undetermined` names
 * who read it.
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
const AUTHORIZER = /(^|[^\w.])authorizer\b/;
/** The object or the old object: what a conversion to another version changes. */
const OBJECT = /(^|[^\w.])(object|oldObject)\b/;
/** A check for another principal than the request's user. */
const OTHER_PRINCIPAL = /(^|[^\w.])authorizer\s*\.\s*serviceAccount\s*\(/;

/** Whether a CEL expression names the `oldObject` variable. */
export const readsOldObject = (expression: string): boolean => OLD_OBJECT.test(expression.replace(CEL_STRINGS, '""'));
/** Whether a CEL expression names `variable` (a regular expression for it) outside string literals. */
const names =
  (variable: RegExp) =>
  (expression: string): boolean =>
    variable.test(expression.replace(CEL_STRINGS, '""'));

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
 * names `oldObject` (`oldObject`), `namespaceObject` (`namespace`), `authorizer` (`authorizer`),
 * `authorizer.serviceAccount(…)` (`otherPrincipal`); `texts`, every policy (with its bindings) and
 * webhook as JSON, by key: two chains read alike through a plugin where its text is the same.
 */
export interface Readers {
  oldObject: ReadonlySet<string>;
  namespace: ReadonlySet<string>;
  authorizer: ReadonlySet<string>;
  otherPrincipal: ReadonlySet<string>;
  /** Whose CEL names `object` or `oldObject`. */
  object: ReadonlySet<string>;
  texts: ReadonlyMap<string, string>;
}

const READS = {
  oldObject: readsOldObject,
  namespace: names(NAMESPACE_OBJECT),
  authorizer: names(AUTHORIZER),
  otherPrincipal: names(OTHER_PRINCIPAL),
  object: names(OBJECT),
};

/**
 * Readers per chain's policies and webhooks: a chain prepared again for a param written keeps
 * them (prepareChain reuses its workspace's lists), and a log that writes params often makes
 * thousands of deciders (read afresh each time, 4 % of the realistic replay).
 */
const known = new WeakMap<object, { webhooks: object; readers: Readers }>();

export function readersOf(chain: PreparedChain): Readers {
  const { policies, webhooks } = chain.ws;
  const hit = known.get(policies);
  if (hit?.webhooks === webhooks) return hit.readers;
  const readers = readChain(chain);
  known.set(policies, { webhooks, readers });
  return readers;
}

function readChain(chain: PreparedChain): Readers {
  const sets = {
    oldObject: new Set<string>(),
    namespace: new Set<string>(),
    authorizer: new Set<string>(),
    otherPrincipal: new Set<string>(),
    object: new Set<string>(),
  };
  const texts = new Map<string, string>();
  const read = (key: string, cel: string[]) => {
    for (const k of Object.keys(READS) as (keyof typeof READS)[]) if (cel.some(READS[k])) sets[k].add(key);
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
  return { ...sets, texts };
}

/** Whether a plugin's CEL reads what of the request is unknown (`asked`: the run may have asked the authorizer; without, its answers cannot matter). */
const readsUnknown = (readers: Readers, unknown: Unknown, key: string, asked = true): boolean =>
  (!!unknown.oldObject && readers.oldObject.has(key)) ||
  (!!unknown.namespace && readers.namespace.has(key)) ||
  (asked && unknown.authorizer === 'all' && readers.authorizer.has(key)) ||
  (asked && unknown.authorizer === 'others' && readers.otherPrincipal.has(key));

/** Whether a chain's CEL asks the authorizer what the replay does not know (`unknownOf` in decide.ts). */
export const asksAuthorizer = (readers: Readers, others: boolean): boolean => (others ? readers.otherPrincipal : readers.authorizer).size > 0;

/** Whether the chain may read what of a request is unknown: a plugin that may match it reads it in its CEL, or matches by its labels. */
export const mayRead = (readers: Readers, reach: UnknownReach): boolean =>
  // a conversion's: known from the run's steps only (which plugin matched through which version)
  !!reach.unknown.conversion || reach.selected.size > 0 || [...reach.matched].some((k) => readsUnknown(readers, reach.unknown, k));

/**
 * Who read what of the request is unknown in a run: the readers whose CEL the request reached (a
 * step not skipped, or skipped by its matchConditions), and the plugins whose match depends on its labels.
 */
export function unknownRead(r: SimResult, readers: Readers, reach: UnknownReach, askedAuthorizer: boolean): string[] {
  const read = new Set<string>(reach.selected);
  for (const s of r.steps) {
    const key = s.webhook ? `${s.kind} ${s.name}: ${s.webhook}` : `${s.kind} ${s.name}`;
    const converted = !!reach.unknown.conversion && s.conversion?.exact === false && readers.object.has(key);
    if ((converted || readsUnknown(readers, reach.unknown, key, askedAuthorizer)) && (s.outcome !== 'skipped' || s.path.includes('matchConditions')))
      read.add(key);
  }
  return [...read].sort();
}
