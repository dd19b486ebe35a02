import { describe, expect, it } from 'vitest';
import { validateRules } from '../validate';
import { pairsOf, patch, render, type Pair } from './testing';

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

const vapb = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'demo-binding.example.com' },
  spec: { policyName: 'demo-policy.example.com', validationActions: ['Deny'] },
};
const mapb = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name: 'sidecar-binding' },
  spec: { policyName: 'sidecar-policy.example.com' },
};

const PR = 'spec.paramRef';
const MR = 'spec.matchResources';

const commonCases: Case[] = [
  ['the base object is valid', {}, []],
  ['policyName missing', { 'spec.policyName': undefined }, [['spec.policyName', 'Required']]],
  ['policyName ""', { 'spec.policyName': '' }, [['spec.policyName', 'Required']]],
  ['policyName upper case', { 'spec.policyName': 'Policy' }, [['spec.policyName', 'Invalid']]],
  [
    'policyName too long and malformed',
    { 'spec.policyName': '_'.repeat(254) },
    [
      ['spec.policyName', 'Invalid'],
      ['spec.policyName', 'Invalid'],
    ],
  ],
  ['paramRef by name', { [PR]: { name: 'replica-limit', namespace: 'default', parameterNotFoundAction: 'Deny' } }, []],
  ['paramRef name with upper case and underscores', { [PR]: { name: 'Replica_Limit', parameterNotFoundAction: 'Allow' } }, []],
  ['paramRef namespace is not validated', { [PR]: { name: 'x', namespace: 'Not A Namespace/..', parameterNotFoundAction: 'Deny' } }, []],
  ['paramRef by selector', { [PR]: { selector: { matchLabels: { app: 'x' } }, parameterNotFoundAction: 'Deny' } }, []],
  ['paramRef selector {}', { [PR]: { selector: {}, parameterNotFoundAction: 'Allow' } }, []],
  [
    'paramRef name and selector',
    { [PR]: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } },
    [
      [`${PR}.name`, 'Forbidden'],
      [`${PR}.selector`, 'Forbidden'],
    ],
  ],
  ['paramRef neither name nor selector', { [PR]: { parameterNotFoundAction: 'Deny' } }, [[PR, 'Required']]],
  ['paramRef name with a slash', { [PR]: { name: 'a/b', parameterNotFoundAction: 'Deny' } }, [[`${PR}.name`, 'Invalid']]],
  ['paramRef name ..', { [PR]: { name: '..', parameterNotFoundAction: 'Deny' } }, [[`${PR}.name`, 'Invalid']]],
  [
    'paramRef name with / and %',
    { [PR]: { name: 'a/%', parameterNotFoundAction: 'Deny' } },
    [
      [`${PR}.name`, 'Invalid'],
      [`${PR}.name`, 'Invalid'],
    ],
  ],
  [
    'paramRef bad selector',
    { [PR]: { selector: { matchExpressions: [{ key: 'a', operator: 'In' }] }, parameterNotFoundAction: 'Deny' } },
    [[`${PR}.selector.matchExpressions[0].values`, 'Required']],
  ],
  ['paramRef parameterNotFoundAction missing', { [PR]: { name: 'a' } }, [[`${PR}.parameterNotFoundAction`, 'Required']]],
  ['paramRef parameterNotFoundAction ""', { [PR]: { name: 'a', parameterNotFoundAction: '' } }, [[`${PR}.parameterNotFoundAction`, 'Required']]],
  ['paramRef parameterNotFoundAction deny', { [PR]: { name: 'a', parameterNotFoundAction: 'deny' } }, [[`${PR}.parameterNotFoundAction`, 'NotSupported']]],
  [
    'paramRef {}',
    { [PR]: {} },
    [
      [PR, 'Required'],
      [`${PR}.parameterNotFoundAction`, 'Required'],
    ],
  ],
  ['matchResources {}', { [MR]: {} }, []],
  [
    'matchResources every field',
    {
      [MR]: {
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
        objectSelector: { matchLabels: { 'app.kubernetes.io/name': 'x' } },
        matchPolicy: 'Exact',
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments', 'deployments/scale'], resourceNames: ['a', 'b'] },
        ],
        excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['pods'], scope: 'Namespaced' }],
      },
    },
    [],
  ],
  ['matchResources matchPolicy ""', { [`${MR}.matchPolicy`]: '' }, [[`${MR}.matchPolicy`, 'NotSupported']]],
  [
    'matchResources duplicate resourceNames',
    { [`${MR}.excludeResourceRules`]: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], resourceNames: ['a', 'a'] }] },
    [[`${MR}.excludeResourceRules[0].resourceNames[1]`, 'Duplicate']],
  ],
  ['matchResources bad selector', { [`${MR}.objectSelector`]: { matchLabels: { 'a b': 'x' } } }, [[`${MR}.objectSelector.matchLabels`, 'Invalid']]],
  ['metadata.name missing', { 'metadata.name': '' }, [['metadata.name', 'Required']]],
];

