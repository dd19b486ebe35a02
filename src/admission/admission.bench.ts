/**
 * The admission simulator on a 50-webhook, 20-policy workspace (real CEL engine, Node):
 * one simulation of a Pod CREATE (target ≤ 50 ms after the engine is loaded) and the lockout
 * report of the same workspace (target ≤ 200 ms). `npx vitest bench src/admission`
 */
import { bench, describe } from 'vitest';
import { loadCel } from '../cel';
import { lockoutReport, prepareChain, simulate, simulatePrepared, type SimRequest } from './index';
import { NAMESPACE_NAME_LABEL } from '../k8s/resources';

await loadCel();

const rule = (resources: string[], groups = [''], operations = ['CREATE', 'UPDATE']) => ({ apiGroups: groups, apiVersions: ['v1'], operations, resources });
const RESOURCES = [['pods'], ['deployments'], ['configmaps'], ['services'], ['pods', 'pods/ephemeralcontainers']];
const GROUPS = [[''], ['apps'], [''], [''], ['']];

function webhookConfig(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration', c: number) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: `${kind === 'MutatingWebhookConfiguration' ? 'mutate' : 'validate'}-${c}` },
    webhooks: Array.from({ length: 5 }, (_, i) => ({
      name: `${kind === 'MutatingWebhookConfiguration' ? 'm' : 'v'}${c}-${i}.example.com`,
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: i % 2 ? 'Ignore' : 'Fail',
      timeoutSeconds: 5 + i,
      clientConfig: { service: { name: `svc-${c}`, namespace: `system-${c}`, path: `/hook-${i}` } },
      rules: [rule(RESOURCES[i]!, GROUPS[i]!)],
      namespaceSelector: i === 0 ? { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system'] }] } : {},
      objectSelector: i === 3 ? { matchLabels: { inject: 'true' } } : {},
      ...(i === 4
        ? {
            matchConditions: [
              { name: 'not-system', expression: `!request.userInfo.username.startsWith('system:') && request.userInfo.username != 'admin-${c}'` },
            ],
          }
        : {}),
      ...(kind === 'MutatingWebhookConfiguration' ? { reinvocationPolicy: i === 2 ? 'IfNeeded' : 'Never' } : {}),
    })),
  };
}

function policy(kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy', n: number) {
  const name = `${kind === 'ValidatingAdmissionPolicy' ? 'vap' : 'map'}-${n}`;
  const matchConstraints = { resourceRules: [rule(['pods', 'deployments'], ['', 'apps'])] };
  const spec =
    kind === 'ValidatingAdmissionPolicy'
      ? {
          failurePolicy: 'Fail',
          matchConstraints,
          // distinct expressions per policy: the simulator's memo of equal evaluations does not help here
          matchConditions: [
            { name: 'not-system', expression: `!request.userInfo.username.startsWith('system:') && request.userInfo.username != 'admin-${n}'` },
          ],
          validations: [
            { expression: `object.metadata.name.size() < ${40 + n}`, message: 'name too long' },
            {
              expression: `!has(object.spec.containers) || object.spec.containers.all(c, c.image.startsWith('registry.example.com/') || c.name == 'debug-${n}')`,
              message: 'images from registry.example.com only',
            },
          ],
        }
      : {
          failurePolicy: 'Fail',
          matchConstraints,
          reinvocationPolicy: 'IfNeeded',
          mutations: [
            {
              patchType: 'JSONPatch',
              jsonPatch: { expression: `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"policy-${n}": "seen"}}]` },
            },
          ],
        };
  return [
    { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, spec },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: `${kind}Binding`,
      metadata: { name: `${name}-binding` },
      spec: { policyName: name, ...(kind === 'ValidatingAdmissionPolicy' ? { validationActions: ['Deny'] } : {}) },
    },
  ];
}

const workspace: unknown[] = [
  ...Array.from({ length: 5 }, (_, c) => webhookConfig('MutatingWebhookConfiguration', c)),
  ...Array.from({ length: 5 }, (_, c) => webhookConfig('ValidatingWebhookConfiguration', c)),
  ...Array.from({ length: 16 }, (_, n) => policy('ValidatingAdmissionPolicy', n)).flat(),
  ...Array.from({ length: 4 }, (_, n) => policy('MutatingAdmissionPolicy', n)).flat(),
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { [NAMESPACE_NAME_LABEL]: 'team-a', team: 'a' } } },
];

const request: SimRequest = {
  operation: 'CREATE',
  resource: { group: '', version: 'v1', resource: 'pods' },
  kind: { group: '', version: 'v1', kind: 'Pod' },
  name: 'web-0',
  namespace: 'team-a',
  userInfo: { username: 'jane@example.com', groups: ['system:authenticated'] },
  object: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'team-a', labels: { app: 'web', inject: 'true' } },
    spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.0' }] },
  },
};

// Go-in-WASM needs V8 to tier up the hot code: warm up before measuring.
const benchOptions = { warmupTime: 1000, warmupIterations: 5, time: 3000 };
for (let i = 0; i < 5; i++) await simulate(workspace, request);

describe('admission simulator (50 webhooks, 20 policies)', () => {
  bench(
    'simulate: Pod CREATE through the whole chain',
    async () => {
      const r = await simulate(workspace, request);
      if (!r.allowed) throw new Error(r.deniedBy?.message);
    },
    benchOptions,
  );
  // the impact replay's case: the chain prepared once (workspace collected, discovery built), many requests
  const prepared = prepareChain(workspace);
  bench(
    'simulatePrepared: the same request on a chain prepared once',
    async () => {
      const r = await simulatePrepared(prepared, request);
      if (!r.allowed) throw new Error(r.deniedBy?.message);
    },
    benchOptions,
  );
  bench(
    'lockoutReport: every critical request with every webhook down',
    async () => {
      const r = await lockoutReport(workspace);
      if (r.findings.length === 0) throw new Error('expected findings');
    },
    benchOptions,
  );
});
