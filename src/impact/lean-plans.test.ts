/**
 * Lean plans are kept by what determines them (src/admission/lean.ts: the match key without the
 * namespace's name, the params each binding resolves to) and across deciders whose chains differ
 * only in params: one chainDecider, and then the next one, must decide every request as
 * fullDecider does, across namespaces alike in labels whose params differ, and after a param changes.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { useEngine } from '../cel/test-helpers';
import { binding, namespace, pod, podRequest, policy } from '../admission/test-helpers';
import type { AdmissionRequest } from '../request/model';
import { chainDecider, fullDecider, type ChainSpec } from './index';

useEngine();

const limits = (ns: string, max: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: ns }, data: { max } });
/** A policy with params found in the request's namespace (paramRef without a namespace), bound where `env: prod`. */
const capped = (notFound: 'Allow' | 'Deny') => [
  policy('ValidatingAdmissionPolicy', 'cap', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    validations: [
      { expression: 'size(object.metadata.name) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' in ' + request.namespace" },
    ],
  }),
  binding('ValidatingAdmissionPolicyBinding', 'cap', 'cap', {
    validationActions: ['Deny'],
    paramRef: { name: 'limits', parameterNotFoundAction: notFound },
    matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } },
  }),
];
/** Namespaces alike in labels (but their own name label), and one that is not bound. */
const namespaces = ['team-a', 'team-b', 'team-c'].map((n) => namespace(n, { env: 'prod' }));
const dev = namespace('team-dev', { env: 'dev' });
const request = (name: string, ns: string): AdmissionRequest =>
  podRequest({ name, namespace: ns, object: { ...pod({ app: 'web' }, ns), metadata: { name, namespace: ns, labels: { app: 'web' } } } }) as AdmissionRequest;

/** Every request through one chainDecider and one fullDecider of `spec`, in order. */
async function agree(spec: ChainSpec, requests: readonly [AdmissionRequest, unknown][]): Promise<number> {
  const quick = chainDecider(spec);
  const full = fullDecider(spec);
  let denied = 0;
  for (const [r, ns] of requests) {
    const [a, b] = await Promise.all([full(r, ns), quick(r, ns)]);
    expect(b, `${r.namespace}/${r.name}`).toEqual(a);
    denied += Number(!a.candidate.allowed);
  }
  return denied;
}

describe('lean plans kept by what determines them', () => {
  const requests: [AdmissionRequest, unknown][] = [...namespaces, dev].flatMap((ns) =>
    ['ab', 'abcd', 'abcdefgh'].map((n): [AdmissionRequest, unknown] => [request(n, String((ns.metadata as { name: string }).name)), ns]),
  );

  it('decide as the full simulation across namespaces whose params differ, and after a param changes', async () => {
    for (const notFound of ['Allow', 'Deny'] as const) {
      const admission = capped(notFound);
      const a1 = limits('team-a', '2');
      const b1 = limits('team-b', '4');
      const spec = (params: unknown[]): ChainSpec => ({ baseline: [], candidate: [...admission, ...params], kubernetesVersion: DEFAULT_KUBERNETES_VERSION });
      // team-c has no param: allowed under Allow, a configuration error under Deny
      const first = await agree(spec([a1, b1]), requests);
      expect(first).toBeGreaterThan(1);
      // the same admission objects, team-a's param raised and team-c's created: the next decider keeps the plans, not their params
      const second = await agree(spec([limits('team-a', '8'), b1, limits('team-c', '1')]), requests);
      expect(second).not.toBe(first);
      // a param removed again
      await agree(spec([b1]), requests);
    }
  }, 120_000);

  it('decide as the full simulation after a param that other namespaces read changes, and after a kind turns namespaced', async () => {
    // a binding whose paramRef names the param's namespace: a change there is every namespace's
    const shared = (max: string) => limits('shared', max);
    const named = [
      capped('Deny')[0]!,
      binding('ValidatingAdmissionPolicyBinding', 'cap', 'cap', {
        validationActions: ['Deny'],
        paramRef: { name: 'limits', namespace: 'shared', parameterNotFoundAction: 'Deny' },
        matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } },
      }),
    ];
    const spec = (admission: unknown[], params: unknown[]): ChainSpec => ({
      baseline: [],
      candidate: [...admission, ...params],
      kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
    });
    const a = limits('team-a', '1');
    expect(await agree(spec(named, [shared('2'), a]), requests)).toBeGreaterThan(0);
    expect(await agree(spec(named, [shared('8'), a]), requests)).toBe(0);
    // a kind whose params are cluster-scoped (looked up by name alone) until one in a namespace is created: then it is namespaced
    const kind = { apiVersion: 'example.com/v1', kind: 'Limit' };
    const limit = (max: string, ns?: string) => ({ ...kind, metadata: { name: 'limits', ...(ns ? { namespace: ns } : {}) }, data: { max } });
    const custom = capped('Deny').map((o) => {
      const x = structuredClone(o) as { kind: string; spec: Record<string, unknown> };
      if (x.kind === 'ValidatingAdmissionPolicy') x.spec.paramKind = kind;
      return x;
    });
    const cluster = limit('2');
    const first = await agree(spec(custom, [cluster]), requests);
    expect(first).toBeGreaterThan(0);
    // team-a's own: the kind is namespaced now, team-b and team-c find none (Deny)
    expect(await agree(spec(custom, [cluster, limit('1', 'team-a')]), requests)).toBe(first + 3);
  }, 120_000);
});
