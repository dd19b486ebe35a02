import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../yaml';
import { readSnapshot, type SnapshotItem } from './snapshot';

const pod = (i: number, ns = 'default') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: `p-${i}`,
    namespace: ns,
    labels: { app: 'web', 'app.kubernetes.io/name': `n${i}` },
    annotations: { note: 'a "quoted" \\ value, with [brackets] and {braces}: ok' },
  },
  spec: { containers: [{ name: 'app', image: `registry.example.com/app:${i}`, args: ['--x=[1,2]', '}'] }] },
});
const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

async function read(source: Parameters<typeof readSnapshot>[0], maxItem?: number): Promise<{ objects: unknown[]; problems: string[] }> {
  const objects: unknown[] = [];
  const problems: string[] = [];
  for await (const r of readSnapshot(source, 'snap', maxItem)) 'object' in r ? objects.push(r.object) : problems.push(r.problem);
  return { objects, problems };
}
const whole = (text: string) => {
  const r = parseDocuments(text);
  expect(r.errors).toEqual([]);
  return r.documents.map((d) => d.object);
};

/** As `kubectl get -o yaml` prints a List: items at column 0, kind after them. */
const kubectlYaml = (items: readonly object[]) => {
  const out = ['apiVersion: v1', 'items:'];
  for (const o of items) {
    const lines = toYaml(o, 0);
    out.push(`- ${lines[0]}`, ...lines.slice(1).map((l) => `  ${l}`));
  }
  out.push('kind: List', 'metadata:', '  resourceVersion: ""');
  return out.join('\n') + '\n';
};
/** A small block-style YAML writer (kubectl's style: sequences not indented under their key). */
function toYaml(v: unknown, _: number): string[] {
  if (Array.isArray(v))
    return v.flatMap((x) => {
      if (isScalar(x)) return [`- ${JSON.stringify(x)}`];
      const l = toYaml(x, 0);
      return [`- ${l[0]}`, ...l.slice(1).map((s) => `  ${s}`)];
    });
  return Object.entries(v as object).flatMap(([k, x]) => {
    if (isScalar(x)) return [`${k}: ${JSON.stringify(x)}`];
    const l = toYaml(x, 0);
    return [`${k}:`, ...l.map((s) => (Array.isArray(x) ? s : `  ${s}`))];
  });
}
const isScalar = (x: unknown) => x === null || typeof x !== 'object';
const fixKey = (o: unknown) => JSON.parse(JSON.stringify(o)) as unknown;

const items = [ns('team-a'), pod(1, 'team-a'), pod(2), pod(3, 'team-a')];
const list = { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };

