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