const vapbCases: Case[] = [
  [
    'spec missing',
    { spec: undefined },
    [
      ['spec.policyName', 'Required'],
      ['spec.validationActions', 'Required'],
    ],
  ],
  [
    'matchResources bad rule',
    { [`${MR}.resourceRules`]: [{ operations: ['GET'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
    [[`${MR}.resourceRules[0].operations[0]`, 'NotSupported']],
  ],
  ['Deny + Audit', { 'spec.validationActions': ['Deny', 'Audit'] }, []],
  ['Warn + Audit', { 'spec.validationActions': ['Audit', 'Warn'] }, []],
  ['Warn alone', { 'spec.validationActions': ['Warn'] }, []],
  ['Audit alone', { 'spec.validationActions': ['Audit'] }, []],
  ['validationActions missing', { 'spec.validationActions': undefined }, [['spec.validationActions', 'Required']]],
  ['validationActions empty', { 'spec.validationActions': [] }, [['spec.validationActions', 'Required']]],
  ['Deny + Warn', { 'spec.validationActions': ['Deny', 'Warn'] }, [['spec.validationActions', 'Invalid']]],
  ['deny (case-sensitive)', { 'spec.validationActions': ['deny'] }, [['spec.validationActions[0]', 'NotSupported']]],
  ['Deny twice', { 'spec.validationActions': ['Deny', 'Deny'] }, [['spec.validationActions[1]', 'Duplicate']]],
  [
    'unknown twice (both errors)',
    { 'spec.validationActions': ['Block', 'Block'] },
    [
      ['spec.validationActions[0]', 'NotSupported'],
      ['spec.validationActions[1]', 'NotSupported'],
      ['spec.validationActions[1]', 'Duplicate'],
    ],
  ],
  [
    'DELETE is fine for validating bindings',
    { [MR]: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } },
    [],
  ],
];

const mapbCases: Case[] = [
  ['spec missing', { spec: undefined }, [['spec.policyName', 'Required']]],
  [
    'DELETE in resourceRules',
    { [MR]: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } },
    [[`${MR}.resourceRules.operations`, 'NotSupported']],
  ],
  [
    'DELETE in excludeResourceRules',
    { [MR]: { excludeResourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } },
    [],
  ],
  [
    'PATCH in resourceRules (both checks)',
    { [MR]: { resourceRules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } },
    [
      [`${MR}.resourceRules.operations`, 'NotSupported'],
      [`${MR}.resourceRules[0].operations[0]`, 'NotSupported'],
    ],
  ],
  ['validationActions is not a MAPB field (not checked)', { 'spec.validationActions': ['Bogus'] }, []],
];

describe.each(['v1', 'v1beta1', 'v1alpha1'])('ValidatingAdmissionPolicyBinding %s', (version) => {
  const base = { ...vapb, apiVersion: `admissionregistration.k8s.io/${version}` };
  it.each([...commonCases, ...vapbCases])('%s', (_t, changes, expected) =>
    expect(pairsOf(validateRules(patch(base, changes), releaseFor(version)))).toEqual(withServed(version, render(expected), patch(base, changes))),
  );
});

describe.each(['v1', 'v1beta1', 'v1alpha1'])('MutatingAdmissionPolicyBinding %s', (version) => {
  const base = { ...mapb, apiVersion: `admissionregistration.k8s.io/${version}` };
  it.each([...commonCases, ...mapbCases])('%s', (_t, changes, expected) =>
    expect(pairsOf(validateRules(patch(base, changes), releaseFor(version)))).toEqual(withServed(version, render(expected), patch(base, changes))),
  );
});

describe('binding messages', () => {
  const messages = (base: object, changes: Record<string, unknown>) => validateRules(patch(base, changes)).map((e) => `${e.field}: ${e.message}`);
  it('parameterNotFoundAction keeps the source order', () =>
    expect(messages(vapb, { [PR]: { name: 'a', parameterNotFoundAction: 'x' } })).toEqual([
      'spec.paramRef.parameterNotFoundAction: Unsupported value: "x": supported values: "Deny", "Allow"',
    ]));
  it('one of name or selector', () =>
    expect(messages(vapb, { [PR]: { parameterNotFoundAction: 'Deny' } })).toEqual([
      'spec.paramRef: Required value: one of name or selector must be specified',
    ]));
  it('mutually exclusive', () =>
    expect(messages(vapb, { [PR]: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } })).toEqual([
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
    ]));
  it('Deny and Warn', () =>
    expect(messages(vapb, { 'spec.validationActions': ['Deny', 'Warn'] })).toEqual([
      'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]));
  it('Deny and Warn at 1.33 (bad values in Go %#v before 1.34)', () =>
    expect(
      validateRules(patch(vapb, { 'spec.validationActions': ['Deny', 'Warn'] }), { kubernetesVersion: '1.33' }).map((e) => `${e.field}: ${e.message}`),
    ).toEqual([
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]));
  it("at least one action (1.37: declarative validation's words; 1.36: the handwritten ones)", () => {
    expect(messages(vapb, { 'spec.validationActions': [] })).toEqual(['spec.validationActions: Required value']);
    expect(validateRules(patch(vapb, { 'spec.validationActions': [] }), { kubernetesVersion: '1.36' }).map((e) => `${e.field}: ${e.message}`)).toEqual([
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
  });
  it('action NotSupported', () =>
    expect(messages(vapb, { 'spec.validationActions': ['Block'] })).toEqual([
      'spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
    ]));
  it('paramRef name', () =>
    expect(messages(vapb, { [PR]: { name: '..', parameterNotFoundAction: 'Deny' } })).toEqual([`spec.paramRef.name: Invalid value: "..": may not be '..'`]));
});
