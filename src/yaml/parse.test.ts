import { describe, expect, test } from 'vitest';
import { parseDocuments } from './index';

describe('parseDocuments: documents', () => {
  test('multi-document YAML, empty documents skipped, comments allowed', () => {
    const text = '# head\n---\napiVersion: v1\nkind: A # trailing\n---\n---\n# only a comment\n---\napiVersion: v1\nkind: B\n';
    const r = parseDocuments(text);
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => d.object)).toEqual([
      { apiVersion: 'v1', kind: 'A' },
      { apiVersion: 'v1', kind: 'B' },
    ]);
    expect(r.documents.map((d) => d.documentIndex)).toEqual([0, 3]);
    expect(r.documents[1]!.source.startLine).toBe(9);
  });

  test('JSON document', () => {
    const r = parseDocuments('{\n\t"apiVersion": "v1",\n\t"kind": "A",\n\t"n": 12345678901234567890\n}\n');
    expect(r.errors).toEqual([]);
    expect(r.documents[0]!.object).toEqual({ apiVersion: 'v1', kind: 'A', n: 12345678901234567890n });
  });

  test('Helm nulls are kept as null', () => {
    const r = parseDocuments('kind: X\nnamespaceSelector: null\nrules:\nobjectSelector: ~\n');
    expect(r.documents[0]!.object).toEqual({ kind: 'X', namespaceSelector: null, rules: null, objectSelector: null });
  });
});
