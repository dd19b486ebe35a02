import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MAX_ALIAS_EXPANSION, MAX_DOCUMENTS, MAX_PROBLEMS_PER_DOCUMENT, MAX_TEXT_LENGTH, parseDocuments, splitDocuments } from './index';

const fixture = (name: string) => readFileSync(resolve(__dirname, 'fixtures', name), 'utf8');

/** 1-based line/column of the n-th (0-based) occurrence of `needle`. */
function at(text: string, needle: string, n = 0): { line: number; column: number } {
  let i = -1;
  for (let k = 0; k <= n; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`${needle} not found`);
  }
  const before = text.slice(0, i);
  const line = before.split('\n').length;
  return { line, column: i - before.lastIndexOf('\n') };
}

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
    // documentSource: the whole document, its `---` and comments included; documentIndex indexes splitDocuments
    const second = r.documents[1]!.documentSource;
    expect(text.slice(second.startOffset, second.endOffset)).toBe('---\napiVersion: v1\nkind: B\n');
    const chunks = splitDocuments(text);
    expect(chunks).toHaveLength(4);
    expect(text.slice(chunks[0]!.start, chunks[0]!.end)).toBe('# head\n---\napiVersion: v1\nkind: A # trailing\n');
    expect(text.slice(chunks[2]!.start, chunks[2]!.end)).toBe('---\n# only a comment\n');
  });

  test('document end markers and directives', () => {
    const r = parseDocuments('kind: A\n...\n%YAML 1.2\n---\nkind: B\n...\n');
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'A' }, { kind: 'B' }]);
  });

  test('a JSON document, tabs and all; big integers are not rounded', () => {
    const r = parseDocuments('{\n\t"apiVersion": "v1",\n\t"kind": "A",\n\t"n": 12345678901234567890\n}\n');
    expect(r.errors).toEqual([]);
    expect(r.documents[0]!.object).toEqual({ apiVersion: 'v1', kind: 'A', n: 12345678901234567890n });
  });

  test('JSON fixture, with positions', () => {
    const text = fixture('webhook.json');
    const r = parseDocuments(text);
    expect(r.errors).toEqual([]);
    const doc = r.documents[0]!;
    expect((doc.object as { metadata: unknown }).metadata).toEqual({ name: 'from-json', labels: { on: 'yes' } });
    const p = doc.positions.positionOf('webhooks[0].timeoutSeconds');
    expect(p.exact).toBe(true);
    expect({ line: p.value.startLine, column: p.value.startColumn }).toEqual(at(text, '5,'));
    expect({ line: p.key!.startLine, column: p.key!.startColumn }).toEqual(at(text, '"timeoutSeconds"'));
  });

  test('a top-level JSON array is a clear error (use a List), not silently unwrapped', () => {
    const r = parseDocuments('[{"kind": "A"}, {"kind": "B"}]');
    expect(r.documents).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ line: 1, column: 1, documentIndex: 0 });
    expect(r.errors[0]!.message).toMatch(/is a list, not a Kubernetes object.*kind: List/);
  });

  test('Helm nulls are kept as null; empty trailing documents skipped', () => {
    const r = parseDocuments(fixture('helm-nulls.yaml'));
    expect(r.errors).toEqual([]);
    expect(r.documents).toHaveLength(1);
    const o = r.documents[0]!.object as Record<string, any>;
    expect(o.metadata.annotations).toBeNull();
    expect(o.metadata.labels['app.kubernetes.io/version']).toBe('1.0');
    const w = o.webhooks[0];
    expect(w.namespaceSelector).toBeNull();
    expect(w.objectSelector).toBeNull();
    expect(w.reinvocationPolicy).toBeNull();
    expect('reinvocationPolicy' in w).toBe(true);
    expect(w.clientConfig.caBundle).toBe('');
    expect(w.rules[0].scope).toBe('*');
    expect(w.timeoutSeconds).toBe(10);
  });

  test('KYAML flow style with trailing commas', () => {
    const r = parseDocuments(fixture('kyaml.yaml'));
    expect(r.errors).toEqual([]);
    const o = r.documents[0]!.object as Record<string, any>;
    expect(o.kind).toBe('ValidatingAdmissionPolicy');
    expect(o.spec.matchConstraints.resourceRules[0].operations).toEqual(['CREATE', 'UPDATE']);
    expect(o.spec.validations[0].expression).toBe('object.spec.replicas <= 5');
  });

  test('multi-line caBundle: literal keeps newlines, folded joins with a space', () => {
    const r = parseDocuments(fixture('multiline-cabundle.yaml'));
    expect(r.errors).toEqual([]);
    const o = r.documents[0]!.object as Record<string, any>;
    expect(o.webhooks[0].clientConfig.caBundle).toBe('LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCK3dJSkFL\nLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=\n');
    expect(o.webhooks[1].clientConfig.caBundle).toBe('LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t Cg==');
  });
});

