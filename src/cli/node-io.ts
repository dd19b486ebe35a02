/** The CLI's I/O on Node: node:fs, process.stdin (read up to the size limit), stdout/stderr. */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { createReadStream, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { MAX_FILE_BYTES, type FileSystem } from './inputs';
import type { CliIO } from './main';

/** Reads stdin until its end, or until one byte past the limit (the caller then reports it). */
async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    total += chunk.length;
    if (total > MAX_FILE_BYTES) {
      process.stdin.destroy();
      break;
    }
  }
  return Buffer.concat(chunks);
}

/** Bytes read and inflated at a time: 256 KiB pieces cost a third of the CPU of the 64/16 KiB defaults through DecompressionStream. */
const STREAM_CHUNK = 1 << 18;

/**
 * A file's bytes as a stream, gzip (recognised by its magic bytes) inflated by node:zlib: the
 * audit log's reader (src/impact/lines.ts) would inflate it with DecompressionStream, the same
 * bytes at about three times the CPU. A corrupt stream ends in an error, as there.
 */
async function* inflated(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const rest = async function* () {
    yield first.value;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  };
  if (first.value[0] !== 0x1f || first.value[1] !== 0x8b) return yield* rest();
  const input = Readable.from(rest(), { objectMode: false });
  const gunzip = createGunzip({ chunkSize: STREAM_CHUNK });
  input.on('error', (e) => gunzip.destroy(e));
  yield* input.pipe(gunzip) as AsyncIterable<Uint8Array>;
}

export const nodeFileSystem: FileSystem = {
  stat: (p) => statSync(p),
  readdir: (p) => readdirSync(p),
  readFile: (p) => readFileSync(p),
  join,
  dirname,
  readStdin,
  readStream: (p) => inflated((p === '-' ? process.stdin : createReadStream(p, { highWaterMark: STREAM_CHUNK })) as AsyncIterable<Uint8Array>),
  writeFile: (p, text) => {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  },
};

export const nodeIO: CliIO = {
  fs: nodeFileSystem,
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  isTTY: () => !!process.stderr.isTTY,
  cores: () => availableParallelism(),
};
