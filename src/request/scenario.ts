/**
 * Simulator scenarios: a test input, the response assumed for each webhook, and the verdict
 * expected. Drafts keep what the user typed (a JSON Patch as text, warnings one a line).
 */
import type { JsonPatchOp } from '../base/jsonpatch';
import { isObject } from '../base/json';
import type { TestInputDraft } from './model';

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

export interface Scenario {
  id: string;
  name: string;
  input: TestInputDraft;
  webhooks: Record<string, WebhookResponseDraft>;
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
