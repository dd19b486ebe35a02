/**
 * lockoutReport(objects, options?): the critical system requests (critical-requests.ts) the
 * workspace would reject, or hold for a webhook's timeout, while its webhooks are unavailable.
 * Each request is simulated once with every webhook 'unavailable', in probe mode: a step that
 * rejects it is recorded and the chain goes on as if that one had answered, so every
 * configuration responsible is found, not only the first. Each finding names the webhook (or
 * policy) and the field that makes it so.
 */
import { isObject, list, obj } from '../base/json';
import type { PolicyCel } from '../policy';
import { criticalRequests } from './critical-requests';
import { probe } from './simulate';
import type { LockoutFinding, LockoutOptions, LockoutReport, SimOptions, SimStep, WebhookResponse } from './types';
import { collectWorkspace } from './workspace';
import { REVIEW_RESOURCES } from '../base/releases';
import { targetRelease } from '../base/platforms';

function finding(
  req: { id: string; title: string; impact: string },
  s: SimStep,
  effect: LockoutFinding['effect'],
  reason: string,
  message?: string,
): LockoutFinding {
  const f: LockoutFinding = {
    request: req.id,
    title: req.title,
    impact: req.impact,
    effect,
    kind: s.kind,
    name: s.name,
    document: s.document,
    path: s.path,
    reason,
  };
  if (s.webhook) f.webhook = s.webhook;
  if (s.binding) f.binding = s.binding;
  if (message) f.message = message;
  if (s.static) f.static = true;
  return f;
}

/** For a webhook that lets a system namespace through: say that its namespaceSelector does not exclude it. */
function selectorHint(docs: readonly unknown[], s: SimStep, namespace: string | undefined): string {
  const i = /^webhooks\[(\d+)\]/.exec(s.path)?.[1];
  if (!s.webhook || !namespace || i === undefined) return '';
  const selector = obj(list(obj(docs[s.document.index]).webhooks)[Number(i)]).namespaceSelector;
  const empty = !isObject(selector) || (Object.keys(obj(selector.matchLabels)).length === 0 && list(selector.matchExpressions).length === 0);
  return empty
    ? `; webhooks[${i}].namespaceSelector is empty, so namespace ${namespace} is not excluded`
    : `; webhooks[${i}].namespaceSelector does not exclude namespace ${namespace}`;
}

/** Where a static manifest rejects a critical request: the usual way out (delete the configuration) does not exist. */
const STATIC_NOTE =
  '; it is a static manifest: it cannot be deleted or edited through the API, only in its manifest directory on every control-plane host (the apiserver reloads it; a set that does not load keeps the last good one)';

const quote = (names: string[]) => names.map((n) => `'${n}'`).join(', ');
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

function headline(findings: LockoutFinding[], checked: number): string {
  const rejected = findings.filter((f) => f.effect === 'rejected');
  const stalled = findings.filter((f) => f.effect === 'stalled');
  const requests = (fs: LockoutFinding[]) => new Set(fs.map((f) => f.request)).size;
  const webhooks = [...new Set(rejected.filter((f) => f.webhook).map((f) => f.webhook!))];
  const policies = [...new Set(rejected.filter((f) => !f.webhook).map((f) => f.name))];
  if (rejected.length > 0) {
    const n = requests(rejected);
    const parts: string[] = [];
    if (webhooks.length) parts.push(`while ${quote(webhooks)} ${plural(webhooks.length, 'is', 'are')} down`);
    if (policies.length) parts.push(`by ${plural(policies.length, 'policy', 'policies')} ${quote(policies)}`);
    const statics = [...new Set(rejected.filter((f) => f.static).map((f) => f.webhook ?? f.name))];
    const fixed = statics.length
      ? `; ${quote(statics)} ${plural(statics.length, 'is a static manifest', 'are static manifests')}, which the API cannot delete`
      : '';
    return `${n} critical ${plural(n, 'request', 'requests')} would be rejected ${parts.join(' and ')}${fixed}`;
  }
  if (stalled.length > 0) {
    const n = requests(stalled);
    const names = [...new Set(stalled.map((f) => f.webhook ?? f.name))];
    return `No critical request would be rejected; ${n} would wait for the timeout of ${quote(names)} while ${plural(names.length, 'it is', 'they are')} down`;
  }
  return `No critical request would be rejected or stalled while the webhooks are down (${checked} checked)`;
}

/** For a review request: whether webhooks can lock it out at the release (policies never can). */
function reviewNote(request: { resource?: { group?: string; resource?: string } }, options: LockoutOptions): string | undefined {
  const row = targetRelease(options.kubernetesVersion, options.platform);
  const is = (list: readonly { group: string; resource: string }[]) =>
    list.some((gr) => gr.group === (request.resource?.group ?? '') && gr.resource === request.resource?.resource);
  if (!is(REVIEW_RESOURCES)) return undefined;
  if (is(row.chain.webhookExcludedResources))
    return `${row.label} sends review requests to no webhook (gate ExcludeAdmissionWebhookVirtualResources) and no admission policy: nothing in the workspace can lock it out`;
  return `${row.label} sends review requests to webhooks (not to admission policies): a fail-closed webhook whose rules match it (e.g. *) can lock it out`;
}

export async function lockoutReport(objects: readonly unknown[], options: LockoutOptions = {}, cel?: PolicyCel): Promise<LockoutReport> {
  const docs = Array.isArray(objects) ? objects : [];
  const statics = new Set(options.staticDocuments ?? []);
  const ws = collectWorkspace(docs, [], (i) => statics.has(i));
  const webhooks: Record<string, WebhookResponse> = {};
  for (const w of [...ws.webhooks.mutating, ...ws.webhooks.validating]) webhooks[w.name] = 'unavailable';
  const simOptions: SimOptions = {
    webhooks,
    namespaces: options.namespaces,
    ...(statics.size ? { staticDocuments: [...statics] } : {}),
    // the chain's own order (a static mutating webhook first or last): the first rejection a request meets comes first
    ...(options.staticOrder ? { staticOrder: options.staticOrder } : {}),
    ...(options.featureGates?.length ? { featureGates: options.featureGates } : {}),
  };
  const target = targetRelease(options.kubernetesVersion, options.platform);
  if (options.kubernetesVersion || options.platform) simOptions.kubernetesVersion = target.kubernetesVersion;
  const stallSeconds = options.stallSeconds ?? 10;
  const findings: LockoutFinding[] = [];
  const checked: LockoutReport['checked'] = [];

  for (const req of criticalRequests(docs, target.criticalNamespaces)) {
    const r = await probe(docs, req.request, simOptions, cel);
    let stalled = false;
    for (const s of r.steps) {
      if (s.outcome === 'denied' || s.outcome === 'error-rejected') {
        findings.push(finding(req, s, 'rejected', `${s.reason}${selectorHint(docs, s, req.request.namespace)}${s.static ? STATIC_NOTE : ''}`, s.message));
      } else if (s.outcome === 'error-ignored' && s.webhook && (s.timeoutSeconds ?? 10) >= stallSeconds) {
        stalled = true;
        const reason = `failurePolicy Ignore, but a webhook that hangs instead of refusing holds the request for timeoutSeconds (${s.timeoutSeconds ?? 10} s) on every call`;
        findings.push(finding(req, { ...s, path: s.path.replace(/\.failurePolicy$/, '.timeoutSeconds') }, 'stalled', reason));
      }
    }
    const note = reviewNote(req.request, options);
    checked.push({ request: req.id, title: req.title, allowed: r.allowed, stalled, ...(note ? { note } : {}) });
  }
  return { headline: headline(findings, checked.length), findings, checked };
}
