/**
 * Simulator scenarios: a test input, the response assumed for each webhook, and the verdict
 * expected. Drafts keep what the user typed (a JSON Patch as text, warnings one a line).
 */
import type { JsonPatchOp } from '../base/jsonpatch';
import { isObject } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import type { TestInputDraft } from './model';
import { parseDocuments } from '../yaml';

export type WebhookResponseKind = 'allow' | 'deny' | 'unavailable' | 'patch' | 'warnings';
export const WEBHOOK_RESPONSES: readonly WebhookResponseKind[] = ['allow', 'deny', 'unavailable', 'patch', 'warnings'];

export interface WebhookResponseDraft {
  response: WebhookResponseKind;
  /** JSON Patch as JSON text (response 'patch'). */
  patch: string;
  /** One warning a line (response 'warnings'). */
  warnings: string;
}

/** The simulator's assumed webhook response (src/admission's options.webhooks values). */
export type WebhookResponse = 'allow' | 'deny' | 'unavailable' | { patch: JsonPatchOp[] } | { warnings: string[] };

export interface ScenarioExpectation {
  allowed: boolean;
  /** The name of the configuration or policy expected to deny ('' or absent: any). */
  deniedBy?: string;
}

/**
 * What a request meets beyond the workspace when it comes from a cluster (an Impact report's
 * event or existing object): the cluster's objects its chain holds (admission objects the
 * candidate keeps, the params its bindings read, the CustomResourceDefinition of its resource),
 * run after the workspace's documents (a workspace admission object replaces one of the same
 * kind and name), and the release the report judged it at.
 */
export interface ScenarioCluster {
  /** Where it comes from, as the view says it (`line 12 of the audit log`). */
  source: string;
  objects: unknown[];
  kubernetesVersion?: KubernetesVersion;
}

/**
 * The authorizer's answer to a request, as the AuthorizationConditionsEnforcer admission plugin
 * meets it (1.38+, gate ConditionalAuthorization; src/admission/conditions.ts): `none` — an
 * unconditional allow (nothing to enforce); otherwise a conditional allow whose conditions,
 * evaluated on the admitted object, `allow`, `deny` (403) or fail (`error`, 500). `reason` is the
 * authorizer's reason (a deny's message ends with it) or, for `error`, its error.
 */
export interface ConditionalAuthorization {
  decision: 'none' | 'allow' | 'deny' | 'error';
  reason?: string;
}

export const CONDITIONAL_DECISIONS: readonly ConditionalAuthorization['decision'][] = ['none', 'allow', 'deny', 'error'];

/** A stored conditional decision (undefined: none, or unreadable). */
export function readConditionalAuthorization(v: unknown): ConditionalAuthorization | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const decision = CONDITIONAL_DECISIONS.find((d) => d === o.decision);
  if (!decision || decision === 'none') return undefined;
  return { decision, ...(typeof o.reason === 'string' && o.reason ? { reason: o.reason } : {}) };
}

export interface Scenario {
  id: string;
  name: string;
  input: TestInputDraft;
  webhooks: Record<string, WebhookResponseDraft>;
  /** The authorizer's conditional decision assumed (absent: unconditional); acts only with ConditionalAuthorization on. */
  authorization?: ConditionalAuthorization;
  cluster?: ScenarioCluster;
  expect: ScenarioExpectation;
}

export const defaultResponse = (): WebhookResponseDraft => ({ response: 'allow', patch: '[]', warnings: '' });

export interface ResponseError {
  webhook: string;
  message: string;
}

/** One JSON Patch text: a list of operations with `op` and `path`. */
export function parsePatch(text: string): { ops: JsonPatchOp[] } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text.trim() || '[]');
  } catch (e) {
    return { error: `not JSON: ${(e as Error).message}` };
  }
  if (!Array.isArray(v)) return { error: 'a JSON Patch is a list of operations: [{"op": "add", "path": "/metadata/labels/x", "value": "y"}]' };
  const bad = v.findIndex((op) => !isObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string');
  if (bad >= 0) return { error: `operation ${bad}: needs "op" and "path" strings` };
  return { ops: v as JsonPatchOp[] };
}

const cache = new WeakMap<Record<string, WebhookResponseDraft>, { responses: Record<string, WebhookResponse>; errors: ResponseError[] }>();

/** The simulator's webhook responses of the drafts ('allow' entries are left out: the default). */
export function toWebhookResponses(drafts: Record<string, WebhookResponseDraft>): { responses: Record<string, WebhookResponse>; errors: ResponseError[] } {
  const hit = cache.get(drafts);
  if (hit) return hit;
  const responses: Record<string, WebhookResponse> = {};
  const errors: ResponseError[] = [];
  for (const [webhook, d] of Object.entries(drafts)) {
    switch (d.response) {
      case 'allow':
        break;
      case 'deny':
      case 'unavailable':
        responses[webhook] = d.response;
        break;
      case 'patch': {
        const p = parsePatch(d.patch);
        if ('error' in p) errors.push({ webhook, message: p.error });
        else responses[webhook] = { patch: p.ops };
        break;
      }
      case 'warnings':
        responses[webhook] = {
          warnings: d.warnings
            .split('\n')
            .map((w) => w.trim())
            .filter(Boolean),
        };
        break;
    }
  }
  const r = { responses, errors };
  cache.set(drafts, r);
  return r;
}

