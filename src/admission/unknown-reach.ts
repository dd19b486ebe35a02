/**
 * Which policies and webhooks what the impact replay does not know may bring into a request: an
 * old object (an update or delete of an object neither the log nor the snapshot holds) and a
 * Namespace (one neither holds: the simulator assumes it with only its name label). Besides the
 * CEL that reads `oldObject` or `namespaceObject`, matching reads them: an objectSelector matches
 * the object's labels or the old object's (predicates/object/matcher.go `MatchObjectSelector`), a
 * namespaceSelector the Namespace's. So a plugin whose selector does not match what the replay
 * assumes may still apply at the apiserver. Keys as src/impact/unknown.ts names them: `kind name`
 * for a policy, `kind configuration: webhook` for a webhook.
 */
import { matchPolicy, matchResources, matchWebhook, type MatchInput, type MatchResult } from '../policy';
import { isObject, list, obj, str, type Obj } from '../base/json';
import { NAMESPACE_NAME_LABEL } from '../k8s/resources';
import { loadTypedData } from '../k8s/typed';
import type { PolicyCel } from '../policy';
import { matchInput } from './context';
import { contextOf, type PreparedChain } from './simulate';
import type { SimOptions, SimRequest } from './types';

/** What the replay does not know of a request. */
export interface Unknown {
  oldObject?: boolean;
  namespace?: boolean;
}

export interface UnknownReach {
  /** What of it is unknown for this chain (a Namespace its own documents hold is known). */
  unknown: Unknown;
  /** The plugins that match the request for some labels of what is unknown: those whose CEL the request may reach (a mutation before them may change labels, not rules or Namespaces). */
  matched: ReadonlySet<string>;
  /** Of those, the ones that do not match as the replay assumes it: whether they apply depends on its labels. */
  selected: ReadonlySet<string>;
}

/**
 * A selector as the unknown labels could make it: an objectSelector of an unknown old object
 * selects every object; a namespaceSelector of an unknown Namespace keeps only what it asks of
 * the name label, the one label the replay knows (the apiserver sets it).
 */
function anyLabels(m: unknown, unknown: Unknown): Obj {
  const out = { ...obj(m) };
  if (unknown.oldObject) out.objectSelector = {};
  if (unknown.namespace) {
    const s = obj(out.namespaceSelector);
    const labels = obj(s.matchLabels);
    out.namespaceSelector = {
      ...(NAMESPACE_NAME_LABEL in labels ? { matchLabels: { [NAMESPACE_NAME_LABEL]: labels[NAMESPACE_NAME_LABEL] } } : {}),
      ...('matchExpressions' in s ? { matchExpressions: list(s.matchExpressions).filter((e) => obj(e).key === NAMESPACE_NAME_LABEL) } : {}),
    };
  }
  return out;
}

/**
 * Whether a match reaches the plugin: it matches, or it fails (a bad selector, a missing
 * Namespace: the plugin's failure). With the selectors as the unknown labels could make them:
 * whether it may; as written, on what the replay assumes: whether it does.
 */
const reaches = (m: MatchResult | undefined): boolean => !m || m.matches || !!m.error;

const isNamespaceRequest = (r: SimRequest): boolean => str(r.resource?.group) === '' && r.resource?.resource === 'namespaces';

export async function unknownReach(chain: PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel, given: Unknown): Promise<UnknownReach> {
  await loadTypedData(chain.kubernetesVersion);
  const ctx = contextOf(chain, request, { ...options, kubernetesVersion: chain.kubernetesVersion }, cel, false, false);
  // the simulator assumed the Namespace (namespaceOfRequest): neither the options nor the chain's documents hold it
  const unknown: Unknown = {
    ...(given.oldObject ? { oldObject: true } : {}),
    ...(given.namespace && str(request.namespace) && !ctx.namespaceDocument && !isNamespaceRequest(request) ? { namespace: true } : {}),
  };
  const matched = new Set<string>();
  const selected = new Set<string>();
  if (!unknown.oldObject && !unknown.namespace) return { unknown, matched, selected };
  const input: MatchInput = matchInput(ctx);
  const note = (key: string, now: boolean) => {
    matched.add(key);
    if (!now) selected.add(key);
  };
  const { webhooks, policies } = chain.ws;
  for (const wh of [...webhooks.mutating, ...webhooks.validating]) {
    const options = { static: wh.static === true };
    if (reaches(matchWebhook(anyLabels(wh.webhook, unknown), input, options)))
      note(`${wh.configKind} ${wh.configName}: ${wh.name}`, reaches(matchWebhook(wh.webhook, input, options)));
  }
  for (const p of [...policies.mutating, ...policies.validating]) {
    if (!p.bindings.length) continue; // never run
    const key = `${p.kind} ${p.name}`;
    const at = { ...input, ...(p.static ? { static: true } : {}) };
    const now = matchPolicy(p.spec, at);
    if (now.configError) {
      note(key, true);
      continue;
    }
    const any = isObject(p.spec.matchConstraints) ? matchPolicy({ ...p.spec, matchConstraints: anyLabels(p.spec.matchConstraints, unknown) }, at) : now;
    if (any.skipReason && !any.configError) continue;
    for (const b of p.bindings) {
      const mr = b.spec.matchResources;
      if (!reaches(isObject(mr) ? matchResources(anyLabels(mr, unknown), input) : undefined)) continue;
      note(key, !now.skipReason && reaches(isObject(mr) ? matchResources(mr, input) : undefined));
    }
  }
  return { unknown, matched, selected };
}
