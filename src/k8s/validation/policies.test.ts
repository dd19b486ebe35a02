import { describe, expect, it } from 'vitest';
import { validateRules } from '../validate';
import { pairsOf, patch, render, scriptedCompiler, type Pair } from './testing';

/**
 * v1beta1 and v1alpha1 are not served by default: the apiVersion error, then the rules of that version,
 * checked at a release that has it (v1alpha1 ValidatingAdmissionPolicy went in 1.33). v1alpha1 defaults
 * paramRef.parameterNotFoundAction to Deny (v1 requires it).
 */
const releaseFor = (version: string) => ({ kubernetesVersion: version === 'v1alpha1' ? ('1.32' as const) : ('1.36' as const) });
const withServed = (version: string, expected: string[], object: unknown): string[] => {
  if (version === 'v1') return expected;
  const ref = (object as { spec?: { paramRef?: { parameterNotFoundAction?: unknown } } }).spec?.paramRef;
  const defaulted = version === 'v1alpha1' && ref && (ref.parameterNotFoundAction === undefined || ref.parameterNotFoundAction === null);
  return [...expected.filter((e) => !defaulted || e !== 'Required spec.paramRef.parameterNotFoundAction'), 'NotSupported apiVersion'].sort();
};

type Case = [string, Record<string, unknown>, Pair[]];

const vap = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'demo-policy.example.com' },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
    validations: [{ expression: 'object.spec.replicas <= 5' }],
  },
};

const map = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name: 'sidecar-policy.example.com' },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' } }],
    reinvocationPolicy: 'Never',
  },
};

const MC = 'spec.matchConstraints';
const RR = `${MC}.resourceRules[0]`;