/** The draft of an assumed response (the way back from `toWebhookResponses`). */
export function responseDraftOf(r: WebhookResponse): WebhookResponseDraft {
  if (typeof r === 'string') return { ...defaultResponse(), response: r };
  if ('patch' in r) return { ...defaultResponse(), response: 'patch', patch: JSON.stringify(r.patch) };
  return { ...defaultResponse(), response: 'warnings', warnings: r.warnings.join('\n') };
}

/** The drafts of assumed responses, by webhook name. */
export const responseDrafts = (answers: Record<string, WebhookResponse>): Record<string, WebhookResponseDraft> =>
  Object.fromEntries(Object.entries(answers).map(([name, r]) => [name, responseDraftOf(r)]));

/** An assumed response in a few words (`deny`, `a JSON Patch of 2 operations`, `warnings: "a", "b"`). */
export function describeWebhookResponse(r: WebhookResponse): string {
  if (typeof r === 'string') return r === 'unavailable' ? 'unavailable (down / timeout)' : r;
  if ('patch' in r) return `allow with a JSON Patch of ${r.patch.length} operation${r.patch.length === 1 ? '' : 's'}`;
  return `allow with warnings: ${r.warnings.map((w) => JSON.stringify(w)).join(', ')}`;
}

/** One answer of an answers file: a word, `{patch: [...]}` or `{warnings: [...]}`. */
function readAnswer(v: unknown): { answer: WebhookResponse } | { error: string } {
  if (v === 'allow' || v === 'deny' || v === 'unavailable') return { answer: v };
  if (isObject(v) && Object.keys(v).length === 1 && 'patch' in v) {
    const p = parsePatch(JSON.stringify(v.patch ?? null));
    return 'error' in p ? p : { answer: { patch: p.ops } };
  }
  if (isObject(v) && Object.keys(v).length === 1 && Array.isArray(v.warnings) && v.warnings.every((w) => typeof w === 'string'))
    return { answer: { warnings: v.warnings as string[] } };
  return { error: `${JSON.stringify(v)} is not an answer: allow, deny, unavailable, {patch: [JSON Patch operations]} or {warnings: [strings]}` };
}

/**
 * A file of assumed webhook answers (YAML or JSON), the Impact view's and the CLI's
 * (`--webhook-answers`): a mapping from webhook name (`webhooks[i].name`) to the Simulate view's
 * answers — `allow`, `deny`, `unavailable`, `{patch: [...]}`, `{warnings: [...]}` — at the top
 * level or under `webhooks` (a file that also holds other things). Every problem is said; the
 * answers read are kept.
 */
export function readWebhookAnswers(text: string): { answers: Record<string, WebhookResponse>; problems: string[] } {
  const parsed = parseDocuments(text, { unwrapLists: false, allowNonObjects: true });
  const error = parsed.errors[0];
  if (error) return { answers: {}, problems: [`line ${error.line}, column ${error.column}: ${error.message}`] };
  if (parsed.documents.length > 1) return { answers: {}, problems: [`${parsed.documents.length} documents: the answers are one mapping`] };
  const top = parsed.documents[0]?.object;
  const map = isObject(top) && isObject(top.webhooks) ? top.webhooks : top;
  if (!isObject(map))
    return { answers: {}, problems: ['expected a mapping from webhook name to answer (allow, deny, unavailable, {patch: […]}, {warnings: […]})'] };
  const answers: Record<string, WebhookResponse> = {};
  const problems: string[] = [];
  for (const [name, v] of Object.entries(map)) {
    const a = readAnswer(v);
    if ('error' in a) problems.push(`${name}: ${a.error}`);
    else answers[name] = a.answer;
  }
  return { answers, problems };
}

/** Whether a verdict meets a scenario's expectation, and why not. */
export function scenarioFailures(
  expect: ScenarioExpectation,
  verdict: { allowed: boolean; deniedBy?: { name: string; webhook?: string; binding?: string } },
): string[] {
  const out: string[] = [];
  if (expect.allowed !== verdict.allowed) out.push(`expected ${expect.allowed ? 'allowed' : 'denied'}, got ${verdict.allowed ? 'allowed' : 'denied'}`);
  else if (!expect.allowed && expect.deniedBy) {
    const d = verdict.deniedBy;
    const names = d ? [d.name, d.webhook, d.binding].filter(Boolean) : [];
    if (!names.includes(expect.deniedBy)) out.push(`expected denied by ${expect.deniedBy}, got denied by ${d ? (d.webhook ?? d.name) : 'nothing'}`);
  }
  return out;
}
