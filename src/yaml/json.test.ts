/**
 * The strict-JSON fast path must give exactly what the YAML path gives for the
 * same text: values, errors and positions. A trailing YAML comment makes a
 * text not strict JSON, which forces the YAML path, offsets unchanged.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { webhookConfiguration } from './fixtures/generate';
import { parseDocuments, serializeJSON, type ParsedDocument } from './index';
import { NASTY_STRINGS } from './fixtures/nasty';

function allPaths(v: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...allPaths(x, [...prefix, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...allPaths(x, [...prefix, k]));
  return out;
}

function expectSame(text: string) {
  const fast = parseDocuments(text);
  const slow = parseDocuments(`${text}\n# not JSON any more\n`);
  expect(fast.errors).toEqual(slow.errors);
  expect(fast.documents.map((d) => d.object)).toEqual(slow.documents.map((d) => d.object));
  fast.documents.forEach((d: ParsedDocument, n) => {
    const s = slow.documents[n]!;
    for (const p of allPaths(d.object)) {
      expect(d.positions.positionOf(p), p.join('.')).toEqual(s.positions.positionOf(p));
    }
    for (let off = 0; off < Math.min(text.length, 3000); off += 7) {
      expect(d.positions.pathAt(off), String(off)).toEqual(s.positions.pathAt(off));
    }
  });
}

describe('JSON fast path', () => {
  test('same values, errors and positions as the YAML path', () => {
    expectSame(readFileSync(resolve(__dirname, 'fixtures/webhook.json'), 'utf8'));
    expectSame(serializeJSON([webhookConfiguration(3)]));
    expectSame(serializeJSON([webhookConfiguration(2), { kind: 'B' }]));
    expectSame(serializeJSON([webhookConfiguration(2)], { indent: 0 }));
    expectSame(JSON.stringify({ kind: 'A', strings: NASTY_STRINGS, keys: Object.fromEntries(NASTY_STRINGS.map((s, i) => [s, i])) }, null, '\t'));
    expectSame('{"kind": "A", "n": [0, -0, 1.0, 1.5e3, 12345678901234567890, 1e400, -1.5e-7], "e": {}, "l": [], "u": "\\u00e9\\ud83d\\ude00"}');
    expectSame('{"kind": "A", "kind": "B", "m": {"x": 1, "x": 2}}');
    expectSame('{"__proto__": {"polluted": true}, "kind": "A"}');
    expectSame('["not", "an", "object"]');
  });

  test('anything not strict JSON goes to the YAML path (and its messages)', () => {
    expect(parseDocuments("{'single': 1}").documents[0]!.object).toEqual({ single: 1 });
    expect(parseDocuments('{"trailing": 1,}').documents[0]!.object).toEqual({ trailing: 1 });
    expect(parseDocuments('{"a": 1} # comment').documents[0]!.object).toEqual({ a: 1 });
    expect(parseDocuments('{"a": [1, 2}').errors[0]!.message).toMatch(/YAML syntax error/);
    const deep = `{"a": ${'['.repeat(150)}${']'.repeat(150)}}`;
    expect(parseDocuments(deep).errors[0]!.message).toMatch(/nested more than 100 levels deep/);
  });
});