describe('parseDocuments: kind List', () => {
  test('v1 List is unwrapped; items know their List and point into the original text', () => {
    const text = fixture('v1-list.yaml');
    const r = parseDocuments(text);
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => (d.object as { metadata: { name: string } }).metadata.name)).toEqual(['first', 'second']);
    const [a, b] = r.documents;
    expect(a!.fromList).toMatchObject({ kind: 'List', itemIndex: 0, envelope: { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' } } });
    expect(b!.fromList?.itemIndex).toBe(1);
    expect(a!.fromList!.listSource.startLine).toBe(2);
    expect(a!.documentIndex).toBe(0);
    expect(b!.documentIndex).toBe(0);
    // paths are relative to the item
    const url = a!.positions.positionOf('webhooks[0].clientConfig.url');
    expect(url.exact).toBe(true);
    expect({ line: url.value.startLine, column: url.value.startColumn }).toEqual(at(text, 'https://first'));
    expect(b!.positions.positionOf('kind').key!.startLine).toBe(at(text, 'kind: Mutating').line);
    expect(b!.source.startLine).toBe(at(text, 'apiVersion', 2).line);
    // a point inside item 1 is item 1's, and item 0 does not claim it
    const off = text.indexOf('name: second') + 7;
    expect(b!.positions.pathAt(off)).toMatchObject({ path: 'metadata.name', part: 'value' });
    expect(a!.positions.pathAt(off)).toBeUndefined();
  });

  test('*List kinds are unwrapped; items: null is an empty List; a non-list items is an error', () => {
    const r = parseDocuments(
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfigurationList\nitems:\n- kind: ValidatingWebhookConfiguration\n' +
        '---\nkind: List\nitems:\n---\nkind: List\nitems: 3\n',
    );
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'ValidatingWebhookConfiguration' }]);
    expect(r.documents[0]!.fromList!.kind).toBe('ValidatingWebhookConfigurationList');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ line: 10, column: 8, documentIndex: 2, path: 'items' });
    expect(r.errors[0]!.message).toMatch(/items .* must be a list/);
  });

  test('a List item that is not an object is an error at that item; the others survive', () => {
    const r = parseDocuments('kind: List\nitems:\n- kind: A\n- just text\n- kind: B\n');
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'A' }, { kind: 'B' }]);
    expect(r.errors).toEqual([expect.objectContaining({ line: 4, column: 3, path: 'items[1]' })]);
    expect(r.errors[0]!.message).toMatch(/Item 1 of the List is a string/);
  });

  test('unwrapLists: false keeps the List', () => {
    const r = parseDocuments('kind: List\nitems: [{kind: A}]\n', { unwrapLists: false });
    expect(r.documents[0]!.object).toEqual({ kind: 'List', items: [{ kind: 'A' }] });
  });
});