/** Rules shared by both policy kinds: failurePolicy, paramKind, matchConstraints, matchConditions, variables, metadata. */
const commonCases: Case[] = [
  ['the base object is valid', {}, []],
  ['failurePolicy Ignore', { 'spec.failurePolicy': 'Ignore' }, []],
  ['failurePolicy null (defaulted)', { 'spec.failurePolicy': null }, []],
  ['failurePolicy ""', { 'spec.failurePolicy': '' }, [['spec.failurePolicy', 'NotSupported']]],
  ['failurePolicy fail', { 'spec.failurePolicy': 'fail' }, [['spec.failurePolicy', 'NotSupported']]],
  ['paramKind of a CRD', { 'spec.paramKind': { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' } }, []],
  ['paramKind ConfigMap', { 'spec.paramKind': { apiVersion: 'v1', kind: 'ConfigMap' } }, []],
  [
    'paramKind empty',
    { 'spec.paramKind': {} },
    [
      ['spec.paramKind.apiVersion', 'Required'],
      ['spec.paramKind.kind', 'Required'],
    ],
  ],
  ['paramKind a/b/c', { 'spec.paramKind': { apiVersion: 'a/b/c', kind: 'K' } }, [['spec.paramKind.apiVersion', 'Invalid']]],
  ['paramKind group upper case', { 'spec.paramKind': { apiVersion: 'Example.com/v1', kind: 'K' } }, [['spec.paramKind.apiVersion', 'Invalid']]],
  ['paramKind version missing', { 'spec.paramKind': { apiVersion: 'example.com/', kind: 'K' } }, [['spec.paramKind.apiVersion', 'Invalid']]],
  ['paramKind group without version', { 'spec.paramKind': { apiVersion: 'test.example.com', kind: 'K' } }, [['spec.paramKind.apiVersion', 'Invalid']]],
  [
    'paramKind bad group and version',
    { 'spec.paramKind': { apiVersion: 'Example.com/V1', kind: 'K' } },
    [
      ['spec.paramKind.apiVersion', 'Invalid'],
      ['spec.paramKind.apiVersion', 'Invalid'],
    ],
  ],
  ['paramKind kind Replica_Limit', { 'spec.paramKind': { apiVersion: 'v1', kind: 'Replica_Limit' } }, [['spec.paramKind.kind', 'Invalid']]],
  ['paramKind kind 9Lives', { 'spec.paramKind': { apiVersion: 'v1', kind: '9Lives' } }, [['spec.paramKind.kind', 'Invalid']]],
  ['matchConstraints missing', { 'spec.matchConstraints': undefined }, [[MC, 'Required']]],
  ['matchConstraints without resourceRules', { [`${MC}.resourceRules`]: [] }, [[`${MC}.resourceRules`, 'Required']]],
  [
    'matchConstraints every field',
    {
      [MC]: {
        matchPolicy: 'Exact',
        namespaceSelector: { matchExpressions: [{ key: 'environment', operator: 'In', values: ['test'] }] },
        objectSelector: { matchLabels: { app: 'x' } },
        resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*', '*/status'], scope: 'Namespaced' }],
        excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['pods'], resourceNames: ['keep-me', 'Also_Fine'] }],
      },
    },
    [],
  ],
  ['matchPolicy Equal', { [`${MC}.matchPolicy`]: 'Equal' }, [[`${MC}.matchPolicy`, 'NotSupported']]],
  [
    'namespaceSelector bad operator',
    { [`${MC}.namespaceSelector`]: { matchExpressions: [{ key: 'a', operator: 'Equals' }] } },
    [[`${MC}.namespaceSelector.matchExpressions[0].operator`, 'Invalid']],
  ],
  ['objectSelector bad label', { [`${MC}.objectSelector`]: { matchLabels: { a: '-' } } }, [[`${MC}.objectSelector.matchLabels`, 'Invalid']]],
  [
    'resourceRule missing fields',
    { [RR]: { operations: ['CREATE'] } },
    [
      [`${RR}.apiGroups`, 'Required'],
      [`${RR}.apiVersions`, 'Required'],
      [`${RR}.resources`, 'Required'],
    ],
  ],
  ['resourceRule scope', { [`${RR}.scope`]: 'All' }, [[`${RR}.scope`, 'NotSupported']]],
  [
    'resourceNames path segments',
    { [`${RR}.resourceNames`]: ['a/b', '..', 'c%'] },
    [
      [`${RR}.resourceNames[0]`, 'Invalid'],
      [`${RR}.resourceNames[1]`, 'Invalid'],
      [`${RR}.resourceNames[2]`, 'Invalid'],
    ],
  ],
  ['resourceNames duplicate', { [`${RR}.resourceNames`]: ['a', 'a'] }, [[`${RR}.resourceNames[1]`, 'Duplicate']]],
  [
    'excludeResourceRules checked',
    { [`${MC}.excludeResourceRules`]: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*', 'CREATE'], resources: ['pods'] }] },
    [[`${MC}.excludeResourceRules[0].operations`, 'Invalid']],
  ],
  ['matchConditions valid', { 'spec.matchConditions': [{ name: 'not-kube-system', expression: "namespaceObject.metadata.name != 'kube-system'" }] }, []],
  [
    'matchConditions bad name and blank expression',
    { 'spec.matchConditions': [{ name: '.io', expression: ' ' }] },
    [
      ['spec.matchConditions[0].name', 'Invalid'],
      ['spec.matchConditions[0].expression', 'Required'],
    ],
  ],
  [
    'matchConditions duplicate',
    {
      'spec.matchConditions': [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'false' },
      ],
    },
    [['spec.matchConditions[1].name', 'Duplicate']],
  ],
  [
    'matchConditions 65',
    { 'spec.matchConditions': Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) },
    [['spec.matchConditions', 'TooMany']],
  ],
  [
    'variables valid (duplicate names are not checked)',
    {
      'spec.variables': [
        { name: 'x', expression: '1' },
        { name: 'x', expression: '2' },
        { name: '_y2', expression: 'variables.x' },
      ],
    },
    [],
  ],
  ['variable name missing', { 'spec.variables': [{ expression: '1' }] }, [['spec.variables[0].name', 'Required']]],
  ['variable name blank', { 'spec.variables': [{ name: '  ', expression: '1' }] }, [['spec.variables[0].name', 'Required']]],
  ['variable name 1x', { 'spec.variables': [{ name: '1x', expression: '1' }] }, [['spec.variables[0].name', 'Invalid']]],
  ['variable name reserved', { 'spec.variables': [{ name: 'namespace', expression: '1' }] }, [['spec.variables[0].name', 'Invalid']]],
  ['variable name with a dash', { 'spec.variables': [{ name: 'my-var', expression: '1' }] }, [['spec.variables[0].name', 'Invalid']]],
  ['variable expression blank', { 'spec.variables': [{ name: 'x', expression: '' }] }, [['spec.variables[0].expression', 'Required']]],
  ['metadata.name missing', { 'metadata.name': undefined }, [['metadata.name', 'Required']]],
  ['metadata.name with upper case', { 'metadata.name': 'Policy' }, [['metadata.name', 'Invalid']]],
];

