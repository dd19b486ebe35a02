import { describe, expect, test } from 'vitest';
import { parseDocuments, serializeDocuments } from './index';

describe('serializeDocuments', () => {
  test('block style, --- between documents, strings quoted only when needed', () => {
    const text = serializeDocuments([
      { apiVersion: 'v1', kind: 'A', data: { on: 'on', n: '0123', f: '1.0', e: '', nul: 'null', plain: 'hello world' } },
      { kind: 'B', list: [1, 'x'], empty: [], obj: {} },
    ]);
    expect(text).toBe(
      'apiVersion: v1\nkind: A\ndata:\n  "on": "on"\n  "n": "0123"\n  f: "1.0"\n  e: ""\n  nul: "null"\n  plain: hello world\n' +
        '---\nkind: B\nlist:\n  - 1\n  - x\nempty: []\nobj: {}\n',
    );
  });

  test('round trip of a small object', () => {
    const x = { kind: 'A', caBundle: 'LS0t\nLS0t\n', n: null, t: true, i: 3, f: 1.5 };
    expect(parseDocuments(serializeDocuments([x])).documents[0]!.object).toEqual(x);
  });
});
