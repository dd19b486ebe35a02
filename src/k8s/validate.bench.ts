/**
 * Full validation of a 1,000-webhook workspace (20 configurations × 50 webhooks,
 * validating and mutating, each with rules, selectors, a service or URL, a
 * ~1 KB caBundle and match conditions). Target: ≤ 5 ms per run. Two cases: objects never
 * seen (full validation), and one webhook edited (what a keystroke costs: results for the
 * unchanged webhooks are reused). The code measured is validate.ts bundled as the app and
 * the CLI ship it (scripts/bench-bundle.mjs says why: vitest's module runner alone made
 * these rows ~1.5× slower).
 */
import { bench, describe } from 'vitest';
import { NAMESPACE_NAME_LABEL } from './resources';
import { bundled } from '../../scripts/bench-bundle.mjs';

const { validateRules } = await bundled<typeof import('./validate')>(new URL('./validate.ts', import.meta.url));

/** A realistic CA bundle: one PEM certificate, base64-encoded (about 1.1 KB), wrapped as kubectl shows it. */
const caBundle = btoa(
  `-----BEGIN CERTIFICATE-----\n${'MIIC/zCCAeegAwIBAgIRAOhlmNB1bLpjmrE+WbNl4bswDQYJKoZIhvcNAQELBQAw\n'.repeat(12)}-----END CERTIFICATE-----\n`,
);

function webhook(i: number, mutating: boolean): Record<string, unknown> {
  return {
    name: `hook-${i}.policy.example.com`,
    admissionReviewVersions: ['v1', 'v1beta1'],
    sideEffects: i % 2 ? 'None' : 'NoneOnDryRun',
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    clientConfig:
      i % 10 === 0
        ? { url: `https://webhook-${i}.example.com:8443/validate`, caBundle: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==' }
        : { service: { name: 'webhook', namespace: 'system', path: `/validate-v1-pod-${i}` }, caBundle },
    rules: [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods', 'pods/status'], scope: 'Namespaced' },
      { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['*', 'deployments/scale'] },
    ],
    namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system', 'kube-public'] }] },
    objectSelector: { matchLabels: { 'app.kubernetes.io/managed-by': 'example' } },
    matchConditions: [{ name: 'exclude-leases', expression: "request.resource.resource != 'leases'" }],
    ...(mutating ? { reinvocationPolicy: 'IfNeeded' } : {}),
  };
}

const workspace = Array.from({ length: 20 }, (_, c) => {
  const mutating = c % 2 === 1;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name: `config-${c}`, labels: { app: 'bench' } },
    webhooks: Array.from({ length: 50 }, (_, i) => webhook(c * 50 + i, mutating)),
  };
});

/**
 * Validation reuses what it found for an unchanged webhook object (defaulting returns the
 * same object for it), so a fair "full validation" needs objects it has never seen: every
 * iteration validates a fresh deep copy (the copy is made outside the timed part).
 */
const COPIES = 60;
const copies: (typeof workspace | undefined)[] = Array.from({ length: COPIES }, () => structuredClone(workspace));
let next = 0;
/** The editor's case: one webhook of one configuration edited, the other 999 unchanged. */
let edits = 0;
const editOne = () => {
  const c = workspace[0]!;
  const hooks = c.webhooks.slice();
  hooks[7] = { ...hooks[7], timeoutSeconds: 1 + (edits++ % 30) };
  workspace[0] = { ...c, webhooks: hooks };
};

describe('validate', () => {
  bench(
    '1,000-webhook workspace, never seen before (full validation)',
    () => {
      const fresh = copies[next];
      if (!fresh) throw new Error(`only ${COPIES} never-seen copies: the bench ran more iterations than that`);
      copies[next++] = undefined; // never validated twice
      let n = 0;
      for (const obj of fresh) n += validateRules(obj).length;
      if (n !== 0) throw new Error(`expected a valid workspace, got ${n} errors`);
    },
    // One never-seen copy per call (warm-up included; tinybench adds one call to each phase).
    // 15 warm-up runs: in a new process V8 is still optimising this code through the first
    // ~10 (27, 18, 7.7, 5.8, 4.3 ms… in one standalone trace).
    { iterations: 25, warmupIterations: 15, time: 0, warmupTime: 0 },
  );
  bench('1,000-webhook workspace after editing one webhook (the keystroke case)', () => {
    editOne();
    let n = 0;
    for (const obj of workspace) n += validateRules(obj).length;
    if (n !== 0) throw new Error(`expected a valid workspace, got ${n} errors`);
  });
  // Calibration for noisy machines: the same workspace through JSON.stringify,
  // a fixed amount of work to compare validateRules() against.
  bench('baseline: JSON.stringify of the same workspace', () => {
    if (JSON.stringify(workspace).length === 0) throw new Error('unreachable');
  });
});
