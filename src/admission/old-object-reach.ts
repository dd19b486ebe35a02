/**
 * Which policies and webhooks an unknown old object may bring into a request (an update or delete
 * the impact replay has no old object for). Besides the CEL that reads `oldObject`, matching reads
 * it: an objectSelector matches the object's labels or the old object's
 * (predicates/object/matcher.go `MatchObjectSelector`), so a plugin whose objectSelector does not
 * match the object may still apply at the apiserver. Keys as src/impact/old-object.ts names them:
 * `kind name` for a policy, `kind configuration: webhook` for a webhook.
 */
import { matchPolicy, matchResources, matchWebhook, type MatchInput, type MatchResult } from '../policy';
import { isObject, obj, type Obj } from '../base/json';
import { loadTypedData } from '../k8s/typed';
import type { PolicyCel } from '../policy';
import { matchInput } from './context';
import { contextOf, type PreparedChain } from './simulate';
import type { SimOptions, SimRequest } from './types';

export interface OldObjectReach {
  /** The plugins that match the request for some old object's labels: those whose CEL the request may reach (a mutation before them may change labels, not rules or Namespaces). */
  matched: ReadonlySet<string>;
  /** Of those, the ones that do not match without the old object: whether they apply depends on its labels. */
  selected: ReadonlySet<string>;
}

/** An objectSelector that selects every object: what the old object's labels could make of any selector. */
const anyLabels = (m: unknown): Obj => ({ ...obj(m), objectSelector: {} });

/**
 * Whether a match reaches the plugin: it matches, or it fails (a bad selector, a missing
 * Namespace: the plugin's failure). With the objectSelector read as empty: whether it may for some
 * old object; as written, without the old object: whether it does whatever the old object is.
 */
const reaches = (m: MatchResult | undefined): boolean => !m || m.matches || !!m.error;

export async function oldObjectReach(chain: PreparedChain, request: SimRequest, options: SimOptions, cel: PolicyCel): Promise<OldObjectReach> {
  await loadTypedData(chain.kubernetesVersion);
  const input: MatchInput = matchInput(contextOf(chain, request, { ...options, kubernetesVersion: chain.kubernetesVersion }, cel, false, false));
  const matched = new Set<string>();
  const selected = new Set<string>();
  const note = (key: string, now: boolean) => {
    matched.add(key);
    if (!now) selected.add(key);
  };
  const { webhooks, policies } = chain.ws;
  for (const wh of [...webhooks.mutating, ...webhooks.validating]) {
    const options = { static: wh.static === true };
    if (reaches(matchWebhook(anyLabels(wh.webhook), input, options)))
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
    const any = isObject(p.spec.matchConstraints) ? matchPolicy({ ...p.spec, matchConstraints: anyLabels(p.spec.matchConstraints) }, at) : now;
    if (any.skipReason && !any.configError) continue;
    for (const b of p.bindings) {
      const mr = b.spec.matchResources;
      if (!reaches(isObject(mr) ? matchResources(anyLabels(mr), input) : undefined)) continue;
      note(key, !now.skipReason && reaches(isObject(mr) ? matchResources(mr, input) : undefined));
    }
  }
  return { matched, selected };
}
