/**
 * A List's items as texts of their own and the List written back around them: untouched, the
 * List comes back byte for byte; an item edited with applyEdits changes only its own lines;
 * items removed or moved still read back as the items. Property-tested on every document of
 * the real-world corpus wrapped into Lists (block at two indentations, and JSON).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fixtureFiles } from '../../fixtures';
import { diffLines } from './line-diff';
import { applyEdits, listItemTexts, listItemTextsOf, parseDocuments, splitDocuments, writeList, type ListItemText } from './index';
import { seededRandom } from '../base/random';

const KUBECTL = `# kubectl get validatingwebhookconfigurations -o yaml, annotated
apiVersion: v1
items:
# the first one
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata:
    name: first   # keep
    labels:
      app: "web"
  webhooks:
  - name: first.example.com
    admissionReviewVersions: ["v1"]
    timeoutSeconds: 10
    clientConfig:
      url: https://first.example.com/validate
    sideEffects: None
    matchConditions:
    - name: not-system
      expression: |
        !request.userInfo.username.startsWith("system:")

  # between the two
- apiVersion: admissionregistration.k8s.io/v1
  kind: MutatingWebhookConfiguration
  metadata: {name: second}
  webhooks: []
kind: List
metadata:
  resourceVersion: ""
`;

const JSON_LIST = `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "a"
            }
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "b"
            }
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
`;

const items = (text: string): unknown[] => parseDocuments(text).documents.map((d) => d.object);
const changed = (a: string, b: string) => diffLines(a, b).filter((l) => l.op !== ' ');

function cut(text: string) {
  const r = listItemTexts(text);
  expect(r, text.slice(0, 200)).toBeDefined();
  return r!;
}

describe('listItemTexts and writeList', () => {
  test('a commented kubectl List: each item is its own document; written back byte-identical', () => {
    const { frame, items: its } = cut(KUBECTL);
    expect(its).toHaveLength(2);
    expect(
      its[0]!.text.startsWith('apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: first   # keep\n'),
    ).toBe(true);
    expect(its[0]!.text).toContain('\n    expression: |\n      !request');
    expect(its[1]!.text).toBe('apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: second}\nwebhooks: []\n');
    expect(its[1]!.gap).toBe('\n  # between the two\n- ');
    expect(its.map((i) => parseDocuments(i.text).documents[0]!.object)).toEqual(items(KUBECTL));
    expect(writeList(frame, its)).toBe(KUBECTL);
  });

  test('an item edited with applyEdits: only its lines change in the List', () => {
    const { frame, items: its } = cut(KUBECTL);
    const r = applyEdits(its[0]!.text, [
      { path: 'webhooks[0].timeoutSeconds', value: 5 },
      { path: 'metadata.labels[team]', value: 'platform' },
    ]);
    expect(r.error).toBeUndefined();
    const out = writeList(frame, [{ ...its[0]!, text: r.text }, its[1]!]);
    expect(changed(KUBECTL, out)).toEqual([
      { op: '+', text: '      team: "platform"' },
      { op: '-', text: '    timeoutSeconds: 10' },
      { op: '+', text: '    timeoutSeconds: 5' },
    ]);
    const want = items(KUBECTL) as Record<string, any>[];
    want[0]!.webhooks[0].timeoutSeconds = 5;
    want[0]!.metadata.labels.team = 'platform';
    expect(items(out)).toEqual(want);
  });

  test('a JSON List (kubectl -o json): items are JSON documents; an edit changes its line', () => {
    const { frame, items: its } = cut(JSON_LIST);
    expect(frame.flow).toBe(true);
    expect(its[1]!.text).toBe('{\n    "apiVersion": "v1",\n    "kind": "ConfigMap",\n    "metadata": {\n        "name": "b"\n    }\n}\n');
    expect(writeList(frame, its)).toBe(JSON_LIST);
    const r = applyEdits(its[1]!.text, [{ path: 'metadata.name', value: 'c' }]);
    const out = writeList(frame, [its[0]!, { ...its[1]!, text: r.text }]);
    expect(changed(JSON_LIST, out)).toEqual([
      { op: '-', text: '                "name": "b"' },
      { op: '+', text: '                "name": "c"' },
    ]);
    expect(JSON.parse(out).items[1].metadata.name).toBe('c');
    // an item removed, or the items moved: still a List of exactly those items
    expect(JSON.parse(writeList(frame, [its[1]!])).items).toEqual([items(JSON_LIST)[1]]);
    expect(JSON.parse(writeList(frame, [its[1]!, its[0]!])).items).toEqual([items(JSON_LIST)[1], items(JSON_LIST)[0]]);
  });

  test('items removed or moved in a block List keep their comment lines', () => {
    const { frame, items: its } = cut(KUBECTL);
    const swapped = writeList(frame, [its[1]!, its[0]!]);
    expect(items(swapped)).toEqual([items(KUBECTL)[1], items(KUBECTL)[0]]);
    expect(swapped).toContain('# between the two');
    expect(items(writeList(frame, [its[1]!]))).toEqual([items(KUBECTL)[1]]);
  });

  test('CRLF, a List without a final line end, flow items in a block list, tags and anchors inside an item', () => {
    const crlf = 'kind: List\r\napiVersion: v1\r\nitems:\r\n  - kind: A\r\n    x: 1\r\n  - kind: B\r\n';
    const c = cut(crlf);
    expect(c.items[0]!.text).toBe('kind: A\r\nx: 1\r\n');
    expect(writeList(c.frame, c.items)).toBe(crlf);
    const bare = 'kind: List\nitems:\n- {kind: A}\n- kind: B\n  y: [1, 2]';
    const b = cut(bare);
    expect(b.items.map((i) => i.text)).toEqual(['{kind: A}\n', 'kind: B\ny: [1, 2]\n']);
    expect(writeList(b.frame, b.items)).toBe(bare);
    expect(writeList(b.frame, [b.items[1]!, b.items[0]!])).toBe('kind: List\nitems:\n- kind: B\n  y: [1, 2]\n- {kind: A}\n');
    const tagged = 'kind: List\nitems:\n- !!map\n  kind: A\n  base: &b {x: 1}\n  use: *b\n';
    const t = cut(tagged);
    expect(writeList(t.frame, t.items)).toBe(tagged);
  });

  test('listItemTextsOf: the same cut from the positions parseDocuments recorded, within a multi-document text', () => {
    const text = `kind: Other\n--- # the List\n${KUBECTL}---\n${JSON_LIST}`;
    const parsed = parseDocuments(text);
    const chunks = splitDocuments(text);
    for (const [i, list] of [
      [1, KUBECTL],
      [2, JSON_LIST],
    ] as const) {
      const from = chunks[i]!.start + (/^---[^\n]*\n/.exec(text.slice(chunks[i]!.start))?.[0].length ?? 0);
      const got = listItemTextsOf(
        text,
        from,
        chunks[i]!.end,
        parsed.documents.filter((d) => d.documentIndex === i),
      );
      expect(got).toEqual(listItemTexts(list));
    }
    // not all the List's items (one of them was not an object): undefined
    const partial = parseDocuments('kind: List\nitems:\n- kind: A\n- 5\n');
    expect(listItemTextsOf('kind: List\nitems:\n- kind: A\n- 5\n', 0, 25, partial.documents)).toBeUndefined();
  });

  test('refused (undefined) where an item cannot stand alone or its indentation could not be put back exactly', () => {
    // an alias to an anchor in another item
    expect(listItemTexts('kind: List\nitems:\n- kind: A\n  x: &a 1\n- kind: B\n  x: *a\n')).toBeUndefined();
    // a line holding only the item's indentation (it would come back empty)
    expect(listItemTexts('kind: List\nitems:\n- kind: A\n  x: |\n    a\n  \n    b\n')).toBeUndefined();
    // a block scalar that keeps its line ends, past the item's last line
    expect(listItemTexts('kind: List\nitems:\n- kind: A\n  x: |+\n    a\n\n- kind: B\n')).toBeUndefined();
    // not one List
    expect(listItemTexts('kind: A\n')).toBeUndefined();
    expect(listItemTexts('kind: List\nitems: []\n')).toBeUndefined();
    expect(listItemTexts('kind: List\nitems: [\n')).toBeUndefined();
  });
});

// --- property test: every real-world document, wrapped into Lists ---------------------------

const LOCAL = resolve(__dirname, 'fixtures');
const files = [...fixtureFiles('realworld', /\.(ya?ml|json)$/), ...readdirSync(LOCAL).map((f) => join(LOCAL, f))]
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort();

/** Every document of every fixture, as its own text (comments included), with its object. */
const documents = files.flatMap((f) => {
  const text = readFileSync(f, 'utf8');
  return splitDocuments(text)
    .map((c) => text.slice(c.start, c.end).replace(/^(?:[ \t]*(?:#[^\n]*)?\n)*---[^\n]*\n/, ''))
    .map((t) => ({
      name: f.slice(f.lastIndexOf('/') + 1),
      text: t.endsWith('\n') ? t : `${t}\n`,
      parsed: parseDocuments(t, { unwrapLists: false }),
    }))
    .filter((d) => d.parsed.errors.length === 0 && d.parsed.documents.length === 1)
    .map((d) => ({
      name: d.name,
      text: d.text,
      object: d.parsed.documents[0]!.object,
    }));
});

/** Documents as a block List, items `- ` at column `at`. */
function blockList(docs: readonly { text: string }[], at: number): string {
  const pad = ' '.repeat(at + 2);
  const item = (t: string) =>
    `${' '.repeat(at)}- ${t
      .replace(/\n$/, '')
      .split('\n')
      .map((l, i) => (i === 0 || l === '' ? l : pad + l))
      .join('\n')}\n`;
  return `# a List of ${docs.length}\napiVersion: v1\nkind: List\nitems:\n${docs.map((d) => item(d.text)).join('')}metadata:\n  resourceVersion: ""\n`;
}

describe('Lists of the real-world documents (seeded)', () => {
  test('there are documents', () => expect(documents.length).toBeGreaterThan(80));

  const r = seededRandom(69);
  const groups: (typeof documents)[] = [];
  for (let i = 0; i < documents.length; i += 5) groups.push(documents.slice(i, i + 5));

  test('block Lists (items at column 0 and 4) and JSON Lists: written back byte-identical; one item edited changes only its lines; items removed read back', () => {
    let lists = 0;
    let edited = 0;
    for (const group of groups) {
      const texts = [
        blockList(group, 0),
        blockList(group, 4),
        `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: group.map((d) => d.object) }, null, 4)}\n`,
      ];
      for (const text of texts) {
        const whole = parseDocuments(text);
        expect(whole.errors, text.slice(0, 300)).toEqual([]);
        const got = listItemTexts(text);
        if (!got) {
          // only where a document cannot stand alone inside the List (anchors, kept line ends, a List itself)
          expect(
            group.some((d) => /(^|\s)[&*][\w-]|\|\+|>\+|^kind: List$/m.test(d.text)),
            `${group.map((d) => d.name)} ${text.slice(0, 300)}`,
          ).toBe(true);
          continue;
        }
        lists++;
        expect(writeList(got.frame, got.items)).toBe(text);
        expect(got.items.map((i) => parseDocuments(i.text).documents[0]!.object)).toEqual(whole.documents.map((d) => d.object));
        // a random scalar of a random item, edited in the item's text (three times)
        for (let run = 0; run < 3; run++) {
          const k = Math.floor(r() * got.items.length);
          const item = got.items[k]!;
          const object = whole.documents[k]!.object;
          const scalars: (string | number)[][] = [];
          const walk = (v: unknown, p: (string | number)[]) => {
            if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
            else if (v && typeof v === 'object') for (const [key, x] of Object.entries(v)) walk(x, [...p, key]);
            else if (p.length) scalars.push(p);
          };
          walk(object, []);
          const path = scalars[Math.floor(r() * scalars.length)];
          if (path) {
            const e = applyEdits(item.text, [{ path, value: 'edited value' }]);
            if (!e.error) {
              const its: ListItemText[] = got.items.map((x, i) => (i === k ? { ...x, text: e.text } : x));
              const out = writeList(got.frame, its);
              const back = parseDocuments(out);
              expect(back.errors).toEqual([]);
              expect(back.documents.map((d) => d.object)).toEqual(its.map((x) => parseDocuments(x.text).documents[0]!.object));
              // lines outside the item's edited lines are the same: as many lines changed as in the item alone
              const inList = changed(text, out);
              expect(inList.length).toBe(changed(item.text, e.text).length);
              edited++;
            }
          }
        }
        // the first item removed
        const rest = writeList(got.frame, got.items.slice(1));
        expect(parseDocuments(rest).documents.map((d) => d.object)).toEqual(whole.documents.slice(1).map((d) => d.object));
      }
    }
    expect(lists).toBeGreaterThan(60);
    expect(edited).toBeGreaterThan(150);
  }, 120_000);
});
