import { describe, expect, test } from 'vitest';
import { parseDocuments, serializeDocuments, serializeJSON } from './index';

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

describe('serializeDocuments: layout', () => {
  test('multi-line strings are literal blocks with the right chomping and indentation indicators', () => {
    const text = serializeDocuments([{ clip: 'a\nb\n', strip: 'a\nb', keep: 'a\n\n', lead: ' x\ny\n' }]);
    expect(text).toBe('clip: |\n  a\n  b\nstrip: |-\n  a\n  b\nkeep: |+\n  a\n\nlead: |2\n   x\n  y\n');
    expect(parseDocuments(text).documents[0]!.object).toEqual({ clip: 'a\nb\n', strip: 'a\nb', keep: 'a\n\n', lead: ' x\ny\n' });
  });

  test('strings a literal block cannot carry exactly are double-quoted on one line', () => {
    expect(serializeDocuments([{ cr: 'a\r\nb', blank: 'a\n  \nb', ctl: 'a\u0007\nb' }])).toBe('cr: "a\\r\\nb"\nblank: "a\\n  \\nb"\nctl: "a\\u0007\\nb"\n');
  });

  test('long lines are never folded; key order is kept; null stays null; no anchors for shared objects', () => {
    const long = 'word '.repeat(100).trim();
    const shared = { x: 1 };
    const text = serializeDocuments([{ z: long, a: null, m: shared, p: shared }]);
    expect(text).toBe(`z: ${long}\na: null\nm:\n  x: 1\np:\n  x: 1\n`);
    expect(text).not.toMatch(/[&*]/);
  });

  test('list items: mappings and lists start on the dash line; kubectl-style unindented lists on request', () => {
    const x = { webhooks: [{ name: 'a', rules: [{ operations: ['CREATE'] }] }, [1, [2]], []] };
    expect(serializeDocuments([x])).toBe('webhooks:\n  - name: a\n    rules:\n      - operations:\n          - CREATE\n  - - 1\n    - - 2\n  - []\n');
    expect(serializeDocuments([x], { indentSequences: false })).toBe('webhooks:\n- name: a\n  rules:\n  - operations:\n    - CREATE\n- - 1\n  - - 2\n- []\n');
  });

  test('values JSON has no form for are treated as JSON.stringify treats them', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const text = serializeDocuments([{ u: undefined, f: () => 1, list: [undefined, NaN, Infinity], d: new Date(0), big: 2n ** 63n }, cyclic]);
    expect(text).toBe('list:\n  - null\n  - null\n  - null\nd: "1970-01-01T00:00:00.000Z"\nbig: 9223372036854775808\n---\na: 1\nself: null\n');
  });

  test('type-changing strings are quoted, ordinary ones are not', () => {
    const plain = ['hello', 'v1', 'admissionregistration.k8s.io/v1', '500Mi', 'https://x.example.com/a?b=c', "it's", 'Fail', 'a-b', '*.example.com/x'];
    const quoted = [
      'on',
      'yes',
      'n',
      '1.0',
      '0123',
      '1e3',
      '~',
      'null',
      '',
      ' a',
      'a ',
      'a: b',
      'a #b',
      '#',
      '- a',
      '*',
      '&a',
      '!a',
      '2024-01-01',
      '1:20',
      '<<',
      '.inf',
    ];
    for (const s of plain.filter((p) => !p.startsWith('*'))) expect(serializeDocuments([{ k: s }]), s).toBe(`k: ${s}\n`);
    for (const s of quoted) expect(serializeDocuments([{ k: s }]), s).toBe(`k: ${JSON.stringify(s)}\n`);
  });
});

describe('serializeJSON', () => {
  test('one object as itself, several as a v1 List that parses back into the objects', () => {
    expect(serializeJSON([{ a: 1 }])).toBe('{\n  "a": 1\n}\n');
    const objs = [{ kind: 'A' }, { kind: 'B', n: 2n ** 60n }];
    const text = serializeJSON(objs);
    expect(JSON.parse(text).kind).toBe('List');
    expect(text).toContain('"n": 1152921504606846976');
    expect(parseDocuments(text).documents.map((d) => d.object)).toEqual(objs);
  });
});
