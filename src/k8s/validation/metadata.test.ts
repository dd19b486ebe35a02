import { describe, expect, it } from 'vitest';
import { fieldPath } from '../../base/path';
import { validateMatchResources } from './match-resources';
import { effectiveName, validateObjectMeta } from './metadata';
import { parseGroupVersion, validateParamKind } from './param-kind';
import { pairsOf, render, type Pair } from './testing';

const meta = fieldPath('metadata');

describe('validateObjectMeta', () => {
  it.each<[string, unknown, Pair[]]>([
    ['a dotted name', { name: 'policy.example.com' }, []],
    ['a 253-character name', { name: 'a'.repeat(253) }, []],
    ['a 254-character name', { name: 'a'.repeat(254) }, [['metadata.name', 'Invalid']]],
    ['generateName only', { generateName: 'hook-' }, []],
    ['generateName without a trailing dash', { generateName: 'hook' }, []],
    ['a long generateName is cut to 58 characters before the name is checked', { generateName: `${'a'.repeat(300)}-` }, [['metadata.generateName', 'Invalid']]],
    [
      'generateName "-"',
      { generateName: '-' },
      [
        ['metadata.generateName', 'Invalid'],
        ['metadata.name', 'Invalid'],
      ],
    ],
    ['name wins over generateName', { name: 'x', generateName: 'Bad-' }, [['metadata.generateName', 'Invalid']]],
    ['namespace is ignored (cleared on create)', { name: 'x', namespace: 'Not Valid!' }, []],
    ['creationTimestamp null', { name: 'x', creationTimestamp: null }, []],
    ['empty labels and annotations', { name: 'x', labels: {}, annotations: {} }, []],
    [
      'label value too long and malformed',
      { name: 'x', labels: { a: '-'.repeat(64) } },
      [
        ['metadata.labels', 'Invalid'],
        ['metadata.labels', 'Invalid'],
      ],
    ],
    ['annotation key with upper case prefix', { name: 'x', annotations: { 'Example.COM/Key': 'v' } }, []],
    ['annotation key with two slashes', { name: 'x', annotations: { 'a/b/c': 'v' } }, [['metadata.annotations', 'Invalid']]],
    ['annotations of exactly 256 KiB', { name: 'x', annotations: { a: 'x'.repeat(262143) } }, []],
    [
      'ownerReference apiVersion with two slashes',
      { name: 'x', ownerReferences: [{ apiVersion: 'a/b/c', kind: 'K', name: 'n', uid: 'u' }] },
      [['metadata.ownerReferences[0].apiVersion', 'Invalid']],
    ],
    ['a valid ownerReference', { name: 'x', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: '1', controller: true }] }, []],
    ['valid finalizers', { name: 'x', finalizers: ['example.com/cleanup', 'orphan'] }, []],
    ['metadata missing', undefined, [['metadata.name', 'Required']]],
  ])('%s', (_t, m, expected) => expect(pairsOf(validateObjectMeta(m, meta))).toEqual(render(expected)));

  it('validates the generated name (generateName cut to 58 + 5 characters)', () => {
    expect(effectiveName({ generateName: `${'a'.repeat(100)}` })).toHaveLength(63);
    expect(effectiveName({ name: 'n', generateName: 'g-' })).toBe('n');
    expect(effectiveName({})).toBe('');
  });
  it('words the owner messages as apimachinery does', () => {
    const refs = [1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `c${i}`, uid: `u${i}`, controller: true }));
    expect(validateObjectMeta({ name: 'x', ownerReferences: refs }, meta)[0]!.message).toMatch(
      /: Only one reference can have Controller set to true\. Found "true" in references for ConfigMap\/c1 and ConfigMap\/c2$/,
    );
  });
});

describe('validateMatchResources without defaulting', () => {
  it('requires matchPolicy and both selectors', () =>
    expect(pairsOf(validateMatchResources({}, fieldPath('spec', 'matchConstraints')))).toEqual(
      render([
        ['spec.matchConstraints.matchPolicy', 'Required'],
        ['spec.matchConstraints.namespaceSelector', 'Required'],
        ['spec.matchConstraints.objectSelector', 'Required'],
      ]),
    ));
});

describe('paramKind', () => {
  it.each<[string, { group: string; version: string } | { error: string }]>([
    ['', { group: '', version: '' }],
    ['/', { group: '', version: '' }],
    ['v1', { group: '', version: 'v1' }],
    ['example.com/v1', { group: 'example.com', version: 'v1' }],
    ['a/b/c', { error: 'unexpected GroupVersion string: a/b/c' }],
  ])('parseGroupVersion(%j)', (gv, expected) => expect(parseGroupVersion(gv)).toEqual(expected));
  it.each<[Record<string, unknown>, string[]]>([
    [{ apiVersion: '/', kind: 'K' }, ['spec.paramKind.apiVersion: Invalid value: "/": version must be specified']],
    [
      { apiVersion: 'test.example.com', kind: 'K' },
      [
        `spec.paramKind.apiVersion: Invalid value: "test.example.com": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      { apiVersion: 'v1', kind: 'Lower_case' },
      [
        `spec.paramKind.kind: Invalid value: "Lower_case": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      { apiVersion: `${'a'.repeat(254)}/v1`, kind: 'K' },
      [`spec.paramKind.apiVersion: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`],
    ],
  ])('validateParamKind(%j)', (pk, expected) => {
    expect(validateParamKind(pk, fieldPath('spec', 'paramKind')).map((e) => `${e.field}: ${e.message}`)).toEqual(expected);
  });
});
