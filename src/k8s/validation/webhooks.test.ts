import { describe, expect, it } from 'vitest';
import { withDefaults } from '../defaults';
import { validateRules } from '../validate';
import { pairsOf, patch, render, scriptedCompiler, type Pair } from './testing';

const vwc = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'pod-policy.example.com' },
  webhooks: [
    {
      name: 'pods.policy.example.com',
      clientConfig: { service: { name: 'webhook', namespace: 'default', path: '/validate' }, caBundle: 'Cg==' },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    },
  ],
};
const mwc = { ...vwc, kind: 'MutatingWebhookConfiguration' };

const W = 'webhooks[0]';
const R = `${W}.rules[0]`;
const CC = `${W}.clientConfig`;
const S = `${CC}.service`;

/** [title, changes to the valid object, the exact (field, type) pairs expected]. */
type Case = [string, Record<string, unknown>, Pair[]];

const webhookCases: Case[] = [
  // valid objects, every optional field
  ['the base object is valid', {}, []],
  [
    'every optional field set',
    {
      [`${W}.failurePolicy`]: 'Ignore',
      [`${W}.matchPolicy`]: 'Exact',
      [`${W}.timeoutSeconds`]: 30,
      [`${W}.namespaceSelector`]: {
        matchLabels: { 'kubernetes.io/metadata.name': 'prod' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['a', 'b'] },
          { key: 'skip', operator: 'DoesNotExist' },
        ],
      },
      [`${W}.objectSelector`]: {
        matchExpressions: [
          { key: 'example.com/tier', operator: 'NotIn', values: ['x'] },
          { key: 'y', operator: 'Exists', values: [] },
        ],
      },
      [`${W}.matchConditions`]: [
        { name: 'exclude-leases', expression: "request.resource.resource != 'leases'" },
        { name: 'example.com/check', expression: 'true' },
      ],
      [`${W}.sideEffects`]: 'NoneOnDryRun',
      [`${W}.admissionReviewVersions`]: ['v1', 'v1beta1', 'v2'],
      [`${S}.port`]: 8443,
      'metadata.labels': { app: 'x', 'example.com/part-of': '' },
      'metadata.annotations': { 'Example.com/Key': 'v' },
    },
    [],
  ],
  ['webhooks missing', { webhooks: undefined }, []],
  ['webhooks empty', { webhooks: [] }, []],
  ['webhook without rules', { [`${W}.rules`]: undefined }, []],
  ['rules: []', { [`${W}.rules`]: [] }, []],
  ['timeoutSeconds 1', { [`${W}.timeoutSeconds`]: 1 }, []],
  ['Helm-left nulls', { [`${W}.namespaceSelector`]: null, [`${W}.objectSelector`]: null, 'metadata.annotations': null, [`${W}.failurePolicy`]: null }, []],
  ['caBundle ""', { [`${CC}.caBundle`]: '' }, []],
  ['multi-line caBundle', { [`${CC}.caBundle`]: 'LS0tLS1CRUdJTiBDRVJU\nSUZJQ0FURS0tLS0tCg==\n' }, []],
  ['namespace on a cluster-scoped object', { 'metadata.namespace': 'kube-system' }, []],
  ['generateName instead of name', { 'metadata.name': undefined, 'metadata.generateName': 'webhook-' }, []],
  [
    'same matchCondition name in two webhooks',
    {
      webhooks: [
        { ...vwc.webhooks[0], matchConditions: [{ name: 'c', expression: 'true' }] },
        { ...vwc.webhooks[0], name: 'second.example.com', matchConditions: [{ name: 'c', expression: 'true' }] },
      ],
    },
    [],
  ],

  // name
  ['name missing', { [`${W}.name`]: undefined }, [[`${W}.name`, 'Required']]],
  ['name not a subdomain', { [`${W}.name`]: 'Pods.Example.com' }, [[`${W}.name`, 'Invalid']]],
  ['name with two segments', { [`${W}.name`]: 'example.com' }, [[`${W}.name`, 'Invalid']]],
  ['name with a trailing dot', { [`${W}.name`]: 'a.b.c.' }, [[`${W}.name`, 'Invalid']]],
  ['name a.b.c', { [`${W}.name`]: 'a.b.c' }, []],
  ['duplicate names', { webhooks: [vwc.webhooks[0], vwc.webhooks[0]] }, [['webhooks[1].name', 'Duplicate']]],
  [
    'duplicate empty names are not reported twice',
    {
      webhooks: [
        { ...vwc.webhooks[0], name: '' },
        { ...vwc.webhooks[0], name: '' },
      ],
    },
    [
      ['webhooks[0].name', 'Required'],
      ['webhooks[1].name', 'Required'],
    ],
  ],

  // rules
  ['operations missing', { [`${R}.operations`]: undefined }, [[`${R}.operations`, 'Required']]],
  ['operations empty', { [`${R}.operations`]: [] }, [[`${R}.operations`, 'Required']]],
  ["operations '*' with others", { [`${R}.operations`]: ['*', 'CREATE'] }, [[`${R}.operations`, 'Invalid']]],
  ['operation PATCH', { [`${R}.operations`]: ['CREATE', 'PATCH'] }, [[`${R}.operations[1]`, 'NotSupported']]],
  ['operation lower case', { [`${R}.operations`]: ['create'] }, [[`${R}.operations[0]`, 'NotSupported']]],
  ['operation ""', { [`${R}.operations`]: [''] }, [[`${R}.operations[0]`, 'NotSupported']]],
  ['all operations', { [`${R}.operations`]: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] }, []],
  ["operations ['*']", { [`${R}.operations`]: ['*'] }, []],
  ['apiGroups missing', { [`${R}.apiGroups`]: undefined }, [[`${R}.apiGroups`, 'Required']]],
  ["apiGroups '*' with others", { [`${R}.apiGroups`]: ['*', 'apps'] }, [[`${R}.apiGroups`, 'Invalid']]],
  ['apiGroups core and apps', { [`${R}.apiGroups`]: ['', 'apps'] }, []],
  ['apiVersions missing', { [`${R}.apiVersions`]: [] }, [[`${R}.apiVersions`, 'Required']]],
  ["apiVersions '*' with others", { [`${R}.apiVersions`]: ['v1', '*'] }, [[`${R}.apiVersions`, 'Invalid']]],
  ['apiVersions entry ""', { [`${R}.apiVersions`]: ['v1', ''] }, [[`${R}.apiVersions[1]`, 'Required']]],
  ['resources missing', { [`${R}.resources`]: undefined }, [[`${R}.resources`, 'Required']]],
  ['resources entry ""', { [`${R}.resources`]: ['pods', ''] }, [[`${R}.resources[1]`, 'Required']]],
  ["resources ['*'] with subresources", { [`${R}.resources`]: ['*', 'pods/status', 'deployments/*', '*/scale'] }, []],
  ["resources ['pods/*', 'pods']", { [`${R}.resources`]: ['pods/*', 'pods'] }, []],
  ["resources ['pods', '*'] (order quirk)", { [`${R}.resources`]: ['pods', '*'] }, []],
  ["resources ['pods/log', 'pods/*'] (order quirk)", { [`${R}.resources`]: ['pods/log', 'pods/*'] }, []],
  ["resources ['*', 'pods']", { [`${R}.resources`]: ['*', 'pods'] }, [[`${R}.resources`, 'Invalid']]],
  ["resources ['pods/*', 'pods/log']", { [`${R}.resources`]: ['pods/*', 'pods/log'] }, [[`${R}.resources[1]`, 'Invalid']]],
  ["resources ['*/status', 'pods/status']", { [`${R}.resources`]: ['*/status', 'pods/status'] }, [[`${R}.resources[1]`, 'Invalid']]],
  ["resources ['*/*', 'pods']", { [`${R}.resources`]: ['*/*', 'pods'] }, [[`${R}.resources`, 'Invalid']]],
  ["resources ['*/*']", { [`${R}.resources`]: ['*/*'] }, []],
  [
    "resources ['*/*', '*/*/x']",
    { [`${R}.resources`]: ['*/*', '*/*/x'] },
    [
      [`${R}.resources[1]`, 'Invalid'],
      [`${R}.resources`, 'Invalid'],
    ],
  ],
  [
    "resources ['pods/*', '*/x', 'pods/x'] (both wildcard sets)",
    { [`${R}.resources`]: ['pods/*', '*/x', 'pods/x'] },
    [
      [`${R}.resources[2]`, 'Invalid'],
      [`${R}.resources[2]`, 'Invalid'],
    ],
  ],
  [
    "resources ['*', 'pods', '*/*']",
    { [`${R}.resources`]: ['*', 'pods', '*/*'] },
    [
      [`${R}.resources`, 'Invalid'],
      [`${R}.resources`, 'Invalid'],
    ],
  ],
  ['pods/eviction with operations *', { [`${R}.resources`]: ['pods/eviction', 'pods/ephemeralcontainers'], [`${R}.operations`]: ['*'] }, []],
  ['scope Cluster', { [`${R}.scope`]: 'Cluster' }, []],
  ["scope '*'", { [`${R}.scope`]: '*' }, []],
  ['scope absent (defaulted)', { [`${R}.scope`]: undefined }, []],
  ['scope lower case', { [`${R}.scope`]: 'namespaced' }, [[`${R}.scope`, 'NotSupported']]],
  ['scope ""', { [`${R}.scope`]: '' }, [[`${R}.scope`, 'NotSupported']]],
  [
    'everything wrong in one rule',
    { [R]: { operations: ['*', 'X'], resources: ['*', 'a'], scope: 'x' } },
    [
      [`${R}.operations`, 'Invalid'],
      [`${R}.operations[1]`, 'NotSupported'],
      [`${R}.apiGroups`, 'Required'],
      [`${R}.apiVersions`, 'Required'],
      [`${R}.resources`, 'Invalid'],
      [`${R}.scope`, 'NotSupported'],
    ],
  ],

  // enums
  ['failurePolicy ""', { [`${W}.failurePolicy`]: '' }, [[`${W}.failurePolicy`, 'NotSupported']]],
  ['failurePolicy fail', { [`${W}.failurePolicy`]: 'fail' }, [[`${W}.failurePolicy`, 'NotSupported']]],
  ['matchPolicy Equal', { [`${W}.matchPolicy`]: 'Equal' }, [[`${W}.matchPolicy`, 'NotSupported']]],
  ['sideEffects missing', { [`${W}.sideEffects`]: undefined }, [[`${W}.sideEffects`, 'Required']]],
  ['sideEffects Unknown', { [`${W}.sideEffects`]: 'Unknown' }, [[`${W}.sideEffects`, 'NotSupported']]],
  ['sideEffects Some', { [`${W}.sideEffects`]: 'Some' }, [[`${W}.sideEffects`, 'NotSupported']]],
  ['sideEffects ""', { [`${W}.sideEffects`]: '' }, [[`${W}.sideEffects`, 'NotSupported']]],
  ['timeoutSeconds 0', { [`${W}.timeoutSeconds`]: 0 }, [[`${W}.timeoutSeconds`, 'Invalid']]],
  ['timeoutSeconds 31', { [`${W}.timeoutSeconds`]: 31 }, [[`${W}.timeoutSeconds`, 'Invalid']]],
  ['timeoutSeconds -1', { [`${W}.timeoutSeconds`]: -1 }, [[`${W}.timeoutSeconds`, 'Invalid']]],

  // selectors
  [
    'selector In without values',
    { [`${W}.namespaceSelector.matchExpressions`]: [{ key: 'a', operator: 'In' }] },
    [[`${W}.namespaceSelector.matchExpressions[0].values`, 'Required']],
  ],
  [
    'selector NotIn with []',
    { [`${W}.objectSelector.matchExpressions`]: [{ key: 'a', operator: 'NotIn', values: [] }] },
    [[`${W}.objectSelector.matchExpressions[0].values`, 'Required']],
  ],
  [
    'selector Exists with values',
    { [`${W}.objectSelector.matchExpressions`]: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
    [[`${W}.objectSelector.matchExpressions[0].values`, 'Forbidden']],
  ],
  [
    'selector operator in',
    { [`${W}.objectSelector.matchExpressions`]: [{ key: 'a', operator: 'in', values: ['x'] }] },
    [[`${W}.objectSelector.matchExpressions[0].operator`, 'Invalid']],
  ],
  [
    'selector operator missing',
    { [`${W}.objectSelector.matchExpressions`]: [{ key: 'a' }] },
    [[`${W}.objectSelector.matchExpressions[0].operator`, 'Invalid']],
  ],
  [
    'selector key ""',
    { [`${W}.objectSelector.matchExpressions`]: [{ key: '', operator: 'Exists' }] },
    [
      [`${W}.objectSelector.matchExpressions[0].key`, 'Invalid'],
      [`${W}.objectSelector.matchExpressions[0].key`, 'Invalid'],
    ],
  ],
  [
    'selector value invalid even with a bad operator',
    { [`${W}.objectSelector.matchExpressions`]: [{ key: 'a', operator: 'Equals', values: ['-bad-'] }] },
    [
      [`${W}.objectSelector.matchExpressions[0].operator`, 'Invalid'],
      [`${W}.objectSelector.matchExpressions[0].values[0]`, 'Invalid'],
    ],
  ],
  [
    'matchLabels bad key and value',
    { [`${W}.namespaceSelector.matchLabels`]: { 'a/b/c': 'ok', good: 'bad value' } },
    [
      [`${W}.namespaceSelector.matchLabels`, 'Invalid'],
      [`${W}.namespaceSelector.matchLabels`, 'Invalid'],
    ],
  ],

  // clientConfig
  ['url and service', { [`${CC}.url`]: 'https://x.example.com' }, [[CC, 'Required']]],
  ['neither url nor service', { [`${CC}.service`]: undefined }, [[CC, 'Required']]],
  ['clientConfig missing', { [CC]: undefined }, [[CC, 'Required']]],
  [
    'url ""',
    { [`${CC}.service`]: undefined, [`${CC}.url`]: '' },
    [
      [`${CC}.url`, 'Invalid'],
      [`${CC}.url`, 'Invalid'],
    ],
  ],
  ['url valid', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://webhook.example.com:8443/validate' }, []],
  ['url HTTPS upper case, IP, odd port', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'HTTPS://10.1.2.3:99999/x' }, []],
  ['url bracketed IPv6', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://[::1]/x' }, []],
  ['url trailing ? and #', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://h.example.com/x?#' }, []],
  ['url http', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'http://webhook.example.com' }, [[`${CC}.url`, 'Invalid']]],
  [
    'url without scheme',
    { [`${CC}.service`]: undefined, [`${CC}.url`]: 'webhook.example.com/x' },
    [
      [`${CC}.url`, 'Invalid'],
      [`${CC}.url`, 'Invalid'],
    ],
  ],
  ['url with user info', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://u:p@h.example.com/' }, [[`${CC}.url`, 'Invalid']]],
  ['url with query', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://h.example.com/?a=1' }, [[`${CC}.url`, 'Invalid']]],
  ['url with fragment', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://h.example.com/#x' }, [[`${CC}.url`, 'Invalid']]],
  [
    'url backwards',
    { [`${CC}.service`]: undefined, [`${CC}.url`]: 'arg#backwards=thisis?html.index/port:host//:https' },
    [
      [`${CC}.url`, 'Invalid'],
      [`${CC}.url`, 'Invalid'],
      [`${CC}.url`, 'Invalid'],
    ],
  ],
  ['url space in host', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://a b.example.com/' }, [[`${CC}.url`, 'Required']]],
  ['url non-numeric port', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://h.example.com:abc/' }, [[`${CC}.url`, 'Required']]],
  // SOURCE ≠ CHECKLIST: ValidateWebhookService receives (name, namespace) swapped, so the paths are swapped too.
  ['service name missing (reported at namespace)', { [`${S}.name`]: undefined }, [[`${S}.namespace`, 'Required']]],
  ['service namespace missing (reported at name)', { [`${S}.namespace`]: '' }, [[`${S}.name`, 'Required']]],
  ['service name and namespace not DNS names', { [`${S}.name`]: 'Not_A_DNS', [`${S}.namespace`]: 'NS' }, []],
  ['service port 0', { [`${S}.port`]: 0 }, [[`${S}.port`, 'Invalid']]],
  ['service port 65536', { [`${S}.port`]: 65536 }, [[`${S}.port`, 'Invalid']]],
  ['service port 65535', { [`${S}.port`]: 65535 }, []],
  ['service path absent', { [`${S}.path`]: undefined }, []],
  ['service path /', { [`${S}.path`]: '/' }, []],
  ['service path ""', { [`${S}.path`]: '' }, []],
  ['service path /v1.2/validate', { [`${S}.path`]: '/v1.2/validate' }, []],
  ['service path /validate/', { [`${S}.path`]: '/validate/' }, []],
  ['service path //', { [`${S}.path`]: '//' }, [[`${S}.path`, 'Invalid']]],
  ['service path without leading /', { [`${S}.path`]: 'validate' }, [[`${S}.path`, 'Invalid']]],
  ['service path /validate_pods', { [`${S}.path`]: '/validate_pods' }, [[`${S}.path`, 'Invalid']]],
  ['service path /Mutate', { [`${S}.path`]: '/Mutate' }, [[`${S}.path`, 'Invalid']]],
  ['service path /a//b', { [`${S}.path`]: '/a//b' }, [[`${S}.path`, 'Invalid']]],
  [
    'service path without / and bad segment',
    { [`${S}.path`]: 'a_b' },
    [
      [`${S}.path`, 'Invalid'],
      [`${S}.path`, 'Invalid'],
    ],
  ],
  // from upstream validation_test.go
  ['service path /foo//bar/', { [`${S}.path`]: '/foo//bar/' }, [[`${S}.path`, 'Invalid']]],
  ['service path /foo/bar//', { [`${S}.path`]: '/foo/bar//' }, [[`${S}.path`, 'Invalid']]],
  ['service path /apis/foo.bar/v1alpha1/--bad', { [`${S}.path`]: '/apis/foo.bar/v1alpha1/--bad' }, [[`${S}.path`, 'Invalid']]],
  [
    'service path https://apis/foo.bar',
    { [`${S}.path`]: 'https://apis/foo.bar' },
    [
      [`${S}.path`, 'Invalid'],
      [`${S}.path`, 'Invalid'],
      [`${S}.path`, 'Invalid'],
    ],
  ],
  ['url https:///fancy/webhook', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https:///fancy/webhook' }, [[`${CC}.url`, 'Invalid']]],
  ['url https://example.com?arg=value', { [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://example.com?arg=value' }, [[`${CC}.url`, 'Invalid']]],
  ['caBundle not base64', { [`${CC}.caBundle`]: '<omitted>' }, [[`${CC}.caBundle`, 'Invalid']]],
  ['caBundle bad padding', { [`${CC}.caBundle`]: 'Cg=' }, [[`${CC}.caBundle`, 'Invalid']]],

  // matchConditions
  ['matchCondition expression blank', { [`${W}.matchConditions`]: [{ name: 'a', expression: '  ' }] }, [[`${W}.matchConditions[0].expression`, 'Required']]],
  ['matchCondition name missing', { [`${W}.matchConditions`]: [{ expression: 'true' }] }, [[`${W}.matchConditions[0].name`, 'Required']]],
  ['matchCondition name -hello', { [`${W}.matchConditions`]: [{ name: '-hello', expression: 'true' }] }, [[`${W}.matchConditions[0].name`, 'Invalid']]],
  ['matchCondition name with space', { [`${W}.matchConditions`]: [{ name: 'some name', expression: 'true' }] }, [[`${W}.matchConditions[0].name`, 'Invalid']]],
  [
    'matchCondition duplicate name',
    {
      [`${W}.matchConditions`]: [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'true' },
      ],
    },
    [[`${W}.matchConditions[1].name`, 'Duplicate']],
  ],
  ['64 matchConditions', { [`${W}.matchConditions`]: Array.from({ length: 64 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) }, []],
  [
    '65 matchConditions',
    { [`${W}.matchConditions`]: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) },
    [[`${W}.matchConditions`, 'TooMany']],
  ],

  // admissionReviewVersions
  ['admissionReviewVersions missing', { [`${W}.admissionReviewVersions`]: undefined }, [[`${W}.admissionReviewVersions`, 'Required']]],
  ['admissionReviewVersions empty', { [`${W}.admissionReviewVersions`]: [] }, [[`${W}.admissionReviewVersions`, 'Required']]],
  ['admissionReviewVersions duplicate', { [`${W}.admissionReviewVersions`]: ['v1', 'v1'] }, [[`${W}.admissionReviewVersions[1]`, 'Invalid']]],
  ['admissionReviewVersions only unknown', { [`${W}.admissionReviewVersions`]: ['v2'] }, [[`${W}.admissionReviewVersions`, 'Invalid']]],
  [
    'admissionReviewVersions malformed',
    { [`${W}.admissionReviewVersions`]: ['v1', '0v', 'V1'] },
    [
      [`${W}.admissionReviewVersions[1]`, 'Invalid'],
      [`${W}.admissionReviewVersions[2]`, 'Invalid'],
    ],
  ],
  [
    'admissionReviewVersions [""]',
    { [`${W}.admissionReviewVersions`]: [''] },
    [
      [`${W}.admissionReviewVersions[0]`, 'Invalid'],
      [`${W}.admissionReviewVersions`, 'Invalid'],
    ],
  ],

  // metadata
  ['metadata.name missing', { 'metadata.name': undefined }, [['metadata.name', 'Required']]],
  ['metadata.name upper case', { 'metadata.name': 'Webhook' }, [['metadata.name', 'Invalid']]],
  [
    'metadata.name too long and malformed',
    { 'metadata.name': '-'.repeat(254) },
    [
      ['metadata.name', 'Invalid'],
      ['metadata.name', 'Invalid'],
    ],
  ],
  [
    'bad generateName',
    { 'metadata.name': undefined, 'metadata.generateName': 'Bad-' },
    [
      ['metadata.generateName', 'Invalid'],
      ['metadata.name', 'Invalid'],
    ],
  ],
  [
    'label key and value',
    { 'metadata.labels': { 'a/b/c': 'x', ok: '-' } },
    [
      ['metadata.labels', 'Invalid'],
      ['metadata.labels', 'Invalid'],
    ],
  ],
  ['annotation key', { 'metadata.annotations': { 'not valid': 'x' } }, [['metadata.annotations', 'Invalid']]],
  ['annotations too large', { 'metadata.annotations': { a: 'x'.repeat(262144) } }, [['metadata.annotations', 'TooLong']]],
  ['finalizer not a qualified name', { 'metadata.finalizers': ['a/b/c'] }, [['metadata.finalizers', 'Invalid']]],
  ['finalizers orphan and foregroundDeletion', { 'metadata.finalizers': ['orphan', 'foregroundDeletion'] }, [['metadata.finalizers', 'Invalid']]],
  [
    'ownerReference fields empty',
    { 'metadata.ownerReferences': [{}] },
    [
      ['metadata.ownerReferences[0].apiVersion', 'Required'],
      ['metadata.ownerReferences[0].kind', 'Required'],
      ['metadata.ownerReferences[0].name', 'Required'],
      ['metadata.ownerReferences[0].uid', 'Required'],
    ],
  ],
  [
    'two controller owners',
    { 'metadata.ownerReferences': [1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `c${i}`, uid: `u${i}`, controller: true })) },
    [['metadata.ownerReferences', 'Invalid']],
  ],
  ['Event owner', { 'metadata.ownerReferences': [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, [['metadata.ownerReferences[0]', 'Invalid']]],
];

describe.each([
  ['ValidatingWebhookConfiguration', vwc],
  ['MutatingWebhookConfiguration', mwc],
])('%s', (_kind, base) => {
  it.each(webhookCases)('%s', (_title, changes, expected) => {
    expect(pairsOf(validateRules(patch(base, changes)))).toEqual(render(expected));
  });
  // v1 webhooks are validated as written (defaults.ts webhookConfiguration): the defaults change no error
  it.each(webhookCases)('%s: the same errors once defaulted', (_title, changes) => {
    const obj = patch(base, changes);
    expect(validateRules(obj)).toEqual(validateRules(withDefaults(obj)));
  });
});

describe('MutatingWebhookConfiguration reinvocationPolicy', () => {
  it.each<Case>([
    ['Never', { [`${W}.reinvocationPolicy`]: 'Never' }, []],
    ['IfNeeded', { [`${W}.reinvocationPolicy`]: 'IfNeeded' }, []],
    ['null from Helm (defaulted)', { [`${W}.reinvocationPolicy`]: null }, []],
    ['""', { [`${W}.reinvocationPolicy`]: '' }, [[`${W}.reinvocationPolicy`, 'NotSupported']]],
    ['never', { [`${W}.reinvocationPolicy`]: 'never' }, [[`${W}.reinvocationPolicy`, 'NotSupported']]],
  ])('%s', (_title, changes, expected) => {
    expect(pairsOf(validateRules(patch(mwc, changes)))).toEqual(render(expected));
  });
});

describe('messages', () => {
  const only = (changes: Record<string, unknown>, base: object = vwc) => {
    const errs = validateRules(patch(base, changes));
    expect(errs).toHaveLength(1);
    return errs[0]!.message;
  };
  it('sideEffects Required', () => expect(only({ [`${W}.sideEffects`]: undefined })).toBe('Required value: must specify one of None, NoneOnDryRun'));
  it('sideEffects NotSupported', () =>
    expect(only({ [`${W}.sideEffects`]: 'Some' })).toBe('Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'));
  it('operations NotSupported', () =>
    expect(only({ [`${R}.operations`]: ['PATCH'] })).toBe('Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'));
  it('scope NotSupported', () => expect(only({ [`${R}.scope`]: 'x' })).toBe('Unsupported value: "x": supported values: "*", "Cluster", "Namespaced"'));
  it('reinvocationPolicy NotSupported', () =>
    expect(only({ [`${W}.reinvocationPolicy`]: 'x' }, mwc)).toBe('Unsupported value: "x": supported values: "IfNeeded", "Never"'));
  it('timeout', () => expect(only({ [`${W}.timeoutSeconds`]: 0 })).toBe('Invalid value: 0: the timeout value must be between 1 and 30 seconds'));
  it('three segments', () =>
    expect(only({ [`${W}.name`]: 'example.com' })).toBe('Invalid value: "example.com": should be a domain with at least three segments separated by dots'));
  it('clientConfig one-of', () => expect(only({ [`${CC}.url`]: 'https://a.example.com' })).toBe('Required value: exactly one of url or service is required'));
  it('url parse error', () =>
    expect(only({ [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://h:abc/' })).toBe(
      'Required value: url must be a valid URL: parse "https://h:abc/": invalid port ":abc" after host; desired format: https://host[/path]',
    ));
  it('url scheme', () =>
    expect(only({ [`${CC}.service`]: undefined, [`${CC}.url`]: 'http://h.example.com/' })).toBe(
      `Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    ));
  it('service path segment', () =>
    expect(only({ [`${S}.path`]: '/a/B' })).toMatch(/^Invalid value: "\/a\/B": segment\[1\]: a lowercase RFC 1123 subdomain must consist of/));
  it('service port', () => expect(only({ [`${S}.port`]: 0 })).toBe('Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive'));
  // bad values that are lists print as JSON from 1.34 (k8s.io/apimachinery v0.34 ErrorBody), as Go's %#v before
  it('admission review versions', () =>
    expect(only({ [`${W}.admissionReviewVersions`]: ['v2'] })).toBe('Invalid value: ["v2"]: must include at least one of v1, v1beta1'));
  // upstream: `webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "a"}: if '*/*' is present, must not specify other resources`
  it('lists print as JSON (1.34 on) and as Go does before', () => {
    const at = (kubernetesVersion?: '1.33') =>
      validateRules(patch(vwc, { [`${R}.resources`]: ['*/*', 'a'] }), { kubernetesVersion }).map((e) => `${e.field}: ${e.message}`);
    expect(at()).toEqual([`${R}.resources: Invalid value: ["*/*","a"]: if '*/*' is present, must not specify other resources`]);
    expect(at('1.33')).toEqual([`${R}.resources: Invalid value: []string{"*/*", "a"}: if '*/*' is present, must not specify other resources`]);
  });
  it('typed lists print with their Go type before 1.34', () => {
    expect(only({ [`${R}.operations`]: ['CREATE', '*'] })).toBe(`Invalid value: ["CREATE","*"]: if '*' is present, must not specify other operations`);
    expect(validateRules(patch(vwc, { [`${R}.operations`]: ['CREATE', '*'] }), { kubernetesVersion: '1.33' })[0]!.message).toBe(
      `Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if '*' is present, must not specify other operations`,
    );
  });
  it('named string values are JSON with HTML escapes from 1.34', () => {
    const at = (kubernetesVersion?: '1.33') => validateRules(patch(vwc, { [`${R}.operations`]: ['a <= 5'] }), { kubernetesVersion })[0]!.message;
    expect(at()).toBe('Unsupported value: "a \\u003c= 5": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"');
    expect(at('1.33')).toBe('Unsupported value: "a <= 5": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"');
  });
  it('duplicate version', () => expect(only({ [`${W}.admissionReviewVersions`]: ['v1', 'v1'] })).toBe('Invalid value: "v1": duplicate version'));
  it('blank url', () =>
    expect(validateRules(patch(vwc, { [`${CC}.service`]: undefined, [`${CC}.url`]: '' })).map((e) => e.message)).toEqual([
      `Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]));
  it('user information', () =>
    expect(only({ [`${CC}.service`]: undefined, [`${CC}.url`]: 'https://harry.potter@example.com/' })).toBe(
      'Invalid value: "harry.potter": user information is not permitted in the URL',
    ));
  it('empty path segments', () => expect(only({ [`${S}.path`]: '/foo/bar//' })).toBe('Invalid value: "/foo/bar//": segment[2] may not be empty'));
  it('a long caBundle is shortened in the message', () =>
    expect(only({ [`${CC}.caBundle`]: `${'A'.repeat(100)}!` })).toBe(`Invalid value: "${'A'.repeat(61)}...": illegal base64 data at input byte 100`));
  it('caBundle', () => expect(only({ [`${CC}.caBundle`]: 'Cg=' })).toBe('Invalid value: "Cg=": illegal base64 data at input byte 3'));
  it('selector values Required', () =>
    expect(only({ [`${W}.namespaceSelector.matchExpressions`]: [{ key: 'a', operator: 'In' }] })).toBe(
      "Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ));
  it('metadata.name required', () => expect(only({ 'metadata.name': '' })).toBe('Required value: name or generateName is required'));
  it('matchConditions TooMany', () =>
    expect(only({ [`${W}.matchConditions`]: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) })).toBe(
      'Too many: 65: must have at most 64 items',
    ));
});

describe('webhook matchConditions through a CEL compiler', () => {
  it('reports a compile failure as Invalid with the trimmed expression and the compiler message', () => {
    const cel = scriptedCompiler();
    const errs = validateRules(patch(vwc, { [`${W}.matchConditions`]: [{ name: 'a', expression: '  BAD  ' }] }), { cel });
    expect(errs).toEqual([
      {
        type: 'Invalid',
        field: `${W}.matchConditions[0].expression`,
        message: `Invalid value: "BAD": compilation failed: ERROR: <input>:1:1: undeclared reference to 'BAD'`,
      },
    ]);
    expect(cel.calls).toEqual([{ expression: 'BAD', context: 'webhook-matchCondition', options: { hasParams: false } }]);
  });
  it('treats an unknown result as no error', () => {
    const cel = scriptedCompiler();
    expect(validateRules(patch(vwc, { [`${W}.matchConditions`]: [{ name: 'a', expression: 'UNKNOWN' }] }), { cel })).toEqual([]);
    expect(cel.calls).toHaveLength(1);
  });
  it('does not compile without a compiler', () => {
    expect(validateRules(patch(vwc, { [`${W}.matchConditions`]: [{ name: 'a', expression: 'BAD' }] }))).toEqual([]);
  });
  it('does not compile a blank expression', () => {
    const cel = scriptedCompiler();
    expect(pairsOf(validateRules(patch(vwc, { [`${W}.matchConditions`]: [{ name: 'a', expression: '' }] }), { cel }))).toEqual([
      `Required ${W}.matchConditions[0].expression`,
    ]);
    expect(cel.calls).toEqual([]);
  });
});
