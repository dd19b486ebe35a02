/**
 * parseDocuments(serializeDocuments(x)) deep-equals x, for generated JSON-like
 * values full of nasty strings and numbers. A small seeded generator, so a
 * failure prints its seed and is reproducible.
 */
import { describe, expect, test } from 'vitest';
import { NASTY_STRINGS } from './fixtures/nasty';
import { parseDocuments, serializeDocuments, serializeJSON } from './index';
import { seededRandom } from '../base/random';

const rng = seededRandom;

const NASTY_NUMBERS = [
  0,
  1,
  -1,
  42,
  1.5,
  -2.25,
  0.1,
  1e21,
  1e-7,
  123456789,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  2 ** 64,
  1e300,
  5e-324,
  Math.PI,
  100,
  1000000,
];

function gen(r: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const str = (): string => {
    const x = r();
    if (x < 0.6) return pick(NASTY_STRINGS);
    if (x < 0.8) return pick(NASTY_STRINGS) + pick(NASTY_STRINGS);
    // random code points, printable or not
    let s = '';
    const n = Math.floor(r() * 8);
    for (let i = 0; i < n; i++) s += String.fromCodePoint(pick([32, 9, 10, 35, 58, 45, 34, 39, 92, 65, 0x20ac, 0x1f600, Math.floor(r() * 0x7f)]));
    return s;
  };
  const x = r();
  if (depth <= 0 || x < 0.45) {
    const y = r();
    if (y < 0.55) return str();
    if (y < 0.8) return pick(NASTY_NUMBERS);
    if (y < 0.9) return r() < 0.5;
    if (y < 0.95) return null;
    return pick([2n ** 60n, -(2n ** 62n), 2n ** 64n - 1n]);
  }
  if (x < 0.7) {
    const n = Math.floor(r() * 5);
    return Array.from({ length: n }, () => gen(r, depth - 1));
  }
  const obj: Record<string, unknown> = {};
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    const k = str();
    Object.defineProperty(obj, k, { value: gen(r, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return obj;
}

function genDocuments(seed: number): Record<string, unknown>[] {
  const r = rng(seed);
  const docs: Record<string, unknown>[] = [];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const v = gen(r, 5);
    const doc: Record<string, unknown> = { apiVersion: 'v1', kind: 'Thing' };
    Object.defineProperty(doc, 'spec', { value: v, enumerable: true, writable: true, configurable: true });
    docs.push(doc);
  }
  return docs;
}

describe('round trip', () => {
  test('every nasty string, alone, as value and as key', () => {
    for (const s of NASTY_STRINGS) {
      const doc: Record<string, unknown> = { v: s, list: [s, [s]], nested: { deeper: s } };
      Object.defineProperty(doc, s, { value: s, enumerable: true, writable: true, configurable: true });
      const text = serializeDocuments([doc]);
      const back = parseDocuments(text);
      expect(back.errors, `${JSON.stringify(s)}\n${text}`).toEqual([]);
      expect(back.documents[0]?.object, `${JSON.stringify(s)}\n${text}`).toEqual(doc);
    }
  });

  test('keys longer than YAML allows for implicit keys (1024) use the explicit `? key` form', () => {
    for (const k of ['k'.repeat(1020), 'k'.repeat(2000), `${'on'.repeat(600)}\n`, 'a: '.repeat(400)]) {
      for (const v of ['x', { nested: [1, { a: 'b\nc' }] }, [], ['a', ['b']], 'multi\nline\n']) {
        const x = { [k]: v, after: 1 };
        const text = serializeDocuments([x]);
        const back = parseDocuments(text);
        expect(back.errors).toEqual([]);
        expect(back.documents[0]!.object).toEqual(x);
      }
    }
  });

  test('every JSON-like top-level value with allowNonObjects', () => {
    const values: unknown[] = [...NASTY_STRINGS, ...NASTY_NUMBERS, true, false, [], {}, [[]], [{}], ['a', ['b', ['c']]]];
    const text = serializeDocuments(values);
    const back = parseDocuments(text, { allowNonObjects: true });
    // `null` documents are empty documents, so `null` is not in the list above.
    expect(back.errors).toEqual([]);
    expect(back.documents.map((d) => d.object)).toEqual(values);
  });

  test('500 generated documents sets: YAML (both list indents) and JSON', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const docs = genDocuments(seed);
      for (const text of [serializeDocuments(docs), serializeDocuments(docs, { indentSequences: false }), serializeJSON(docs)]) {
        const back = parseDocuments(text);
        expect(back.errors, `seed ${seed}\n${text}`).toEqual([]);
        expect(
          back.documents.map((d) => d.object),
          `seed ${seed}\n${text}`,
        ).toEqual(docs);
      }
    }
  }, 30_000);
});