describe('parseDocuments: bad input', () => {
  test('a syntax error is reported with line and column, and the other documents still parse', () => {
    const text = 'kind: A\n---\nkind: B\nspec:\n  a: 1\n b: 2\n---\nkind: C\n';
    const r = parseDocuments(text);
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'A' }, { kind: 'C' }]);
    expect(r.documents.map((d) => d.documentIndex)).toEqual([0, 2]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ line: 6, column: 2, documentIndex: 1 });
    expect(r.errors[0]!.message).toMatch(/^YAML syntax error: .*indentation/);
  });

  test('several broken documents among good ones: each error is in its own document, every good one survives', () => {
    const good = (i: number) => `kind: Good${i}\n`;
    const parts = [good(0), 'a: [1\n', good(2), 'b: "unclosed\n', good(4), good(5), 'c:\n  - x\n y: 1\n', good(7)];
    const text = parts.join('---\n');
    const r = parseDocuments(text);
    expect(r.documents.map((d) => [d.documentIndex, (d.object as { kind: string }).kind])).toEqual([
      [0, 'Good0'],
      [2, 'Good2'],
      [4, 'Good4'],
      [5, 'Good5'],
      [7, 'Good7'],
    ]);
    expect(r.errors.map((e) => e.documentIndex)).toEqual([1, 3, 6]);
    for (const e of r.errors) expect(e.message).toMatch(/^YAML syntax error/);
    // each error's line is inside its own document
    const chunks = splitDocuments(text);
    for (const e of r.errors) {
      const c = chunks[e.documentIndex!]!;
      const firstLine = text.slice(0, c.start).split('\n').length;
      const lastLine = text.slice(0, c.end - 1).split('\n').length;
      expect(e.line).toBeGreaterThanOrEqual(firstLine);
      expect(e.line).toBeLessThanOrEqual(lastLine);
    }
  });

  test('many documents parse in one go, and there is a documented limit on their number', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `kind: K\nmetadata: {name: n${i}}\n`).join('---\n');
    const r = parseDocuments(text);
    expect(r.errors).toEqual([]);
    expect(r.documents).toHaveLength(5000);
    expect(r.documents[4999]!.documentIndex).toBe(4999);
    const tooMany = parseDocuments('kind: A\n---\n'.repeat(MAX_DOCUMENTS + 1));
    expect(tooMany.documents).toEqual([]);
    expect(tooMany.errors).toEqual([expect.objectContaining({ line: 1, column: 1 })]);
    expect(tooMany.errors[0]!.message).toMatch(/more than 10,000 documents/);
  });

  test('an unclosed bracket at the end of a document points at that document, not the next one', () => {
    const r = parseDocuments('kind: A\nlist: [1, 2\n---\nkind: B\n');
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'B' }]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.line).toBeLessThanOrEqual(2);
    expect(r.errors[0]!.documentIndex).toBe(0);
  });

  test('an unclosed quote', () => {
    const r = parseDocuments('kind: A\nname: "abc\n');
    expect(r.documents).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/YAML syntax error/);
    expect(r.errors[0]!.line).toBeGreaterThanOrEqual(2);
  });

  test('tabs used for indentation', () => {
    const r = parseDocuments('kind: A\nspec:\n\tname: x\n');
    expect(r.documents).toEqual([]);
    expect(r.errors[0]).toMatchObject({ line: 3, documentIndex: 0 });
  });

  test('duplicate keys: the last value is read, reported at its key with the earlier one named (no error)', () => {
    const text = 'kind: A\nmetadata:\n  name: one\n  labels: {a: 1}\n  name: two\n';
    const r = parseDocuments(text);
    expect(r.errors).toEqual([]);
    expect(r.documents[0]!.object).toEqual({ kind: 'A', metadata: { labels: { a: 1 }, name: 'two' } });
    expect(r.duplicateKeys).toEqual([
      expect.objectContaining({ line: 5, column: 3, endLine: 5, endColumn: 7, documentIndex: 0, path: 'metadata.name', key: 'name', syntax: 'yaml' }),
    ]);
    expect(r.duplicateKeys[0]!.message).toBe('Duplicate key "name": already given at line 3, column 3; the last value is the one read');
    // positions are the kept value's, and the earlier occurrence is no field
    const positions = r.documents[0]!.positions;
    expect(positions.positionOf('metadata.name').value).toMatchObject({ startLine: 5, startColumn: 9, endColumn: 12 });
    expect(positions.pathAtLineColumn(3, 9)?.path).toBe('metadata');
    expect(positions.pathAtLineColumn(5, 9)?.path).toBe('metadata.name');
  });

  test('duplicate keys in JSON: the last value, its position, a json finding', () => {
    const r = parseDocuments('{"kind": "A", "metadata": {"name": "a", "name": "b"}, "kind": "B"}');
    expect(r.errors).toEqual([]);
    expect(r.documents[0]!.object).toEqual({ metadata: { name: 'b' }, kind: 'B' });
    expect(r.duplicateKeys.map((d) => [d.path, d.key, d.syntax, d.line, d.column])).toEqual([
      ['metadata.name', 'name', 'json', 1, 41],
      ['kind', 'kind', 'json', 1, 55],
    ]);
    expect(r.documents[0]!.positions.positionOf('kind').value).toMatchObject({ startColumn: 63 });
  });

  test('a document with thousands of problems lists the first 100 and says so', () => {
    const r = parseDocuments(Array.from({ length: 500 }, (_, i) => `k${i}: !!binary x\n`).join(''));
    expect(r.errors).toHaveLength(MAX_PROBLEMS_PER_DOCUMENT + 1);
    expect(r.errors[0]).toMatchObject({ line: 1, column: 14 });
    expect(r.errors[MAX_PROBLEMS_PER_DOCUMENT]!.message).toMatch(/only the first 100 are/);
    // keys given 500 times: the first 100 listed, the last value read
    const d = parseDocuments('a: 1\n'.repeat(500) + 'a: 2\n');
    expect(d.errors).toEqual([]);
    expect(d.duplicateKeys).toHaveLength(MAX_PROBLEMS_PER_DOCUMENT);
    expect(d.documents[0]!.object).toEqual({ a: 2 });
  });

  test('duplicate keys in flow style, after key conversion (on and "true"), nested: in text order', () => {
    const r = parseDocuments('{kind: A, kind: B}\n---\nlabels:\n  on: x\n  "true": z\n---\na: 1\na:\n  b: 1\n  b: 2\n');
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'B' }, { labels: { true: 'z' } }, { a: { b: 2 } }]);
    expect(r.duplicateKeys.map((e) => [e.line, e.column, e.documentIndex, e.path])).toEqual([
      [1, 11, 0, 'kind'],
      [5, 3, 1, 'labels[true]'],
      [8, 1, 2, 'a'],
      [10, 3, 2, 'a.b'],
    ]);
  });

  test('a duplicate key in a document with another error: only the error (the document is not read)', () => {
    const r = parseDocuments('a: 1\na: 2\nb: !!binary x\n');
    expect(r.documents).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.duplicateKeys).toEqual([]);
  });

  test.each([
    ['a scalar', 'just some text\n', /is a piece of text, not a Kubernetes object/],
    ['a number', '42\n', /is a number, not a Kubernetes object/],
    ['a list', '- kind: A\n- kind: B\n', /is a list, not a Kubernetes object/],
    ['a key without colon', 'apiVersion v1\n', /is a piece of text.*missing its colon/],
  ])('a document that is %s is a per-document error', (_name, doc, message) => {
    const r = parseDocuments(`kind: Before\n---\n${doc}---\nkind: After\n`);
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'Before' }, { kind: 'After' }]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ line: 3, column: 1, documentIndex: 1 });
    expect(r.errors[0]!.message).toMatch(message);
  });

  test('billion laughs is refused at the expansion limit with a clear message', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(
        `${name}: &${name} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    }
    const text = `${lines.join('\n')}\n---\nkind: Fine\n`;
    const r = parseDocuments(text);
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'Fine' }]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/aliases in this document expand to more than 10,000 values/);
    expect(r.errors[0]).toMatchObject({ documentIndex: 0 });
    expect(r.errors[0]!.line).toBeGreaterThan(1);
    expect(MAX_ALIAS_EXPANSION).toBe(10_000);
  });

  test('modest aliases and merge keys work, and aliases are copies, not shared objects', () => {
    const r = parseDocuments('base: &b {p: 1, q: [1, 2]}\nuse: *b\nmerged:\n  <<: *b\n  p: 2\n');
    expect(r.errors).toEqual([]);
    const o = r.documents[0]!.object as Record<string, any>;
    expect(o.use).toEqual({ p: 1, q: [1, 2] });
    expect(o.merged).toEqual({ p: 2, q: [1, 2] });
    expect(o.use).not.toBe(o.base);
    expect(o.use.q).not.toBe(o.base.q);
  });

  test('an unknown alias is an error', () => {
    const r = parseDocuments('a: *nope\n');
    expect(r.errors[0]).toMatchObject({ line: 1, column: 4 });
    expect(r.errors[0]!.message).toMatch(/Unknown alias \*nope/);
  });

  test('a 50 MB text is refused before parsing with a clear message', () => {
    const text = `kind: A\ndata: ${'x'.repeat(50 * 1024 * 1024)}\n`;
    const r = parseDocuments(text);
    expect(r.documents).toEqual([]);
    expect(r.errors).toEqual([expect.objectContaining({ line: 1, column: 1 })]);
    expect(r.errors[0]!.message).toMatch(/too large to parse \(50\.0 MB; the limit is 10\.0 MB\)/);
    expect(MAX_TEXT_LENGTH).toBe(10 * 1024 * 1024);
  });

  test('maxTextLength can be lowered', () => {
    expect(parseDocuments('kind: A\n', { maxTextLength: 4 }).errors[0]!.message).toMatch(/too large/);
  });

  test.each([
    ['flow', `a: ${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['block', `a:\n${Array.from({ length: 150 }, (_, i) => `${' '.repeat(i + 1)}b${i}:`).join('\n')}\n`],
    ['sequence', `a:\n${'- '.repeat(3000)}x\n`],
  ])('deep %s nesting is bounded with a clear error', (_name, text) => {
    const r = parseDocuments(text);
    expect(r.documents).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/nested more than 100 levels deep/);
  });

  test('.inf and .nan are errors (JSON cannot carry them; Kubernetes rejects them)', () => {
    const r = parseDocuments('kind: A\nspec:\n  x: .inf\n');
    expect(r.errors).toEqual([expect.objectContaining({ line: 3, column: 6, path: 'spec.x' })]);
    expect(r.errors[0]!.message).toMatch(/not a number JSON can carry/);
  });

  test('null keys, complex keys and unsupported tags are errors; custom tags are warnings', () => {
    expect(parseDocuments('~: a\n').errors[0]!.message).toMatch(/null key/);
    expect(parseDocuments('? [a, b]\n: c\n').errors[0]!.message).toMatch(/Only text, numbers or booleans can be keys/);
    expect(parseDocuments('a: !!set x\n').errors[0]!.message).toMatch(/!!set is not supported/);
    expect(parseDocuments('a: !!int abc\n').errors[0]!.message).toMatch(/Cannot read "abc" as !!int/);
    const custom = parseDocuments('a: !custom 12\n');
    expect(custom.errors).toEqual([]);
    expect(custom.documents[0]!.object).toEqual({ a: '12' });
    expect(custom.warnings[0]!.message).toMatch(/tag !custom is ignored/);
  });

  test('never throws, whatever it is given', () => {
    const inputs = ['', '\u0000', '\uFEFF', ':', '- - -', '{', '}', '"', "'", '&a', '*a', '!', '%YAML 9\n---\n', '---\n...\n...', '\r\n\r\n', 'a: b: c'];
    for (const s of inputs) {
      // Internal failures would be caught and reported as "Could not parse the text": there must be none.
      const r = parseDocuments(s);
      for (const e of r.errors) expect(e.message, JSON.stringify(s)).not.toMatch(/^Could not parse the text/);
    }
    expect(parseDocuments(undefined as unknown as string).errors[0]!.message).toMatch(/not text/);
  });
});

