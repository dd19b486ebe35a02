/**
 * The real-world corpus (fixtures/realworld): every file parses without
 * errors, and parse → serialize → parse gives the same objects.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fixtureFiles } from '../../fixtures';
import { parseDocuments, serializeDocuments, serializeJSON } from './index';

const files = fixtureFiles('realworld', /\.(ya?ml|json)$/);

describe('real-world corpus', () => {
  test('is there', () => expect(files.length).toBeGreaterThan(40));
  test('every file: parse → serialize → parse is deep-equal, YAML and JSON', () => {
    let objects = 0;
    for (const file of files) {
      const f = basename(file);
      const text = readFileSync(file, 'utf8');
      const first = parseDocuments(text);
      expect(first.errors, f).toEqual([]);
      expect(first.documents.length, f).toBeGreaterThan(0);
      const values = first.documents.map((d) => d.object);
      const again = parseDocuments(serializeDocuments(values));
      expect(again.errors, f).toEqual([]);
      expect(
        again.documents.map((d) => d.object),
        f,
      ).toEqual(values);
      const fromJson = parseDocuments(serializeJSON(values));
      expect(fromJson.errors, f).toEqual([]);
      expect(
        fromJson.documents.map((d) => d.object),
        f,
      ).toEqual(values);
      // Every key of every object has a position that points at that key's text.
      for (const d of first.documents) {
        for (const [path, key] of keyPaths(d.object)) {
          const p = d.positions.positionOf(path);
          expect(p.exact, `${f} ${path.join('.')}`).toBe(true);
          const keyText = text.slice(p.key!.startOffset, p.key!.endOffset);
          expect(keyText.replace(/^["']|["']$/g, ''), `${f} ${path.join('.')}`).toBe(key);
        }
      }
      objects += values.length;
    }
    expect(objects).toBeGreaterThan(files.length);
  }, 60_000);
});

function* keyPaths(v: unknown, prefix: Array<string | number> = []): Generator<[Array<string | number>, string]> {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield* keyPaths(v[i], [...prefix, i]);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      yield [[...prefix, k], k];
      yield* keyPaths(x, [...prefix, k]);
    }
  }
}
