/**
 * Reading an edit in part gives what a whole parse gives: after seeded random edits of real
 * documents (the corpus, the fixtures, a generated webhook configuration), every result of
 * reparseDocuments equals parseDocuments of the same text — objects, warnings, sources and the
 * position of every field — and it does read in part most of the time on edits inside values.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureFiles } from '../../fixtures';
import { seededRandom } from '../base/random';
import { formatPath } from '../base/path-format';
import type { PathSegment } from '../base/path';
import { parseDocuments, splitDocuments } from './index';
import { applyEditsWithParse, reparseDocuments } from './reparse';
import { changedRange } from '../base/text-diff';
import { applyEdits } from './edit';
import { editsBetween } from './edit-diff';
import type { ParseResult } from './types';

const FIXTURES = resolve(__dirname, 'fixtures');

/** Single-document texts: each YAML document of the corpus and the fixtures on its own. */
function documents(): string[] {
  const files = [...fixtureFiles('realworld'), ...['helm-nulls.yaml', 'kyaml.yaml', 'multiline-cabundle.yaml'].map((f) => join(FIXTURES, f))];
  const out: string[] = [];
  for (const f of files.sort()) {
    const text = readFileSync(f, 'utf8');
    for (const c of splitDocuments(text)) {
      const chunk = text.slice(c.start, c.end);
      const r = parseDocuments(chunk);
      if (r.errors.length === 0 && r.documents.length === 1 && !r.documents[0]!.fromList) out.push(chunk);
    }
  }
  return out;
}

/** A webhook configuration as users write them: comments, quoting, block scalars, a YAML 1.1 boolean. */
function generated(n: number, indent: string): string {
  const lines = ['# generated', 'apiVersion: admissionregistration.k8s.io/v1', 'kind: ValidatingWebhookConfiguration', 'metadata:', '  name: gen', 'webhooks:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `${indent}- name: w${i}.example.com # webhook ${i}`,
      `${indent}  clientConfig:`,
      `${indent}    service: {namespace: ns, name: svc, path: /validate}`,
      `${indent}  rules:`,
      `${indent}  - operations: [CREATE, UPDATE]`,
      `${indent}    apiGroups: ['']`,
      `${indent}    resources: [pods]`,
      '',
      `${indent}  sideEffects: None`,
      `${indent}  timeoutSeconds: ${i % 30}`,
      ...(i % 3 === 0 ? [`${indent}  admissionReviewVersions: [v1]`, `${indent}  matchPolicy: "Equivalent"`] : []),
      ...(i % 4 === 1
        ? [
            `${indent}  matchConditions:`,
            `${indent}  - name: c`,
            `${indent}    expression: |`,
            `${indent}      !request.userInfo.username.startsWith('system:')`,
          ]
        : []),
      ...(i % 5 === 2 ? [`${indent}  objectSelector:`, `${indent}    matchLabels: {enabled: on}`] : []),
    );
  return lines.join('\n') + '\n';
}

const PIECES = [
  '5',
  'x',
  'abc',
  ' ',
  '  ',
  '\n',
  '\n  ',
  ':',
  ': ',
  '- ',
  '#',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  ',',
  'on',
  '0123',
  '|',
  '\t',
  '&a ',
  '*a',
  '---\n',
  '\r\n',
  'kind: List',
];

/** Everything a caller can see of a parse result. */
function seen(result: ParseResult, text: string, r: () => number) {
  const doc = result.documents[0];
  const paths: PathSegment[][] = [];
  const walk = (v: unknown, path: PathSegment[]) => {
    paths.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (typeof v === 'object' && v !== null) for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], [...path, k]);
  };
  if (doc) walk(doc.object, []);
  const offsets = Array.from({ length: 40 }, () => Math.floor(r() * (text.length + 1)));
  return {
    errors: result.errors,
    warnings: result.warnings,
    documents: result.documents.length,
    ...(doc
      ? {
          object: doc.object,
          documentIndex: doc.documentIndex,
          source: doc.source,
          documentSource: doc.documentSource,
          positions: paths.map((p) => [formatPath(p), doc.positions.positionOf(p)]),
          at: offsets.map((o) => doc.positions.pathAt(o)),
        }
      : {}),
  };
}

