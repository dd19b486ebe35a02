/** The byte line reader numbers and cuts lines as the text line reader does, however its input is cut. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { joinedSources, memberCuts, readByteLineBatches, readLineBatches, readLines, type TextSource } from './lines';

async function viaText(source: TextSource, maxLine: number) {
  const out: unknown[] = [];
  for await (const batch of readLineBatches(source, maxLine)) for (const l of batch) out.push(l);
  return out;
}

async function viaBytes(source: TextSource, maxLine: number) {
  const decoder = new TextDecoder();
  const out: unknown[] = [];
  for await (const { bytes, lines } of readByteLineBatches(source, maxLine))
    for (const { start, end, ...l } of lines) out.push({ ...l, text: decoder.decode(bytes.subarray(start, end)) });
  return out;
}

const chunked = (b: Uint8Array, size: number): Uint8Array[] =>
  Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size));

describe('readByteLineBatches', () => {
  it('gives the lines readLineBatches gives: numbers, CRLF, blank lines, non-ASCII, the unterminated last line, runaway lines', async () => {
    const long = 'x'.repeat(120);
    for (const text of ['a\nbb\r\n\n{"name":"grüße ✓"}\r\n' + long + '\nlast\r', 'one line, no newline', '\n\n\n', `${long}\n${long}`, '']) {
      const bytes = new TextEncoder().encode(text);
      for (const maxLine of [50, 1000]) {
        const want = await viaText(text, maxLine);
        // the runaway check applies to lines carried across chunks: compared cut for cut
        for (const size of [1, 2, 5, 33, 64, bytes.length || 1]) {
          const pieces = chunked(bytes, size);
          expect(await viaBytes(pieces, maxLine)).toEqual(await viaText(pieces, maxLine));
        }
        expect(await viaBytes(text, maxLine)).toEqual(want);
        expect(await viaBytes(gzipSync(bytes), maxLine)).toEqual(await viaText(gzipSync(bytes), maxLine));
      }
    }
  });

  it('a cut-off gzip stream: the lines before it, then the error as a last line', async () => {
    const whole = gzipSync(new TextEncoder().encode(Array.from({ length: 2000 }, (_, i) => `line ${i} ${'y'.repeat(i % 50)}`).join('\n')));
    const cut = whole.subarray(0, whole.length - 20);
    const [bytes, text] = [await viaBytes(chunked(cut, 512), 1 << 20), await viaText(chunked(cut, 512), 1 << 20)];
    expect(bytes).toEqual(text);
    expect((bytes.at(-1) as { error?: string }).error).toBeTruthy();
  });
});

describe('gzip members and joined sources', () => {
  const text = (from: number, n: number) => Array.from({ length: n }, (_, i) => `{"n":${from + i},"pad":"${'abc'.repeat(i % 40)}"}\n`).join('');
  const a = text(0, 3000);
  const b = text(3000, 2000);

  it('memberCuts cuts the input where the second member starts, wherever the chunks end', () => {
    const first = gzipSync(a);
    const both = new Uint8Array([...first, ...gzipSync(b)]);
    for (const size of [1, 2, 3, 4096, both.length]) {
      const cuts = memberCuts();
      const pieces = [...chunked(both, size).flatMap((c) => cuts.cut(c)), ...cuts.flush()];
      expect(Buffer.concat(pieces).equals(Buffer.from(both)), `chunks of ${size}`).toBe(true);
      // a piece ends where the first member ends, the next starts the second
      const ends = pieces.map((_, i) => pieces.slice(0, i + 1).reduce((n, p) => n + p.length, 0));
      expect(ends, `chunks of ${size}`).toContain(first.length);
    }
  });

  it('a multi-member gzip (cat a.gz b.gz) gives every line of both members', async () => {
    const both = new Uint8Array([...gzipSync(a), ...gzipSync(b)]);
    const lines = await viaText(chunked(both, 4096), 1 << 20);
    expect(lines).toHaveLength(5000);
  });

  it('joinedSources: a gzip file and a plain one, each read as itself, a newline between where the first lacks one', async () => {
    const plain = new TextEncoder().encode('{"n":"last"}');
    const joined = joinedSources([chunked(gzipSync(a.slice(0, -1)), 1000), plain, 'x\n']);
    const out: string[] = [];
    for await (const l of readLines(joined)) out.push(l.text);
    expect(out).toEqual([...a.slice(0, -1).split('\n'), '{"n":"last"}', 'x']);
  });
});
