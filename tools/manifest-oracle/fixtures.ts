/**
 * Static manifest sets for the oracle (oracle.test.ts): valid ones, and invalid ones with one
 * problem each (the loader stops at its first, so one problem per set makes "the same
 * problems" checkable) and a few with many (the loader's one must be among ours).
 */
const AR = 'admissionregistration.k8s.io/v1';
const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
const hook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  clientConfig: { url: `https://hooks.example.com/${name}` },
  rules: [rule],
  ...extra,
});
const vwc = (name: string, ...webhooks: unknown[]) => ({ apiVersion: AR, kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
const mwc = (name: string, ...webhooks: unknown[]) => ({ apiVersion: AR, kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks });
const vap = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: "object.metadata.name != 'forbidden'" }], ...spec },
});
const vapb = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, validationActions: ['Deny'], ...spec },
});
const map = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: {
    matchConstraints: { resourceRules: [rule] },
    reinvocationPolicy: 'Never',
    mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"static": "yes"}}}' } }],
    ...spec,
  },
});
const mapb = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, ...spec },
});

export interface ManifestFixture {
  name: string;
  objects: unknown[];
  /** More than one problem: the loader's first must be one of ours. */
  many?: boolean;
}

export const FIXTURES: ManifestFixture[] = [
  {
    name: 'valid: every kind',
    objects: [
      vwc('guard.static.k8s.io', hook('a.example.com')),
      mwc('label.static.k8s.io', hook('m.example.com', { reinvocationPolicy: 'Never' })),
      vap('p.static.k8s.io'),
      vapb('b.static.k8s.io', 'p.static.k8s.io'),
      map('mp.static.k8s.io'),
      mapb('mb.static.k8s.io', 'mp.static.k8s.io'),
    ],
  },
  { name: 'valid: a policy without a binding', objects: [vap('lonely.static.k8s.io')] },
  { name: 'name without the suffix (webhook)', objects: [vwc('guard', hook('a.example.com'))] },
  { name: 'name without the suffix (policy)', objects: [vap('p')] },
  { name: 'name without the suffix (binding)', objects: [vap('p.static.k8s.io'), vapb('b', 'p.static.k8s.io')] },
  // validation (metadata.name: Required value) comes first, the loader's own rule after it
  { name: 'no name', many: true, objects: [vwc('', hook('a.example.com'))] },
  {
    name: 'clientConfig.service',
    objects: [vwc('guard.static.k8s.io', hook('a.example.com', { clientConfig: { service: { name: 'svc', namespace: 'ns', path: '/v' } } }))],
  },
  {
    name: 'clientConfig.service in the second webhook (mutating)',
    objects: [
      mwc(
        'm.static.k8s.io',
        hook('a.example.com', { reinvocationPolicy: 'Never' }),
        hook('b.example.com', { reinvocationPolicy: 'Never', clientConfig: { service: { name: 'svc', namespace: 'ns' } } }),
      ),
    ],
  },
  { name: 'paramKind (validating)', objects: [vap('p.static.k8s.io', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } })] },
  { name: 'paramKind (mutating)', objects: [map('p.static.k8s.io', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } })] },
  {
    name: 'paramRef',
    objects: [vap('p.static.k8s.io'), vapb('b.static.k8s.io', 'p.static.k8s.io', { paramRef: { name: 'cm', parameterNotFoundAction: 'Deny' } })],
  },
  {
    name: 'paramRef (mutating)',
    objects: [map('p.static.k8s.io'), mapb('b.static.k8s.io', 'p.static.k8s.io', { paramRef: { name: 'cm', parameterNotFoundAction: 'Allow' } })],
  },
  { name: 'binding to an API policy', objects: [vapb('b.static.k8s.io', 'api-policy')] },
  { name: 'binding to a policy not in the set', objects: [vap('p.static.k8s.io'), vapb('b.static.k8s.io', 'other.static.k8s.io')] },
  { name: "binding of the other kind's policy", objects: [map('p.static.k8s.io'), vapb('b.static.k8s.io', 'p.static.k8s.io')] },
  { name: 'duplicate names', objects: [vap('p.static.k8s.io'), vap('p.static.k8s.io', { validations: [{ expression: 'true' }] })] },
  { name: 'a policy and a binding may share a name', objects: [vap('x.static.k8s.io'), vapb('x.static.k8s.io', 'x.static.k8s.io')] },
  { name: 'unknown field', objects: [{ ...vap('p.static.k8s.io'), spec: { ...vap('p').spec, validationz: [] } }] },
  { name: 'unknown fields in a webhook', objects: [vwc('guard.static.k8s.io', hook('a.example.com', { timeout: 5 }))] },
  { name: 'v1beta1', objects: [{ ...vap('p.static.k8s.io'), apiVersion: 'admissionregistration.k8s.io/v1beta1' }] },
  {
    name: 'v1beta1 webhook configuration',
    objects: [{ ...vwc('guard.static.k8s.io', hook('a.example.com')), apiVersion: 'admissionregistration.k8s.io/v1beta1' }],
  },
  { name: 'validation: bad webhook name', objects: [vwc('guard.static.k8s.io', hook('a'))] },
  { name: 'validation: two errors', objects: [vwc('guard.static.k8s.io', hook('a', { timeoutSeconds: 45 }))] },
  { name: 'validation: CEL compile error', objects: [vap('p.static.k8s.io', { validations: [{ expression: 'object.metadata.name ==' }] })] },
  {
    name: 'many problems at once',
    many: true,
    objects: [
      vwc('guard', hook('a.example.com', { clientConfig: { service: { name: 's', namespace: 'ns' } } })),
      vap('p.static.k8s.io', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }),
      vapb('b.static.k8s.io', 'q.static.k8s.io', { paramRef: { name: 'cm', parameterNotFoundAction: 'Deny' } }),
    ],
  },
];

/**
 * Static and API mutating webhook configurations together, for the order the
 * MutatingAdmissionWebhook plugin calls them in (its `staticOrder`): names chosen so that ByName
 * interleaves them, including the two the type's comment warns about ("b-x" and "b.bar.io" sort
 * after "b" but before "b.static.k8s.io").
 */
export interface OrderFixture {
  name: string;
  static: unknown[];
  api: unknown[];
}

const mhook = (name: string) => hook(name, { reinvocationPolicy: 'Never' });
export const ORDER_FIXTURES: OrderFixture[] = [
  {
    name: 'interleaved names',
    static: [mwc('b.static.k8s.io', mhook('s1.example.com'), mhook('s2.example.com')), mwc('z.static.k8s.io', mhook('s3.example.com'))],
    api: [
      mwc('a', mhook('a1.example.com')),
      mwc('b', mhook('b1.example.com')),
      mwc('b-x', mhook('bx.example.com')),
      mwc('b.bar.io', mhook('bb.example.com')),
      mwc('c', mhook('c1.example.com'), mhook('c2.example.com')),
    ],
  },
  { name: 'one of each', static: [mwc('m.static.k8s.io', mhook('s.example.com'))], api: [mwc('n', mhook('n.example.com'))] },
];
