/**
 * Texts that go-yaml v2 (kubectl's reader: sigs.k8s.io/yaml v1.6.0's YAMLToJSON) and js-yaml read
 * differently are read as kubectl reads them. Each expectation is kubectl's answer for its text,
 * noted beside it (its JSON, or its error).
 */
import { describe, expect, test } from 'vitest';
import { seededRandom } from '../base/random';
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

  test('a tab before the continuation of a flow collection reads as kubectl reads it, positions in the text', () => {
    const text = `${WEBHOOK}  clientConfig: {url: "https://example.com/x"}\n  rules: [{operations: [CREATE],\n\tapiGroups: [""], apiVersions: [v1], resources: [pods]}]\n`;
    const r = parseDocuments(text);
    expect(r.errors).toEqual([]);
    // kubectl: "rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]
    const hook = (r.documents[0]!.object as { webhooks: { rules: unknown }[] }).webhooks[0]!;
    expect(hook.rules).toEqual([{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }]);
    const pos = r.documents[0]!.positions;
    expect(pos.positionOf('webhooks[0].rules[0].apiGroups').key).toMatchObject({ startLine: 11, startColumn: 2, endColumn: 11 });
    expect(pos.positionOf('webhooks[0].rules[0].resources[0]').value).toMatchObject({ startLine: 11, startColumn: 50, endColumn: 54 });
    expect(pos.positionOf('webhooks[0].rules').value).toMatchObject({ startLine: 10, startColumn: 10, endLine: 11, endColumn: 57 });
  });

  test("a tab before a quoted string's next line reads too; where kubectl refuses the tab, so does the reader", () => {
    // a:\n  b: [1,\n\t2]\n  c: "x\n\ty" → {"a":{"b":[1,2],"c":"x y"}}
    expect(parseDocuments('a:\n  b: [1,\n\t2]\n  c: "x\n\ty"\n').documents[0]!.object).toEqual({ a: { b: [1, 2], c: 'x y' } });
    // a:\n  - [x\n\t, y] → line 3: found a tab character that violates indentation (go-yaml reads on after the plain x)
    // a:\n  - [x\n\ty] → the same; a: |\n  x\n  y\n\t- z → refused by both
    for (const text of ['a:\n  - [x\n\t, y]\n', 'a:\n  - [x\n\ty]\n', 'a:\n  b: [1,\n\t- 2]\n'])
      expect(parseDocuments(text).errors, JSON.stringify(text)).toHaveLength(1);
  });

  test('property: flow collections whose lines start with a tab read as with spaces, each value at its own text', () => {
    const rnd = seededRandom(93);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const scalars = ['x', '"q y"', "'s'", '12', 'true', '""', '*a'];
    const flow = (depth: number): string => {
      const n = 1 + Math.floor(rnd() * 3);
      const items = Array.from({ length: n }, (_, i) => {
        const v = depth < 2 && rnd() < 0.4 ? flow(depth + 1) : pick(scalars);
        return rnd() < 0.5 ? `k${i}: ${v}` : v;
      });
      const map = items.every((it) => it.startsWith('k'));
      return map ? `{${items.join(',\n')}}` : `[${items.map((it) => (it.startsWith('k') ? `{${it}}` : it)).join(',\n')}]`;
    };
    for (let t = 0; t < 200; t++) {
      const body = flow(0);
      const indent = ' '.repeat(2 * (1 + Math.floor(rnd() * 3)));
      const withSpaces = `anchor: &a 1\nouter:\n${indent}v: ${body.replaceAll('\n', `\n${indent}   `)}\n`;
      const withTabs = `anchor: &a 1\nouter:\n${indent}v: ${body.replaceAll('\n', pick(['\n\t', '\n \t', '\n\t\t ']))}\n`;
      const a = parseDocuments(withSpaces);
      const b = parseDocuments(withTabs);
      expect(a.errors, withSpaces).toEqual([]);
      expect(b.errors, withTabs).toEqual([]);
      expect(b.documents[0]!.object).toEqual(a.documents[0]!.object);
      const leaves = (v: unknown, path: string): string[] =>
        Array.isArray(v)
          ? v.flatMap((x, i) => leaves(x, `${path}[${i}]`))
          : v && typeof v === 'object'
            ? Object.entries(v).flatMap(([k, x]) => leaves(x, `${path}.${k}`))
            : [path];
      for (const path of leaves((a.documents[0]!.object as { outer: unknown }).outer, 'outer')) {
        const slice = (text: string, r: typeof a) => {
          const v = r.documents[0]!.positions.positionOf(path).value;
          return text.slice(v.startOffset, v.endOffset);
        };
        expect(slice(withTabs, b), `${path} in ${withTabs}`).toBe(slice(withSpaces, a));
      }
    }
  });
});