describe('readSnapshot: the same objects as parseDocuments on the whole text', () => {
  const cases: [string, string, unknown[]?][] = [
    ['JSON List, pretty (kubectl -o json)', JSON.stringify(list, null, 4) + '\n'],
    ['JSON List, compact', JSON.stringify(list)],
    // (not YAML as a whole: each value is)
    [
      'JSON values one after another',
      `${JSON.stringify(ns('a'))}\n${JSON.stringify(list, null, 2)}\n${JSON.stringify(pod(9))}`,
      [ns('a'), list, pod(9)].flatMap((v) => whole(JSON.stringify(v))),
    ],
    ['JSON List with no items', JSON.stringify({ apiVersion: 'v1', items: [], kind: 'List', metadata: {} }, null, 4)],
    ['JSON PodList, kind first', JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: [pod(5), pod(6)] }, null, 1)],
    ['YAML List as kubectl prints it', kubectlYaml(items)],
    ['YAML List, entries indented', ['apiVersion: v1', 'kind: List', 'items:', ...toYaml(items, 0).map((l) => `  ${l}`), 'metadata: {}'].join('\n')],
    [
      'YAML multi-document with Lists inside',
      `# a comment\n${toYaml(ns('x'), 0).join('\n')}\n---\n${kubectlYaml([pod(7), pod(8)])}---\n--- # empty\n${toYaml(pod(10), 0).join('\n')}\n...\n`,
    ],
    ['YAML List with no items', 'apiVersion: v1\nitems: []\nkind: List\n'],
    ['YAML with comments among items', kubectlYaml(items).replace(/^- /gm, '# before an entry\n- ').replace('kind: List', '# after the items\nkind: List')],
    ['YAML CRLF', kubectlYaml(items).replace(/\n/g, '\r\n')],
    [
      'YAML entry `-` alone on its line',
      `apiVersion: v1\nitems:\n-\n  kind: Pod\n  apiVersion: v1\n  metadata:\n    name: a\n\n-   apiVersion: v1\n    kind: Namespace\n    metadata:\n      name: b\nkind: List\n`,
    ],
    ['YAML: a non-List with a top-level items key, kind first', 'apiVersion: example.com/v1\nkind: Bag\nmetadata:\n  name: bag\nitems:\n- 1\n- 2\n'],
  ];
  for (const [what, text, each] of cases)
    it(what, async () => {
      const expected = each ?? whole(text);
      expect(expected.length).toBeGreaterThan(what.includes('no items') ? -1 : 0);
      const r = await read(text);
      expect(r.problems).toEqual([]);
      expect(r.objects).toEqual(expected);
      // the same text cut into every pair of pieces, and into pieces of 1, 2, 3, 7 characters
      for (let cut = 1; cut < text.length; cut += Math.max(1, Math.floor(text.length / 97))) {
        const s = await read([text.slice(0, cut), text.slice(cut)]);
        expect(s, `cut at ${cut}`).toEqual({ objects: expected, problems: [] });
      }
      for (const size of [1, 2, 3, 7]) {
        const pieces = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
        expect(await read(pieces), `pieces of ${size}`).toEqual({ objects: expected, problems: [] });
      }
    });

  it('the YAML writer of this test writes what parseDocuments reads back', () => {
    expect(whole(kubectlYaml(items))).toEqual(items.map(fixKey));
  });

  it('gzip (bytes, in chunks)', async () => {
    for (const text of [JSON.stringify(list, null, 4), kubectlYaml(items)]) {
      const gz = gzipSync(Buffer.from(text));
      const chunks = [gz.subarray(0, 10), gz.subarray(10, 50), gz.subarray(50)].map((b) => new Uint8Array(b));
      expect(await read(chunks)).toEqual({ objects: items, problems: [] });
    }
  });

  it('an empty text or only white space has nothing', async () => {
    expect(await read('')).toEqual({ objects: [], problems: [] });
    expect(await read('\n  \n')).toEqual({ objects: [], problems: [] });
  });
});

describe('readSnapshot: problems with their lines, the rest read', () => {
  it('JSON: a broken item among good ones', async () => {
    const text = JSON.stringify(list, null, 2).replace('"name": "p-2"', '"name": p-2');
    const lines = text.split('\n');
    const line =
      lines
        .slice(
          0,
          lines.findIndex((x) => x.includes('p-2')),
        )
        .lastIndexOf('    {') + 1; // the item's first line
    const r = await read(text);
    expect(r.objects).toEqual(items.filter((o) => o !== items[2]));
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(new RegExp(`^snap:${line}: not JSON`));
  });

  it('JSON: an item that is not an object, a truncated file, text that is not JSON', async () => {
    const r = await read(
      '{"kind":"List","apiVersion":"v1","items":[\n{"kind":"A","apiVersion":"v1","metadata":{"name":"a"}},\n42,\n{"kind":"B","apiVersion":"v1","metadata":{"name":"b"}},\n{"kind":"C"',
    );
    expect(r.objects).toEqual([
      { kind: 'A', apiVersion: 'v1', metadata: { name: 'a' } },
      { kind: 'B', apiVersion: 'v1', metadata: { name: 'b' } },
    ]);
    expect(r.problems).toEqual(['snap:3: a number, not a Kubernetes object', 'snap:5: the text ends inside this item (a truncated file?)']);
    const junk = await read('{"kind":"A"}\nhello\n{"kind":"B"}');
    expect(junk).toEqual({ objects: [{ kind: 'A' }, { kind: 'B' }], problems: ['snap:2: not JSON: unexpected "h"'] });
  });

  it('YAML: a broken item among good ones, its line in the file', async () => {
    const text = kubectlYaml(items).replace('name: "p-2"', 'name: "p-2\n    bad: [');
    const line = text.split('\n').findIndex((l) => l.includes('bad: [')) + 1;
    const r = await read(text);
    expect(r.objects).toEqual(items.filter((o) => o !== items[2]));
    expect(r.problems).toHaveLength(1);
    const at = Number(/^snap:(\d+):\d+: /.exec(r.problems[0]!)?.[1]);
    expect(at).toBeGreaterThanOrEqual(line - 1);
    expect(at).toBeLessThanOrEqual(line + 8);
  });

  it('YAML: a document that is not a mapping, then good ones', async () => {
    const r = await read(`just text\n---\n${toYaml(ns('a'), 0).join('\n')}\n`);
    expect(r.objects).toEqual([ns('a')]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^snap:1:1: /);
  });

  it('an item over the bound is a problem, not read; the others are', async () => {
    const big = { ...pod(2), data: 'x'.repeat(5000) };
    const objects = [pod(1), big, pod(3)];
    for (const text of [JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 1), kubectlYaml(objects)]) {
      const r = await read(text, 2000);
      expect(r.objects).toEqual([pod(1), pod(3)]);
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatch(/^snap:\d+: an? (item|line) /);
    }
  });

  it('a corrupt gzip stream: what was read, then why it stopped', async () => {
    const gz = new Uint8Array(gzipSync(Buffer.from(kubectlYaml([pod(1), pod(2)]))));
    const r = await read(gz.subarray(0, gz.length - 12));
    expect(r.problems.length).toBeGreaterThan(0);
    expect(r.problems.at(-1)).toMatch(/^snap: /);
  });
});

