/**
 * Texts that go-yaml v2 (kubectl's reader: sigs.k8s.io/yaml v1.6.0's YAMLToJSON) and js-yaml read
 * differently are read as kubectl reads them. Each expectation is kubectl's answer for its text,
 * noted beside it (its JSON, or its error).
 */
import { describe, expect, test } from 'vitest';
import { parseDocuments } from './index';

const WEBHOOK = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: slash
webhooks:
- name: a.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
`;

describe('escapes in double-quoted scalars', () => {
  test('\\/ is refused, at its line, as kubectl refuses it (yaml: line 9: found unknown escape character)', () => {
    const text = `${WEBHOOK}  clientConfig: {url: "https:\\/\\/example.com\\/x"}\n`;
    const r = parseDocuments(text);
    expect(r.documents).toEqual([]);
    expect(r.errors).toEqual([expect.objectContaining({ line: 9, column: 30, endColumn: 32, path: 'webhooks[0].clientConfig.url', documentIndex: 0 })]);
    expect(r.errors[0]!.message).toMatch(/\\\/ is an escape Kubernetes does not know .*found unknown escape character/);
  });

  test('an escaped backslash before a slash, single quotes and JSON documents are read as kubectl reads them', () => {
    // "x\\/y" → {"a":"x\\/y"}; 'x\/y' → {"a":"x\\/y"}
    expect(parseDocuments('a: "x\\\\/y"\nb: \'x\\/y\'\n').documents[0]!.object).toEqual({ a: 'x\\/y', b: 'x\\/y' });
    // a JSON file is read by kubectl with encoding/json, where \/ is a slash
    expect(parseDocuments('{"a": "x\\/y"}\n').documents[0]!.object).toEqual({ a: 'x/y' });
    // other escapes are unchanged: "\x41\t\u00e9" → {"a":"A\té"}
    expect(parseDocuments('a: "\\x41\\t\\u00e9"\n').documents[0]!.object).toEqual({ a: 'A\té' });
  });
});

describe('tabs', () => {
  test('a document holding only a tab is refused (found character that cannot start any token), the others still read', () => {
    const r = parseDocuments('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\n\t\n');
    expect(r.documents.map((d) => d.object)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }]);
    expect(r.errors).toEqual([expect.objectContaining({ line: 5, column: 1, documentIndex: 1 })]);
    expect(r.errors[0]!.message).toMatch(/a tab starts this line.*found character that cannot start any token/);
  });

  test("before a document's content a line may not start with a tab (kubectl refuses each of these)", () => {
    const cases: [string, number][] = [
      ['\t# lead\na: 1\n', 1],
      ['  \t\na: 1\n', 1],
      ['a: 1\n---\n# c\n\t# c\n---\nb: 1\n', 4],
      ['\ta: 1\n', 1],
    ];
    for (const [text, line] of cases) {
      const r = parseDocuments(text);
      expect(r.errors, JSON.stringify(text)).toEqual([expect.objectContaining({ line, column: line === 1 && text.startsWith('  ') ? 3 : 1 })]);
      expect(r.errors[0]!.message).toMatch(/a tab starts this line/);
    }
  });

  test('tabs kubectl reads as blanks still read: after a marker, after a key, in a comment, before a JSON document', () => {
    // --- \t# c / ---\t / a:\tb / a: 1 # x\ty → {"a":1} / {"a":1} / {"a":"b"} / {"a":1}
    for (const text of ['--- \t# c\na: 1\n', '---\t\na: 1\n', 'a:\tb\n', 'a: 1 # x\ty\n'])
      expect(parseDocuments(text).errors, JSON.stringify(text)).toEqual([]);
    // a JSON file is read with encoding/json, where a tab is a blank
    expect(parseDocuments('\t\n{"a": 1}\n').documents[0]!.object).toEqual({ a: 1 });
  });
});