function edit(text: string, r: () => number): string {
  const at = Math.floor(r() * (text.length + 1));
  const op = r();
  if (op < 0.5) return text.slice(0, at) + PIECES[Math.floor(r() * PIECES.length)]! + text.slice(at);
  if (op < 0.85) return text.slice(0, at) + text.slice(at + 1 + Math.floor(r() * 6));
  return text.slice(0, at) + PIECES[Math.floor(r() * 3)]! + text.slice(at + 1 + Math.floor(r() * 3));
}

describe('reparseDocuments equals parseDocuments', () => {
  const texts = [...documents(), generated(40, ''), generated(30, '  ')];

  it('has texts to edit', () => expect(texts.length).toBeGreaterThan(40));

  it.each([1, 2, 3, 4])(
    'seed %i: chains of random edits on every text',
    (seed) => {
      const r = seededRandom(seed);
      let partial = 0;
      let edits = 0;
      for (const original of texts) {
        let text = original;
        let result = parseDocuments(text);
        for (let step = 0; step < 12; step++) {
          const next = edit(text, r);
          if (next === text) continue;
          const whole = parseDocuments(next);
          if (!result.errors.length && !whole.errors.length) edits++;
          const part = reparseDocuments(text, result, next);
          if (part) {
            partial++;
            const s = Math.floor(r() * 1e9);
            expect(seen(part, next, seededRandom(s)), `${JSON.stringify(text.slice(0, 60))}… step ${step}`).toEqual(seen(whole, next, seededRandom(s)));
          }
          text = next;
          result = part ?? whole;
        }
      }
      // Many edits from a text that parses to one that parses are read in part (the rest add items, keys or lines).
      expect(partial / edits).toBeGreaterThan(0.35);
    },
    60_000,
  );

  it.each([7, 8])(
    "seed %i: positions read only every fourth edit (moves left pending in the tree across edits) are still the whole parse's",
    (seed) => {
      const r = seededRandom(seed);
      let checked = 0;
      for (const original of texts) {
        let text = original;
        let result = parseDocuments(text);
        for (let step = 0; step < 16; step++) {
          const next = edit(text, r);
          if (next === text) continue;
          const part = reparseDocuments(text, result, next);
          if (part && step % 4 === 3) {
            checked++;
            const s = Math.floor(r() * 1e9);
            expect(seen(part, next, seededRandom(s)), `${JSON.stringify(text.slice(0, 60))}… step ${step}`).toEqual(
              seen(parseDocuments(next), next, seededRandom(s)),
            );
          }
          text = next;
          result = part ?? parseDocuments(next);
        }
      }
      expect(checked).toBeGreaterThan(20);
    },
    60_000,
  );

  it('with the range given or found, the same', () => {
    const text = generated(5, '');
    const next = text.replace('timeoutSeconds: 3', 'timeoutSeconds: 35');
    const change = changedRange(text, next)!;
    expect(next.slice(change.at, change.newEnd)).toBe('5');
    const a = reparseDocuments(text, parseDocuments(text), next, { change })!;
    const b = reparseDocuments(text, parseDocuments(text), next)!;
    expect(a.documents[0]!.object).toEqual(parseDocuments(next).documents[0]!.object);
    expect(b.documents[0]!.object).toEqual(a.documents[0]!.object);
  });

  it('keeps what the edit did not touch: the other elements are the same objects', () => {
    const text = generated(50, '');
    const first = parseDocuments(text);
    const before = first.documents[0]!.object as { webhooks: unknown[] };
    const next = text.replace('timeoutSeconds: 17', 'timeoutSeconds: 18');
    const after = reparseDocuments(text, first, next)!.documents[0]!.object as { webhooks: unknown[] };
    expect(after.webhooks[17]).not.toBe(before.webhooks[17]);
    expect(after.webhooks.filter((w, i) => w === before.webhooks[i]).length).toBe(49);
  });

  it('gives up where the whole text must be read: a new list item in a large list, an alias, a List', () => {
    const text = generated(2000, '');
    const at = text.indexOf('- name: w1');
    for (const next of [
      text.slice(0, at) + '- name: new\n' + text.slice(at),
      text.replace('sideEffects: None', 'sideEffects: *x'),
      text.replace('kind: Validating', 'kind: List\nitems: []\nx: Validating'),
    ]) {
      expect(reparseDocuments(text, parseDocuments(text), next)).toBeUndefined();
    }
  }, 30_000);

  it('a key given twice is left to a whole parse, which reports it (typed into an element, or there before the edit)', () => {
    const text = 'kind: A\nspec:\n  a: 1\n  b: 2\n';
    const typed = 'kind: A\nspec:\n  a: 1\n  b: 2\n  a: 3\n';
    expect(reparseDocuments(text, parseDocuments(text), typed)).toBeUndefined();
    expect(parseDocuments(typed).duplicateKeys.map((d) => d.path)).toEqual(['spec.a']);
    const inside = 'kind: A\nspec:\n  a:\n    x: 1\n  b: 2\n';
    expect(reparseDocuments(inside, parseDocuments(inside), inside.replace('    x: 1\n', '    x: 1\n    x: 2\n'))).toBeUndefined();
    expect(reparseDocuments(typed, parseDocuments(typed), typed.replace('b: 2', 'b: 5'))).toBeUndefined();
  });

  it.each([5, 6])(
    'seed %i: form edits that replace scalars come with the parse of their result',
    (seed) => {
      const r = seededRandom(seed);
      const VALUES: unknown[] = ['x', 'on', '0123', 7, true, 'a: b', 'two\nlines', '', 'new-name', -1];
      let partial = 0;
      for (const original of texts) {
        let text = original;
        let result = parseDocuments(text);
        let object = result.documents[0]!.object;
        for (let step = 0; step < 8; step++) {
          const leaves: PathSegment[][] = [];
          const walk = (v: unknown, path: PathSegment[]) => {
            if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
            else if (typeof v === 'object' && v !== null) for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], [...path, k]);
            else leaves.push(path);
          };
          walk(object, []);
          if (!leaves.length) break;
          const path = leaves[Math.floor(r() * leaves.length)]!;
          const next = setAt(object, path, VALUES[Math.floor(r() * VALUES.length)]);
          const edits = editsBetween(object, next);
          const { result: edited, parsed, consumed } = applyEditsWithParse(text, result, object, next);
          expect(edited.text).toBe(applyEdits(text, edits).text);
          if (edited.error) {
            if (consumed) result = parseDocuments(text);
            continue;
          }
          const whole = parseDocuments(edited.text);
          if (parsed) {
            partial++;
            const s = Math.floor(r() * 1e9);
            expect(seen(parsed, edited.text, seededRandom(s)), `${JSON.stringify(text.slice(0, 60))}… ${formatPath(path)}`).toEqual(
              seen(whole, edited.text, seededRandom(s)),
            );
          }
          text = edited.text;
          object = next;
          result = parsed ?? whole;
        }
      }
      expect(partial).toBeGreaterThan(texts.length / 2);
    },
    60_000,
  );
});

function setAt(v: unknown, path: readonly PathSegment[], value: unknown): unknown {
  if (!path.length) return value;
  const [seg, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === seg ? setAt(x, rest, value) : x));
  const o = v as Record<string, unknown>;
  return Object.fromEntries(Object.keys(o).map((k) => [k, k === seg ? setAt(o[k], rest, value) : o[k]]));
}
