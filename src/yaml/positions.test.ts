import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fieldPath } from '../base/path';
import { documentAt, parseDocuments, pathAt, pathAtLineColumn, positionOf, type SourceRange } from './index';
import { formatPath } from '../base/path-format';

const fixture = (name: string) => readFileSync(resolve(__dirname, 'fixtures', name), 'utf8');

/** The text a range covers. */
const cut = (text: string, r: SourceRange | undefined) => (r ? text.slice(r.startOffset, r.endOffset) : undefined);

const WEBHOOK = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
  labels:
    app: demo
    example.com/team: "platform"
webhooks:
  - name: a.example.com
    clientConfig:
      url: "https://a.example.com/validate"
    rules:
      - operations: [CREATE, UPDATE]
        resources: ["pods"]
      - operations:
          - DELETE
    namespaceSelector:
    caBundle: |
      LS0t
      LS0t
  - name: b.example.com
`;

describe('positionOf', () => {
  const doc = parseDocuments(WEBHOOK).documents[0]!;

  test('nested paths: key and value ranges, quotes included', () => {
    const p = positionOf(doc, 'webhooks[0].clientConfig.url');
    expect(p.exact).toBe(true);
    expect(p.path).toBe('webhooks[0].clientConfig.url');
    expect(p.key).toMatchObject({ startLine: 11, startColumn: 7, endLine: 11, endColumn: 10 });
    expect(p.value).toMatchObject({ startLine: 11, startColumn: 12, endLine: 11 });
    expect(cut(WEBHOOK, p.value)).toBe('"https://a.example.com/validate"');
  });

  test('list items and flow sequences', () => {
    expect(cut(WEBHOOK, positionOf(doc, 'webhooks[0].rules[0].operations[1]').value)).toBe('UPDATE');
    expect(cut(WEBHOOK, positionOf(doc, 'webhooks[0].rules[0].operations').value)).toBe('[CREATE, UPDATE]');
    expect(cut(WEBHOOK, positionOf(doc, 'webhooks[0].rules[1].operations[0]').value)).toBe('DELETE');
    const item = positionOf(doc, 'webhooks[1]');
    expect(item.key).toBeUndefined();
    expect(item.value.startLine).toBe(21);
    expect(cut(WEBHOOK, positionOf(doc, 'webhooks[1].name').value)).toBe('b.example.com');
  });

  test('segments, FieldPath objects and map-entry paths are all accepted', () => {
    expect(cut(WEBHOOK, positionOf(doc, ['webhooks', 0, 'name']).value)).toBe('a.example.com');
    expect(cut(WEBHOOK, positionOf(doc, String(fieldPath('webhooks').index(0).child('name'))).value)).toBe('a.example.com');
    const label = positionOf(doc, 'metadata.labels[example.com/team]');
    expect(label.exact).toBe(true);
    expect(label.path).toBe('metadata.labels[example.com/team]');
    expect(cut(WEBHOOK, label.key)).toBe('example.com/team');
    expect(cut(WEBHOOK, label.value)).toBe('"platform"');
    expect(positionOf(doc, 'metadata.labels.app').path).toBe('metadata.labels[app]');
  });

  test('a null value has an empty range right after its key; block scalars cover their header', () => {
    const p = positionOf(doc, 'webhooks[0].namespaceSelector');
    expect(p.exact).toBe(true);
    expect(p.value.startOffset).toBe(p.value.endOffset);
    expect(p.value.startOffset).toBe(p.key!.endOffset);
    expect(cut(WEBHOOK, positionOf(doc, 'webhooks[0].caBundle').value)).toBe('|\n      LS0t\n      LS0t');
  });

  test('a missing path falls back to the nearest existing ancestor', () => {
    const p = positionOf(doc, 'webhooks[0].clientConfig.service.name');
    expect(p.exact).toBe(false);
    expect(p.path).toBe('webhooks[0].clientConfig');
    expect(cut(WEBHOOK, p.key)).toBe('clientConfig');
    expect(positionOf(doc, 'webhooks[7].name')).toMatchObject({ exact: false, path: 'webhooks' });
    expect(positionOf(doc, 'webhooks[0].namespaceSelector.matchLabels')).toMatchObject({ exact: false, path: 'webhooks[0].namespaceSelector' });
    const root = positionOf(doc, 'spec');
    expect(root).toMatchObject({ exact: false, path: '', segments: [] });
    expect(root.key).toBeUndefined();
    expect(root.value.startLine).toBe(1);
    expect(positionOf(doc, '')).toMatchObject({ exact: true, path: '' });
  });
});

describe('pathAt', () => {
  const doc = parseDocuments(WEBHOOK).documents[0]!;
  const off = (needle: string, delta = 0) => WEBHOOK.indexOf(needle) + delta;

  test('on keys and on values', () => {
    expect(pathAt(doc, off('url:', 1))).toEqual({ path: 'webhooks[0].clientConfig.url', segments: ['webhooks', 0, 'clientConfig', 'url'], part: 'key' });
    expect(pathAt(doc, off('https://a', 3))).toMatchObject({ path: 'webhooks[0].clientConfig.url', part: 'value' });
    expect(pathAt(doc, off('UPDATE', 2))).toMatchObject({ path: 'webhooks[0].rules[0].operations[1]', part: 'value' });
    expect(pathAt(doc, off('LS0t\n      LS0t', 8))).toMatchObject({ path: 'webhooks[0].caBundle', part: 'value' });
    expect(pathAt(doc, off('team'))).toMatchObject({ path: 'metadata.labels[example.com/team]', part: 'key' });
  });

  test('the `- ` of a block item belongs to that item', () => {
    expect(pathAt(doc, off('- name: b'))).toMatchObject({ path: 'webhooks[1]' });
    expect(pathAt(doc, off('- operations: [CREATE'))).toMatchObject({ path: 'webhooks[0].rules[0]' });
  });

  test('by line and column, and outside the document', () => {
    expect(pathAtLineColumn(doc, 11, 14)).toMatchObject({ path: 'webhooks[0].clientConfig.url', part: 'value' });
    expect(pathAtLineColumn(doc, 4, 3)).toMatchObject({ path: 'metadata.name', part: 'key' });
    expect(pathAtLineColumn(doc, 1, 1)).toMatchObject({ path: 'apiVersion', part: 'key' });
    expect(pathAt(doc, WEBHOOK.length + 10)).toBeUndefined();
  });

  test('positionOf and pathAt agree on every key of the corpus-like fixture', () => {
    const text = fixture('helm-nulls.yaml');
    const d = parseDocuments(text).documents[0]!;
    for (const path of ['metadata.name', 'webhooks[0].clientConfig.service.port', 'webhooks[0].rules[0].operations[1]', 'webhooks[0].objectSelector']) {
      const p = positionOf(d, path);
      expect(p.exact, path).toBe(true);
      const start = (p.key ?? p.value).startOffset;
      expect(pathAt(d, start)?.path, path).toBe(path);
    }
  });
});

describe('positions in flow style (KYAML), JSON and multi-document text', () => {
  test('KYAML', () => {
    const text = fixture('kyaml.yaml');
    const d = parseDocuments(text).documents[0]!;
    const p = positionOf(d, 'spec.matchConstraints.resourceRules[0].operations[1]');
    expect(p.exact).toBe(true);
    expect(cut(text, p.value)).toBe('"UPDATE"');
    const rules = positionOf(d, 'spec.matchConstraints.resourceRules');
    expect(cut(text, rules.value)).toMatch(/^\[\{[\s\S]*\}\]$/);
    expect(cut(text, positionOf(d, 'spec.validations[0]').value)).toMatch(/^\{\n\s+expression: "object.spec.replicas <= 5",[\s\S]*\}$/);
    expect(pathAt(d, text.indexOf('deployments') + 2)).toMatchObject({ path: 'spec.matchConstraints.resourceRules[0].resources[0]', part: 'value' });
    expect(pathAt(d, text.indexOf('failurePolicy') + 2)).toMatchObject({ path: 'spec.failurePolicy', part: 'key' });
  });

  test('one-line KYAML', () => {
    const text = '{apiVersion: v1, kind: X, webhooks: [{name: a}, {name: b, rules: [{operations: [CREATE]}]}]}';
    const d = parseDocuments(text).documents[0]!;
    expect(cut(text, positionOf(d, 'webhooks[1].name').value)).toBe('b');
    expect(cut(text, positionOf(d, 'webhooks[1].name').key)).toBe('name');
    expect(cut(text, positionOf(d, 'webhooks[1]').value)).toBe('{name: b, rules: [{operations: [CREATE]}]}');
    expect(cut(text, positionOf(d, 'webhooks[1].rules[0].operations').value)).toBe('[CREATE]');
    expect(pathAt(d, text.indexOf('CREATE'))).toMatchObject({ path: 'webhooks[1].rules[0].operations[0]' });
  });

  test('multi-document: each document maps its own paths; documentAt finds the document of an offset', () => {
    const text = 'kind: A\nspec:\n  x: 1\n---\n# second\nkind: B\nspec:\n  x: 2\n';
    const r = parseDocuments(text);
    const [a, b] = r.documents;
    expect(positionOf(a!, 'spec.x').value.startLine).toBe(3);
    expect(positionOf(b!, 'spec.x').value.startLine).toBe(8);
    expect(documentAt(r.documents, text.lastIndexOf('x: 2'))).toBe(b);
    expect(documentAt(r.documents, text.indexOf('x: 1'))).toBe(a);
    expect(pathAt(b!, text.indexOf('x: 1'))).toBeUndefined();
    // a comment line belongs to the document around it
    expect(documentAt(r.documents, text.indexOf('# second'))).toBe(b);
    expect(pathAt(b!, text.indexOf('# second'))).toMatchObject({ path: '' });
  });

  test('List items in a JSON List', () => {
    const text = '{"apiVersion": "v1", "kind": "List", "items": [\n  {"kind": "A"},\n  {"kind": "B", "spec": {"x": 1}}\n]}';
    const r = parseDocuments(text);
    const b = r.documents[1]!;
    expect(cut(text, positionOf(b, 'spec.x').value)).toBe('1');
    expect(positionOf(b, 'spec.x').value.startLine).toBe(3);
    expect(cut(text, b.source as SourceRange)).toBe('{"kind": "B", "spec": {"x": 1}}');
    expect(documentAt(r.documents, text.indexOf('"B"'))).toBe(b);
  });

  test('errors on missing required fields can point at the parent', () => {
    const text = 'kind: ValidatingWebhookConfiguration\nwebhooks:\n- name: a\n  clientConfig: {}\n';
    const d = parseDocuments(text).documents[0]!;
    const p = positionOf(d, 'webhooks[0].clientConfig.url');
    expect(p).toMatchObject({ exact: false, path: 'webhooks[0].clientConfig' });
    expect(cut(text, p.value)).toBe('{}');
  });
});

test('formatPath renders map entries as keys, fields as children', () => {
  expect(formatPath(['metadata', 'labels', 'app'])).toBe('metadata.labels[app]');
  expect(formatPath(['metadata', 'annotations', 'example.com/x'])).toBe('metadata.annotations[example.com/x]');
  expect(formatPath(['webhooks', 0, 'namespaceSelector', 'matchLabels', 'team'])).toBe('webhooks[0].namespaceSelector.matchLabels[team]');
  expect(formatPath(['spec', 'paramRef', 'name'])).toBe('spec.paramRef.name');
});
