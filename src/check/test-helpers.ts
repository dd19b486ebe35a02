/**
 * Fixtures for the check pipeline's tests (and the store's): admission objects that take part
 * in cross-document rules, a random one of them, and findings as comparable data.
 */
export const rules = (resources: string[]) => [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources }];
export const vap = (name: string, resources = ['pods'], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules(resources) }, validations: [{ expression: 'true' }], ...extra },
});
export const map = (name: string, resources = ['pods']) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: {
    matchConstraints: { resourceRules: rules(resources) },
    reinvocationPolicy: 'Never',
    mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
  },
});
export const binding = (kind: string, name: string, policyName: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind,
  metadata: { name },
  spec: { policyName, ...(kind === 'ValidatingAdmissionPolicyBinding' ? { validationActions: ['Deny'] } : {}), ...extra },
});
export const mwc = (name: string, resources = ['pods']) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name },
  webhooks: [
    {
      name: `${name}.example.com`,
      clientConfig: { url: 'https://h.example.com/' },
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      rules: rules(resources),
    },
  ],
});

/** Findings as data: fixes by title and by what applying them gives (their functions differ per run). */
export const checkedData = (
  o: unknown,
  docs: readonly unknown[],
  c: { fields: unknown; lints: readonly { fixes?: readonly { title: string; apply(o: unknown, i?: unknown): unknown }[] }[] },
) =>
  JSON.parse(
    JSON.stringify({ fields: c.fields, lints: c.lints.map((l) => ({ ...l, fixes: l.fixes?.map((f) => [f.title, f.apply(o, { workspace: docs })]) })) }),
  ) as unknown;

const NAMES = ['a', 'b', 'c'];
const RESOURCES = [['pods'], ['configmaps'], ['*'], ['secrets', 'pods']];
const KUBE_SYSTEM_OUT = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] };

/** One random document of a kind that takes part in cross-document rules. */
export function randomDoc(r: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const name = pick(NAMES);
  switch (pick(['vap', 'map', 'vapb', 'mapb', 'mwc'])) {
    case 'vap': {
      const v = vap(name, pick(RESOURCES), r() < 0.5 ? { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } : {});
      if (r() < 0.3) (v.spec.matchConstraints as Record<string, unknown>).namespaceSelector = KUBE_SYSTEM_OUT;
      return v;
    }
    case 'map':
      return map(name, pick(RESOURCES));
    case 'vapb':
      return binding(
        'ValidatingAdmissionPolicyBinding',
        `${name}-b`,
        pick(NAMES),
        r() < 0.5 ? { paramRef: { name: 'p', parameterNotFoundAction: 'Deny' } } : {},
      );
    case 'mapb':
      return binding('MutatingAdmissionPolicyBinding', `${name}-b`, pick(NAMES), r() < 0.3 ? { matchResources: { namespaceSelector: KUBE_SYSTEM_OUT } } : {});
    default:
      return mwc(name, pick(RESOURCES));
  }
}
