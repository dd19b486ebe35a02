/**
 * What "agree" means between simulate() and the real kube-apiserver (the admission oracle)
 * for one scenario:
 *
 * 1. the verdict: `allowed`; when denied, the HTTP code and the status message (a webhook
 *    call failure's transport part — URL and socket error — is not compared: the oracle
 *    serves the webhooks on 127.0.0.1 and its "unavailable" endpoint resets the connection);
 * 2. the webhooks called: mutating webhooks in order, reinvocations included (a webhook
 *    called twice was reinvoked); validating webhooks as a set (the apiserver calls them in
 *    parallel). A call is one the apiserver attempted: an unavailable webhook's attempt
 *    counts (the oracle's endpoint records it; immediate retries of one attempt are one call);
 *    a dry-run rejection for sideEffects is not a call;
 * 3. the warnings the client gets (as a set: validating webhooks answer in any order);
 * 4. when allowed and the request has an object: the object the apiserver returns, without
 *    what the apiserver sets itself (uid, creationTimestamp, resourceVersion, generation,
 *    managedFields; and a review's `status`, its answer), equals simulate()'s `object`.
 */
import { webhookCalled, type SimResult } from '../../src/admission';
import { deepEqual } from '../../src/base/json';

export interface OracleCall {
  webhook: string;
  configuration: string;
  unavailable?: boolean;
}

export interface OracleAnswer {
  name: string;
  allowed: boolean;
  code?: number;
  reason?: string;
  message?: string;
  warnings: string[];
  calls: OracleCall[];
  object?: unknown;
  synced: string;
  error?: string;
  seconds: number;
}

const SERVER_FIELDS = ['uid', 'creationTimestamp', 'resourceVersion', 'generation', 'managedFields'];

/** Reviews are never stored: the apiserver answers with the admitted object plus its answer in `status`, written after admission. */
const REVIEW_KINDS = new Set([
  'TokenReview',
  'SelfSubjectReview',
  'SubjectAccessReview',
  'LocalSubjectAccessReview',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
]);

export function withoutServerFields(o: unknown): unknown {
  if (typeof o !== 'object' || o === null) return o;
  const copy = structuredClone(o) as { kind?: string; metadata?: Record<string, unknown>; status?: unknown };
  if (copy.metadata) for (const f of SERVER_FIELDS) delete copy.metadata[f];
  if (REVIEW_KINDS.has(copy.kind ?? '')) delete copy.status;
  return copy;
}

export const normalizeMessage = (m: string | undefined): string =>
  (m ?? '').replace(/failed to call webhook: Post "[^"]*": .*$/s, 'failed to call webhook: Post <url>: <transport error>');

const WEBHOOK_KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/** The webhook calls simulate() says the apiserver makes, as `configuration/webhook`, by phase. */
export function simulatedCalls(r: SimResult): { mutating: string[]; validating: string[] } {
  const out = { mutating: [] as string[], validating: [] as string[] };
  for (const s of r.steps) {
    if (WEBHOOK_KINDS.has(s.kind) && webhookCalled(s)) out[s.phase].push(`${s.name}/${s.webhook}`);
  }
  return out;
}

export function oracleCalls(a: OracleAnswer, mutatingConfigs: ReadonlySet<string>): { mutating: string[]; validating: string[] } {
  const out = { mutating: [] as string[], validating: [] as string[] };
  let previous: OracleCall | undefined;
  for (const c of a.calls ?? []) {
    const retry = c.unavailable && previous?.unavailable && previous.webhook === c.webhook && previous.configuration === c.configuration;
    previous = c;
    if (retry) continue;
    out[mutatingConfigs.has(c.configuration) ? 'mutating' : 'validating'].push(`${c.configuration}/${c.webhook}`);
  }
  return out;
}

/** The differences, one line each; [] = they agree. */
export function compareAnswers(oracle: OracleAnswer, sim: SimResult, mutatingConfigs: ReadonlySet<string>, hasObject: boolean): string[] {
  const diffs: string[] = [];
  const show = (x: unknown) => JSON.stringify(x);
  if (oracle.allowed !== sim.allowed) diffs.push(`allowed: apiserver ${oracle.allowed}, simulate() ${sim.allowed}`);
  if (!oracle.allowed && !sim.allowed) {
    if (oracle.code !== sim.deniedBy?.code) diffs.push(`code: apiserver ${oracle.code}, simulate() ${sim.deniedBy?.code}`);
    const [a, b] = [normalizeMessage(oracle.message), normalizeMessage(sim.deniedBy?.message)];
    if (a !== b) diffs.push(`message:\n      apiserver:  ${a}\n      simulate(): ${b}`);
  } else if (!oracle.allowed) diffs.push(`apiserver message: ${oracle.message}`);
  const [oc, sc] = [oracleCalls(oracle, mutatingConfigs), simulatedCalls(sim)];
  if (!deepEqual(oc.mutating, sc.mutating)) diffs.push(`mutating calls: apiserver ${show(oc.mutating)}, simulate() ${show(sc.mutating)}`);
  if (!deepEqual([...oc.validating].sort(), [...sc.validating].sort()))
    diffs.push(`validating calls: apiserver ${show(oc.validating)}, simulate() ${show(sc.validating)}`);
  if (!deepEqual([...oracle.warnings].sort(), [...sim.warnings].sort()))
    diffs.push(`warnings: apiserver ${show(oracle.warnings)}, simulate() ${show(sim.warnings)}`);
  if (oracle.allowed && sim.allowed && hasObject) {
    const [a, b] = [withoutServerFields(oracle.object), withoutServerFields(sim.object)];
    if (!deepEqual(a, b)) diffs.push(`object:\n      apiserver:  ${show(a)}\n      simulate(): ${show(b)}`);
  }
  return diffs;
}
