/**
 * Mutated real-looking texts: parseDocuments never throws, every error and
 * warning points inside the text, every returned document's positions answer.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { parseDocuments } from './index';
import { seededRandom } from '../base/random';

const FIXTURES = ['helm-nulls.yaml', 'kyaml.yaml', 'v1-list.yaml', 'multiline-cabundle.yaml', 'webhook.json'].map((f) =>
  readFileSync(resolve(__dirname, 'fixtures', f), 'utf8'),
);
const PIECES = [
  '\n',
  ' ',
  '  ',
  '\t',
  ':',
  ': ',
  '- ',
  '-',
  '---\n',
  '...\n',
  '#',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a ',
  '*a',
  '!!str ',
  '|',
  '>',
  '? ',
  '<<: ',
  '%',
  '\\',
  '\u0000',
  '\uFEFF',
  'on',
  '0123',
  'kind: List\nitems:\n- ',
];

const rng = seededRandom;

test('1,000 mutated texts: no throw, positions inside the text', () => {
  const r = rng(42);
  for (let n = 0; n < 1000; n++) {
    let text = FIXTURES[n % FIXTURES.length]!;
    const edits = 1 + Math.floor(r() * 4);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(r() * (text.length + 1));
      const op = r();
      if (op < 0.4) text = text.slice(0, at) + PIECES[Math.floor(r() * PIECES.length)]! + text.slice(at);
      else if (op < 0.8) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(r() * 10));
      else text = text.slice(0, at) + text.slice(at, at + 40) + text.slice(at);
    }
    const lineCount = text.split(/\r\n|\r|\n/).length;
    let result: ReturnType<typeof parseDocuments> | undefined;
    expect(() => (result = parseDocuments(text)), `#${n}: ${JSON.stringify(text)}`).not.toThrow();
    for (const p of [...result!.errors, ...result!.warnings]) {
      // parseDocuments turns its own bugs into this message instead of throwing: there must be none.
      expect(p.message, `#${n}: ${JSON.stringify(text)}`).not.toMatch(/^Could not parse the text/);
      expect(p.message.length, `#${n}`).toBeGreaterThan(0);
      expect(p.line, `#${n} ${p.message}`).toBeGreaterThanOrEqual(1);
      expect(p.line, `#${n} ${p.message}`).toBeLessThanOrEqual(lineCount);
      expect(p.column, `#${n} ${p.message}`).toBeGreaterThanOrEqual(1);
    }
    for (const d of result!.documents) {
      expect(d.positions.positionOf('metadata.name').value.startOffset).toBeLessThanOrEqual(text.length);
      d.positions.pathAt(Math.floor(r() * text.length));
    }
  }
}, 60_000);