const vapCases: Case[] = [
  [
    'every optional field',
    {
      'spec.paramKind': { apiVersion: 'v1', kind: 'ConfigMap' },
      'spec.variables': [{ name: 'replicas', expression: 'object.spec.replicas' }],
      'spec.validations': [
        {
          expression: 'variables.replicas <= 5',
          message: 'too many replicas\n',
          messageExpression: "'replicas: ' + string(variables.replicas)",
          reason: 'Forbidden',
        },
        { expression: 'true', reason: 'Invalid' },
        { expression: 'true', reason: 'RequestEntityTooLarge' },
      ],
      'spec.auditAnnotations': [{ key: 'high-replica-count', valueExpression: "'Deployment spec.replicas set to ' + string(object.spec.replicas)" }],
    },
    [],
  ],
  ['auditAnnotations only', { 'spec.validations': undefined, 'spec.auditAnnotations': [{ key: 'a', valueExpression: "'x'" }] }, []],
  [
    'neither validations nor auditAnnotations',
    { 'spec.validations': [] },
    [
      ['spec.validations', 'Required'],
      ['spec.auditAnnotations', 'Required'],
    ],
  ],
  [
    'validations missing entirely',
    { 'spec.validations': undefined },
    [
      ['spec.validations', 'Required'],
      ['spec.auditAnnotations', 'Required'],
    ],
  ],
  ['validation expression blank', { 'spec.validations[0].expression': ' \n' }, [['spec.validations[0].expression', 'Required']]],
  ['validation expression missing', { 'spec.validations[0]': { message: 'x' } }, [['spec.validations[0].expression', 'Required']]],
  ['messageExpression blank', { 'spec.validations[0].messageExpression': '  ' }, [['spec.validations[0].messageExpression', 'Invalid']]],
  ['message blank', { 'spec.validations[0].message': ' ' }, [['spec.validations[0].message', 'Invalid']]],
  ['message with a line break', { 'spec.validations[0].message': 'a\nb' }, [['spec.validations[0].message', 'Invalid']]],
  ['message with a carriage return', { 'spec.validations[0].message': 'a\rb' }, [['spec.validations[0].message', 'Invalid']]],
  ['message with one trailing newline', { 'spec.validations[0].message': 'fine\n' }, []],
  ['reason unknown', { 'spec.validations[0].reason': 'NotFound' }, [['spec.validations[0].reason', 'NotSupported']]],
  ['reason ""', { 'spec.validations[0].reason': '' }, [['spec.validations[0].reason', 'NotSupported']]],
  [
    '21 auditAnnotations',
    { 'spec.auditAnnotations': Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: "'v'" })) },
    [['spec.auditAnnotations', 'Invalid']],
  ],
  ['20 auditAnnotations', { 'spec.auditAnnotations': Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, valueExpression: "'v'" })) }, []],
  [
    'auditAnnotation key empty',
    { 'spec.auditAnnotations': [{ key: '', valueExpression: "'v'" }] },
    [
      ['spec.auditAnnotations[0].key', 'Invalid'],
      ['spec.auditAnnotations[0].key', 'Invalid'],
    ],
  ],
  ['auditAnnotation key with a slash', { 'spec.auditAnnotations': [{ key: 'a/b', valueExpression: "'v'" }] }, [['spec.auditAnnotations[0].key', 'Invalid']]],
  [
    'auditAnnotation key 64 characters',
    { 'spec.auditAnnotations': [{ key: 'k'.repeat(64), valueExpression: "'v'" }] },
    [['spec.auditAnnotations[0].key', 'Invalid']],
  ],
  [
    'auditAnnotation key duplicate',
    {
      'spec.auditAnnotations': [
        { key: 'a', valueExpression: "'v'" },
        { key: 'a', valueExpression: "'w'" },
      ],
    },
    [['spec.auditAnnotations[1].key', 'Duplicate']],
  ],
  [
    'auditAnnotation valueExpression blank',
    { 'spec.auditAnnotations': [{ key: 'a', valueExpression: ' ' }] },
    [['spec.auditAnnotations[0].valueExpression', 'Required']],
  ],
  [
    'auditAnnotation valueExpression over 5 KiB',
    { 'spec.auditAnnotations': [{ key: 'a', valueExpression: `'${'x'.repeat(5120)}'` }] },
    [['spec.auditAnnotations[0].valueExpression', 'Required']],
  ],
  ['auditAnnotation valueExpression exactly 5 KiB', { 'spec.auditAnnotations': [{ key: 'a', valueExpression: `'${'x'.repeat(5118)}'` }] }, []],
  [
    'an invalid metadata.name makes every key invalid',
    { 'metadata.name': 'Bad', 'spec.auditAnnotations': [{ key: 'a', valueExpression: "'v'" }] },
    [
      ['metadata.name', 'Invalid'],
      ['spec.auditAnnotations[0].key', 'Invalid'],
    ],
  ],
  [
    'no name at all',
    { 'metadata.name': undefined, 'spec.auditAnnotations': [{ key: 'a', valueExpression: "'v'" }] },
    [
      ['metadata.name', 'Required'],
      ['spec.auditAnnotations[0].key', 'Invalid'],
    ],
  ],
  ['generated name', { 'metadata.name': undefined, 'metadata.generateName': 'policy-', 'spec.auditAnnotations': [{ key: 'a', valueExpression: "'v'" }] }, []],
];