describe('readSnapshot: bad input never throws', () => {
  it('every cut and many corruptions of a JSON and a YAML List end with objects and problems, no exception', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
    for (const text of [JSON.stringify(list, null, 2), kubectlYaml(items)]) {
      for (let cut = 0; cut < text.length; cut += 13) {
        const r = await read(text.slice(0, cut));
        expect(r.objects.length).toBeLessThanOrEqual(items.length);
      }
      for (let k = 0; k < 200; k++) {
        const chars = [...text];
        for (let j = 0; j < 3; j++) chars[Math.floor(random() * chars.length)] = '{}[]",:\\-\n #'[Math.floor(random() * 13)]!;
        const r = await read(chars.join(''));
        for (const o of r.objects) expect(o).toBeTypeOf('object');
      }
    }
  });
});

// 50,000 objects parsed: tens of seconds of CPU for the YAML on a loaded 2-core runner
describe('readSnapshot: a 50,000-pod snapshot in bounded memory', { timeout: 300_000 }, () => {
  it.each(['json', 'yaml'] as const)('%s, generated chunk by chunk, counted', async (format) => {
    const N = 50_000;
    async function* generate(): AsyncGenerator<string> {
      yield format === 'json' ? '{\n    "apiVersion": "v1",\n    "items": [\n' : 'apiVersion: v1\nitems:\n';
      for (let i = 0; i < N; i += 500) {
        const part: string[] = [];
        for (let j = i; j < i + 500; j++)
          part.push(
            format === 'json'
              ? JSON.stringify(pod(j, `team-${j % 40}`), null, 4).replace(/^/gm, '        ') + (j < N - 1 ? ',' : '')
              : kubectlYaml([pod(j, `team-${j % 40}`)])
                  .split('\n')
                  .slice(2, -4)
                  .join('\n'),
          );
        yield part.join('\n') + '\n';
      }
      yield format === 'json'
        ? '    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n'
        : 'kind: List\nmetadata:\n  resourceVersion: ""\n';
    }
    let count = 0;
    let last: SnapshotItem | undefined;
    const problems: string[] = [];
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    for await (const r of readSnapshot(generate(), 'big')) {
      if ('object' in r) count++;
      else problems.push(r.problem);
      last = r;
      if (count % 5000 === 0) gc(), (peak = Math.max(peak, process.memoryUsage().heapUsed - before));
    }
    expect(problems).toEqual([]);
    expect(count).toBe(N);
    expect(last).toEqual({ object: pod(N - 1, `team-${(N - 1) % 40}`) });
    // the text is ~50-60 MB, its objects more: neither is held (objects are counted and dropped)
    expect(peak).toBeLessThan(16 * 1024 * 1024);
  });
});
