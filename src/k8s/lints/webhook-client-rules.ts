/**
 * Webhook lint rules about how the apiserver calls a webhook: its URL and caBundle, timeout,
 * sideEffects, AdmissionReview versions and reinvocation. The rest: ./webhook-rules.ts.
 */
import { setField } from '../fixes/edits';
import { urlHost } from '../in-cluster-url';
import { isObj, one, str, strs, WEBHOOK_KINDS } from './helpers';
import type { WebhookLintRule } from './rule-types';

/** admissionregistration/v1's timeoutSeconds default. */
const DEFAULT_TIMEOUT_SECONDS = 10;

export const WEBHOOK_CLIENT_RULES: readonly WebhookLintRule[] = [
  {
    id: 'W10',
    name: 'timeout-long',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      // Above the default only: 10 s is what every webhook gets unless it says otherwise, and Lockout
      // reports it where it hurts (critical requests held by a fail-open webhook).
      one(typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > DEFAULT_TIMEOUT_SECONDS, () => ({
        field: String(p.child('timeoutSeconds')),
        message: `the apiserver waits up to ${String(w.timeoutSeconds)}s for this webhook on every matching request`,
        hint: 'Webhooks should answer in milliseconds; a short timeout (2–5 s) bounds the damage when one hangs. Mutating webhooks run in series, so their timeouts add up.',
        fixes: [setField('Set timeoutSeconds: 5', String(p.child('timeoutSeconds')), 5)],
      })),
  },
  {
    id: 'W11',
    name: 'side-effects-dryrun',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(str(w.sideEffects) === 'NoneOnDryRun', () => ({
        field: String(p.child('sideEffects')),
        message: 'NoneOnDryRun: the webhook promises to skip its side effects when request.dryRun is true',
        hint: 'Check that the server reads request.dryRun; otherwise kubectl diff and --dry-run=server trigger the side effects.',
      })),
  },
  {
    id: 'W17',
    name: 'reinvocation-idempotency',
    severity: 'info',
    kinds: ['MutatingWebhookConfiguration'],
    webhook: (w, p) =>
      one(str(w.reinvocationPolicy) === 'IfNeeded', () => ({
        field: String(p.child('reinvocationPolicy')),
        message: 'the webhook may be called again after later mutations',
        hint: 'Its changes must be idempotent (check before adding a container or a label), or it duplicates what it adds. Do not rely on the order of mutating webhooks.',
      })),
  },
  {
    id: 'W18',
    name: 'url-in-cluster',
    severity: 'warning',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) => {
      const url = isObj(w.clientConfig) ? str(w.clientConfig.url) : '';
      const host = urlHost(url);
      if (host === 'localhost' || host.startsWith('127.') || host === '[::1]')
        return [
          {
            field: String(p.child('clientConfig', 'url')),
            message: "the URL points at the apiserver's own host",
            hint: 'localhost webhooks are non-portable and fail when the apiserver moves; prefer service.',
          },
        ];
      if (host.endsWith('.svc') || host.endsWith('.cluster.local'))
        return [
          {
            field: String(p.child('clientConfig', 'url')),
            message: 'the URL uses in-cluster DNS, which the apiserver usually cannot resolve',
            hint: 'Use clientConfig.service for in-cluster webhooks.',
          },
        ];
      return [];
    },
  },
  {
    id: 'W19',
    name: 'cabundle-missing',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p, ctx) =>
      one(!ctx.caInjected && isObj(w.clientConfig) && isObj(w.clientConfig.service) && !str(w.clientConfig.caBundle), () => ({
        field: String(p.child('clientConfig', 'caBundle')),
        message: "no caBundle: the apiserver verifies the service's certificate against its system roots",
        hint: 'In-cluster webhook certificates are rarely signed by public roots. Set caBundle, or let cert-manager inject it (cert-manager.io/inject-ca-from annotation).',
      })),
  },
  {
    id: 'W24',
    name: 'admissionreview-v1beta1-only',
    severity: 'info',
    kinds: WEBHOOK_KINDS,
    webhook: (w, p) =>
      one(strs(w.admissionReviewVersions).length > 0 && !strs(w.admissionReviewVersions).includes('v1'), () => ({
        field: String(p.child('admissionReviewVersions')),
        message: 'the webhook does not accept AdmissionReview v1',
        hint: 'v1 is the current version; list it first.',
        fixes: [
          setField(
            'Accept AdmissionReview v1 first',
            String(p.child('admissionReviewVersions')),
            ['v1', ...strs(w.admissionReviewVersions)],
            'The server must understand v1 requests.',
          ),
        ],
      })),
  },
];