describe('parseDocuments: types as Kubernetes (sigs.k8s.io/yaml → go-yaml v2) reads them', () => {
  const value = (yaml: string) => {
    const r = parseDocuments(`v: ${yaml}\n`);
    expect(r.errors).toEqual([]);
    return (r.documents[0]!.object as { v: unknown }).v;
  };

  test.each([
    ['"0123"', '0123'],
    ['"on"', 'on'],
    ["'yes'", 'yes'],
    ['"1.0"', '1.0'],
    ['"null"', 'null'],
    ['""', ''],
    ['2024-01-02', '2024-01-02'],
    ['1.2.3', '1.2.3'],
    ['500Mi', '500Mi'],
    ['NaN', 'NaN'],
    ['1e400', '1e400'],
    ['12:30', '12:30'],
    ['!!str 12', '12'],
  ])('%s is the string %j', (yaml, expected) => {
    expect(value(yaml)).toBe(expected);
  });

  test.each([
    ['on', true],
    ['yes', true],
    ['Y', true],
    ['True', true],
    ['off', false],
    ['no', false],
    ['n', false],
    ['~', null],
    ['null', null],
    ['', null],
    ['10', 10],
    ['-10', -10],
    ['+10', 10],
    ['0123', 83],
    ['0o17', 15],
    ['0x1F', 31],
    ['0b101', 5],
    ['1_000', 1000],
    ['08', 8],
    ['1.0', 1],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['1e3', 1000],
    ['1.', 1],
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['18446744073709551615', 18446744073709551615n],
    ['18446744073709551616', 2 ** 64],
    ['!!float 3', 3],
  ])('%s is %s', (yaml, expected) => {
    expect(value(yaml)).toBe(expected);
  });

  // kubectl's answers (sigs.k8s.io/yaml v1.6.0): go-yaml decodes the base64, json.Marshal writes bytes that are not UTF-8 as U+FFFD each
  test.each([
    ['!!binary Ymlu', 'bin'],
    ['!!binary Ymk=', 'bi'],
    ['!!binary Ymj=', 'bh'],
    ['!!binary "Ym\\nlu"', 'bin'],
    ['!!binary |\n  Ymlu\n  Ymlu', 'binbin'],
    ['!!binary 8J+YgA==', '😀'],
    ['!!binary //79', '\ufffd\ufffd\ufffd'],
    ['!!binary 4oI=', '\ufffd\ufffd'],
    ['!!binary 7aCA', '\ufffd\ufffd\ufffd'],
    ['!!binary', ''],
    ['!<tag:yaml.org,2002:binary> Ymlu', 'bin'],
  ])('%s is the string %j, with a warning that says so', (yaml, expected) => {
    const r = parseDocuments(`v: ${yaml}\n`);
    expect(r.errors).toEqual([]);
    expect((r.documents[0]!.object as { v: unknown }).v).toBe(expected);
    expect(r.warnings).toEqual([expect.objectContaining({ line: 1, path: 'v', message: expect.stringMatching(/^!!binary: Kubernetes decodes the base64/) })]);
  });

  test('!!binary that is not padded base64 is an error, as kubectl refuses it; a !!binary key is decoded too', () => {
    for (const bad of ['Ymk', 'Ym lu', 'Ymlu====', 'Ymk=Ymk=']) {
      const r = parseDocuments(`kind: A\nv: !!binary ${bad}\n`);
      expect(r.documents, bad).toEqual([]);
      expect(r.errors, bad).toEqual([
        expect.objectContaining({ line: 2, column: 13, path: 'v', message: expect.stringMatching(/^!!binary value contains invalid base64 data/) }),
      ]);
    }
    // !!binary Ymlu: 1 → {"bin":1}
    expect(parseDocuments('!!binary Ymlu: 1\n').documents[0]!.object).toEqual({ bin: 1 });
  });

  test('YAML 1.1 readings that surprise are warned about, with position', () => {
    const r = parseDocuments('labels:\n  enabled: on\n  mode: 0644\n  on: x\n  plain: true\n');
    expect(r.errors).toEqual([]);
    expect(r.documents[0]!.object).toEqual({ labels: { enabled: true, mode: 420, true: 'x', plain: true } });
    expect(r.warnings.map((w) => [w.line, w.column, w.path])).toEqual([
      [2, 12, 'labels[enabled]'],
      [3, 9, 'labels[mode]'],
      [4, 3, 'labels[true]'],
    ]);
    expect(r.warnings[0]!.message).toMatch(/on is read by Kubernetes as the boolean true .*quote it/);
    expect(r.warnings[1]!.message).toMatch(/0644 is read by Kubernetes as the number 420/);
    expect(r.warnings[2]!.message).toMatch(/key on is read by Kubernetes as bool true/);
  });

  test('__proto__ is an ordinary key', () => {
    const r = parseDocuments('__proto__: {polluted: 1}\nkind: A\n');
    const o = r.documents[0]!.object as Record<string, unknown>;
    expect(Object.keys(o)).toEqual(['__proto__', 'kind']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
  });

  test('lone CR line endings count as line breaks in positions', () => {
    const r = parseDocuments('kind: A\rspec:\r  x: 1\r');
    expect(r.errors).toEqual([]);
    expect(r.documents[0]!.positions.positionOf('spec.x').value).toMatchObject({ startLine: 3, startColumn: 6 });
  });

  test('CRLF line endings and a BOM', () => {
    const r = parseDocuments('\uFEFFkind: A\r\nspec:\r\n  x: "y"\r\n---\r\nkind: B\r\n');
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => d.object)).toEqual([{ kind: 'A', spec: { x: 'y' } }, { kind: 'B' }]);
    expect(r.documents[0]!.positions.positionOf('spec.x').value).toMatchObject({ startLine: 3, startColumn: 6, endColumn: 9 });
  });
});