const mapCases: Case[] = [
  [
    'every optional field',
    {
      'spec.paramKind': { apiVersion: 'v1', kind: 'ConfigMap' },
      'spec.variables': [{ name: 'labels', expression: 'object.metadata.labels' }],
      'spec.matchConditions': [{ name: 'has-labels', expression: 'has(object.metadata.labels)' }],
      'spec.mutations': [
        { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } },
      ],
      'spec.reinvocationPolicy': 'IfNeeded',
      [`${MC}.excludeResourceRules`]: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }],
    },
    [],
  ],
  ["operations ['*']", { [`${RR}.operations`]: ['*'] }, []],
  ['operations CREATE UPDATE CONNECT', { [`${RR}.operations`]: ['CREATE', 'UPDATE', 'CONNECT'] }, []],
  ['operation DELETE', { [`${RR}.operations`]: ['DELETE'] }, [[`${MC}.resourceRules.operations`, 'NotSupported']]],
  [
    'operation PATCH (both checks)',
    { [`${RR}.operations`]: ['PATCH'] },
    [
      [`${MC}.resourceRules.operations`, 'NotSupported'],
      [`${RR}.operations[0]`, 'NotSupported'],
    ],
  ],
  [
    'DELETE in two rules',
    { [`${MC}.resourceRules`]: [1, 2].map(() => ({ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE', 'CREATE'], resources: ['pods'] })) },
    [
      [`${MC}.resourceRules.operations`, 'NotSupported'],
      [`${MC}.resourceRules.operations`, 'NotSupported'],
    ],
  ],
  ['mutations empty', { 'spec.mutations': [] }, [['spec.mutations', 'Required']]],
  ['mutations missing', { 'spec.mutations': undefined }, [['spec.mutations', 'Required']]],
  ['patchType missing', { 'spec.mutations[0].patchType': undefined }, [['spec.mutations[0].patchType', 'Required']]],
  ['patchType Merge', { 'spec.mutations[0].patchType': 'Merge' }, [['spec.mutations[0].patchType', 'NotSupported']]],
  [
    'JSONPatch without jsonPatch, with applyConfiguration',
    { 'spec.mutations[0].patchType': 'JSONPatch' },
    [
      ['spec.mutations[0].jsonPatch', 'Required'],
      ['spec.mutations[0].applyConfiguration', 'Invalid'],
    ],
  ],
  [
    'ApplyConfiguration without applyConfiguration',
    { 'spec.mutations[0].applyConfiguration': undefined },
    [['spec.mutations[0].applyConfiguration', 'Required']],
  ],
  ['ApplyConfiguration with a jsonPatch too', { 'spec.mutations[0].jsonPatch': { expression: '[]' } }, [['spec.mutations[0].jsonPatch', 'Invalid']]],
  [
    'applyConfiguration expression blank',
    { 'spec.mutations[0].applyConfiguration.expression': ' ' },
    [['spec.mutations[0].applyConfiguration.expression', 'Required']],
  ],
  [
    'jsonPatch expression missing',
    { 'spec.mutations[0]': { patchType: 'JSONPatch', jsonPatch: {} } },
    [['spec.mutations[0].jsonPatch.expression', 'Required']],
  ],
  ['reinvocationPolicy missing (not defaulted)', { 'spec.reinvocationPolicy': undefined }, [['spec.reinvocationPolicy', 'Required']]],
  ['reinvocationPolicy ""', { 'spec.reinvocationPolicy': '' }, [['spec.reinvocationPolicy', 'Required']]],
  ['reinvocationPolicy Always', { 'spec.reinvocationPolicy': 'Always' }, [['spec.reinvocationPolicy', 'NotSupported']]],
];

describe.each(['v1', 'v1beta1', 'v1alpha1'])('ValidatingAdmissionPolicy %s', (version) => {
  const base = { ...vap, apiVersion: `admissionregistration.k8s.io/${version}` };
  it.each([...commonCases, ...vapCases])('%s', (_title, changes, expected) => {
    expect(pairsOf(validateRules(patch(base, changes), releaseFor(version)))).toEqual(withServed(version, render(expected), patch(base, changes)));
  });
});

describe.each(['v1', 'v1beta1', 'v1alpha1'])('MutatingAdmissionPolicy %s', (version) => {
  const base = { ...map, apiVersion: `admissionregistration.k8s.io/${version}` };
  it.each([...commonCases, ...mapCases])('%s', (_title, changes, expected) => {
    expect(pairsOf(validateRules(patch(base, changes), releaseFor(version)))).toEqual(withServed(version, render(expected), patch(base, changes)));
  });
});

describe('policy messages', () => {
  const messages = (base: object, changes: Record<string, unknown>) => validateRules(patch(base, changes)).map((e) => `${e.field}: ${e.message}`);
  it('validations or auditAnnotations', () =>
    expect(messages(vap, { 'spec.validations': [] })).toEqual([
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]));
  it('message line breaks', () =>
    expect(messages(vap, { 'spec.validations[0].message': 'a\nb' })).toEqual([
      'spec.validations[0].message: Invalid value: "a\\nb": must not contain line breaks',
    ]));
  it('variable name', () =>
    expect(messages(vap, { 'spec.variables': [{ name: 'in', expression: '1' }] })).toEqual([
      'spec.variables[0].name: Invalid value: "in": must be a valid CEL identifier',
    ]));
  it('auditAnnotations count', () =>
    expect(messages(vap, { 'spec.auditAnnotations': Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: "'v'" })) })[0]).toMatch(
      /^spec\.auditAnnotations: Invalid value: \[\{"Key":"k0","ValueExpression":"'v'"\},.*\}\]: must not have more than 20 auditAnnotations$/,
    ));
  it('auditAnnotations count at 1.33 (Go %#v)', () =>
    expect(
      validateRules(patch(vap, { 'spec.auditAnnotations': Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: "'v'" })) }), {
        kubernetesVersion: '1.33',
      })[0]!.message,
    ).toMatch(
      /^Invalid value: \[\]admissionregistration\.AuditAnnotation\{admissionregistration\.AuditAnnotation\{Key:"k0", ValueExpression:"'v'"\}, .*\}: must not have more than 20 auditAnnotations$/,
    ));
  it('auditAnnotation key uses <name>/<key>', () =>
    expect(messages(vap, { 'spec.auditAnnotations': [{ key: 'a/b', valueExpression: "'v'" }] })[0]).toMatch(
      /^spec\.auditAnnotations\[0\]\.key: Invalid value: "demo-policy\.example\.com\/a\/b": a valid label key must consist of/,
    ));
  it('auditAnnotation without a name', () =>
    expect(messages(vap, { 'metadata.name': '', 'spec.auditAnnotations': [{ key: 'a', valueExpression: "'v'" }] })).toContain(
      'spec.auditAnnotations[0].key: Invalid value: "a": requires metadata.name be non-empty',
    ));
  it('valueExpression too long', () =>
    expect(messages(vap, { 'spec.auditAnnotations': [{ key: 'a', valueExpression: 'x'.repeat(5121) }] })).toEqual([
      'spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length',
    ]));
  it('paramKind kind', () =>
    expect(messages(vap, { 'spec.paramKind': { apiVersion: 'v1', kind: '9Lives' } })[0]).toMatch(
      /^spec\.paramKind\.kind: Invalid value: "9Lives": may have mixed case, but should otherwise match: a DNS-1035 label/,
    ));
  it('paramKind apiVersion', () =>
    expect(messages(vap, { 'spec.paramKind': { apiVersion: 'a/b/c', kind: 'K' } })).toEqual([
      'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    ]));
  it('mutating operations', () =>
    expect(messages(map, { [`${RR}.operations`]: ['DELETE'] })).toEqual([
      'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"',
    ]));
  it('patchType', () =>
    expect(messages(map, { 'spec.mutations[0].patchType': 'Merge' })).toEqual([
      'spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"',
    ]));
  it('mutually exclusive patches', () =>
    expect(messages(map, { 'spec.mutations[0].jsonPatch': { expression: '[]' } })).toEqual([
      'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration',
    ]));
  it('reason', () =>
    expect(messages(vap, { 'spec.validations[0].reason': 'NotFound' })).toEqual([
      'spec.validations[0].reason: Unsupported value: "NotFound": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    ]));
});

describe('policy CEL sites', () => {
  const withCEL = {
    ...vap,
    spec: {
      ...vap.spec,
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConditions: [{ name: 'm', expression: ' mc ' }],
      variables: [
        { name: 'a', expression: 'va' },
        { name: 'b', expression: ' vb ' },
      ],
      validations: [{ expression: ' v ', messageExpression: ' me ' }],
      auditAnnotations: [{ key: 'k', valueExpression: '  aa  ' }],
    },
  };
  it('compiles each expression in its context, with params and the right variables', () => {
    const cel = scriptedCompiler();
    expect(validateRules(withCEL, { cel })).toEqual([]);
    const a = { name: 'a', expression: 'va' };
    const b = { name: 'b', expression: ' vb ' };
    expect(cel.calls).toEqual([
      { expression: 'mc', context: 'vap-matchCondition', options: { hasParams: true, stateless: true } },
      { expression: 'va', context: 'vap-variable', options: { hasParams: true, variables: [] } },
      { expression: ' vb ', context: 'vap-variable', options: { hasParams: true, variables: [a] } },
      { expression: ' v ', context: 'vap-validation', options: { hasParams: true, variables: [a, b] } },
      { expression: ' me ', context: 'vap-messageExpression', options: { hasParams: true, variables: [a, b] } },
      { expression: 'aa', context: 'vap-auditAnnotation', options: { hasParams: true, variables: [a, b] } },
    ]);
  });
  it('reports failures as Invalid with the value the apiserver prints', () => {
    const cel = scriptedCompiler();
    const bad = patch(withCEL, {
      'spec.matchConditions[0].expression': ' BAD1 ',
      'spec.variables[0].expression': 'BAD2',
      'spec.validations[0].expression': ' BAD3',
      'spec.validations[0].messageExpression': 'BAD4 ',
      'spec.auditAnnotations[0].valueExpression': ' BAD5 ',
    });
    expect(validateRules(bad, { cel }).map((e) => [e.field, e.type, e.message.split(': compilation failed')[0]])).toEqual([
      ['spec.matchConditions[0].expression', 'Invalid', 'Invalid value: "BAD1"'],
      ['spec.variables[0].expression', 'Invalid', 'Invalid value: "BAD2"'],
      ['spec.validations[0].expression', 'Invalid', 'Invalid value: " BAD3"'],
      ['spec.validations[0].messageExpression', 'Invalid', 'Invalid value: "BAD4 "'],
      ['spec.auditAnnotations[0].valueExpression', 'Invalid', 'Invalid value: " BAD5 "'],
    ]);
  });
  it('without paramKind, params are not declared; without variables none are passed and the compiler is the stateless one', () => {
    const cel = scriptedCompiler();
    validateRules(vap, { cel });
    expect(cel.calls).toEqual([{ expression: 'object.spec.replicas <= 5', context: 'vap-validation', options: { hasParams: false, stateless: true } }]);
  });
  it('does not compile validations when neither validations nor auditAnnotations exist', () => {
    const cel = scriptedCompiler();
    validateRules(patch(vap, { 'spec.validations': [], 'spec.variables': [{ name: 'x', expression: 'BAD' }] }), { cel });
    expect(cel.calls.map((c) => c.context)).toEqual(['vap-variable']);
  });
  it('compiles mutations in their contexts', () => {
    const cel = scriptedCompiler();
    const m = patch(map, {
      'spec.variables': [{ name: 'v', expression: 'x' }],
      'spec.matchConditions': [{ name: 'c', expression: 'true' }],
      'spec.mutations': [
        { patchType: 'JSONPatch', jsonPatch: { expression: ' BAD ' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } },
      ],
    });
    expect(pairsOf(validateRules(m, { cel }))).toEqual(['Invalid spec.mutations[0].jsonPatch.expression']);
    expect(cel.calls.map((c) => [c.expression, c.context, c.options?.variables?.length])).toEqual([
      ['true', 'map-matchCondition', undefined],
      ['x', 'vap-variable', 0],
      ['BAD', 'map-jsonPatch', 1],
      ['Object{}', 'map-applyConfiguration', 1],
    ]);
  });
  it('a compiler that files the error as Required gives Required', () => {
    const cel = { compile: () => ({ ok: false, message: 'no expression', issues: [], errorType: 'Required' as const }) };
    expect(validateRules(vap, { cel }).map((e) => [e.field, e.type, e.message])).toEqual([
      ['spec.validations[0].expression', 'Required', 'Required value: no expression'],
    ]);
  });
  it('a throwing compiler is treated as unknown', () => {
    const cel = {
      compile: () => {
        throw new Error('engine crashed');
      },
    };
    expect(validateRules(vap, { cel })).toEqual([]);
  });
  it('an unknown result is no error', () => {
    expect(validateRules(patch(vap, { 'spec.validations[0].expression': 'UNKNOWN' }), { cel: scriptedCompiler() })).toEqual([]);
  });
});
