/**
 * Which policies and webhooks what the impact replay does not know may bring into a request: an
 * old object (an update or delete of an object neither the log nor the snapshot holds) and a
 * Namespace (one neither holds: the simulator assumes it with only its name label). Besides the
 * CEL that reads `oldObject` or `namespaceObject`, matching reads them: an objectSelector matches
 * the object's labels or the old object's (predicates/object/matcher.go `MatchObjectSelector`), a
 * namespaceSelector the Namespace's. So a plugin whose selector does not match what the replay
 * assumes may still apply at the apiserver. The authorizer's answers are not known either (but for
 * system:masters): only CEL reads them. Keys as src/impact/unknown.ts names them: `kind name` for a
 * policy, `kind configuration: webhook` for a webhook.
 */
import { matchPolicy, matchResources, matchWebhook, type MatchInput, type MatchResult } from '../policy';
import { isObject, list, obj, type Obj } from '../base/json';
import { NAMESPACE_NAME_LABEL } from '../k8s/resources';
import { loadTypedData } from '../k8s/typed';
import type { PolicyCel } from '../policy';
import { matchInput } from './context';
import { contextOf, type PreparedChain } from './simulate';
import type { SimOptions, SimRequest } from './types';
import type { WorkspacePolicy } from './workspace';

/** What the replay does not know of a request. */
export interface Unknown {
  /** An update or delete whose old object the replay does not hold. */
  oldObject?: boolean;
  /** A namespaced request (not on the `namespaces` resource) whose Namespace the replay does not hold; unknownReach keeps it where the chain's documents do not hold it either. */
  namespace?: boolean;
  /** The authorizer's answers: for every principal ('all'), or for principals other than the request's user ('others': a member of system:masters, whom the apiserver allows everything). */
  authorizer?: 'all' | 'others';
  /**
   * The request's resource has an equivalent of another version whose object the apiserver
   * converts in ways the simulator does not (context.ts convertsExactly): a plugin matched
   * through it reads fields the replay does not have (its steps say `conversion`).
   */
  conversion?: boolean;
}

export interface UnknownReach {
  /** What of it is unknown for this chain (a Namespace its own documents hold is known). */
  unknown: Unknown;
  /**
   * The plugins that match the request for some labels of its object (a mutation before them may
   * change them) and of what is unknown: those whose CEL the request may reach.
   */
  matched: ReadonlySet<string>;
  /** Of those, the ones that do not match as the replay assumes what is unknown but may by its labels: whether they apply depends on them. */
  selected: ReadonlySet<string>;
}

/** Which selectors read as the labels could make them: the object's, the Namespace's. */
interface Relax {
  object: boolean;
  namespace: boolean;
}

/**
 * A selector as the labels could make it: an objectSelector selects every object; a
 * namespaceSelector of an unknown Namespace keeps only what it asks of the name label, the one
 * label the replay knows (the apiserver sets it).
 */
function relaxed(m: unknown, r: Relax): Obj {
  const out = { ...obj(m) };
  if (r.object) out.objectSelector = {};
  if (r.namespace) {
    const s = obj(out.namespaceSelector);
    const labels = obj(s.matchLabels);
    out.namespaceSelector = {
      ...(NAMESPACE_NAME_LABEL in labels ? { matchLabels: { [NAMESPACE_NAME_LABEL]: labels[NAMESPACE_NAME_LABEL] } } : {}),
      ...('matchExpressions' in s ? { matchExpressions: list(s.matchExpressions).filter((e) => obj(e).key === NAMESPACE_NAME_LABEL) } : {}),
    };
  }
  return out;
}

/** Whether a match reaches the plugin: it matches, or it fails (a bad selector, a missing Namespace: the plugin's failure). */
const reaches = (m: MatchResult | undefined): boolean => !m || m.matches || !!m.error;

/** Per binding, whether a policy reaches it with the selectors read as `r` says. */
function bindingsReached(p: WorkspacePolicy, input: MatchInput, r: Relax): boolean[] {
  const mc = p.spec.matchConstraints;
  const pm = matchPolicy(isObject(mc) ? { ...p.spec, matchConstraints: relaxed(mc, r) } : p.spec, { ...input, ...(p.static ? { static: true } : {}) });
  if (pm.configError || pm.skipReason) return p.bindings.map(() => !!pm.configError);
  return p.bindings.map((b) => {
    const mr = b.spec.matchResources;
    return reaches(isObject(mr) ? matchResources(relaxed(mr, r), input) : undefined);
  });
}

export async function unknownReach(chain: PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel, given: Unknown): Promise<UnknownReach> {
  await loadTypedData(chain.kubernetesVersion);
  const ctx = contextOf(chain, request, { ...options, kubernetesVersion: chain.kubernetesVersion }, cel, false, false);
  // the simulator assumed the Namespace (namespaceOfRequest): neither the options nor the chain's documents hold it
  const unknown: Unknown = {
    ...(given.oldObject ? { oldObject: true } : {}),
    ...(given.namespace && !ctx.namespaceDocument ? { namespace: true } : {}),
    ...(given.authorizer ? { authorizer: given.authorizer } : {}),
    ...(given.conversion ? { conversion: true } : {}),
  };
  const matched = new Set<string>();
  const selected = new Set<string>();
  if (!unknown.oldObject && !unknown.namespace && !unknown.authorizer) return { unknown, matched, selected };
  const input: MatchInput = matchInput(ctx);
  const written: Relax = { object: false, namespace: false };
  const byUnknown: Relax = { object: !!unknown.oldObject, namespace: !!unknown.namespace };
  const afterMutation: Relax = { object: true, namespace: !!unknown.namespace };
  const { webhooks, policies } = chain.ws;
  for (const wh of [...webhooks.mutating, ...webhooks.validating]) {
    const key = `${wh.configKind} ${wh.configName}: ${wh.name}`;
    const at = (r: Relax) => reaches(matchWebhook(relaxed(wh.webhook, r), input, { static: wh.static === true }));
    if (at(afterMutation)) matched.add(key);
    if (at(byUnknown) && !at(written)) selected.add(key);
  }
  for (const p of [...policies.mutating, ...policies.validating]) {
    const key = `${p.kind} ${p.name}`;
    const now = bindingsReached(p, input, written);
    if (bindingsReached(p, input, afterMutation).some(Boolean)) matched.add(key);
    if (bindingsReached(p, input, byUnknown).some((x, i) => x && !now[i])) selected.add(key);
  }
  return { unknown, matched, selected };
}
