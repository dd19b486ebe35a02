/** The CLI's I/O on Node: node:fs, process.stdin (read up to the size limit), stdout/stderr. */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { memorySpool, type Spool } from './impact-report';
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

/** Characters gathered before a spool writes them (one write a MiB, not one an event). */
const SPOOL_PIECE = 1 << 20;

/**
 * A spool in a temporary file with no name (made, opened and unlinked at once: nothing is left
 * behind, whatever ends the process), so that what waits in it is not this process's memory. In
 * memory where no such file can be made; from the first write that fails (a full disk), what
 * follows waits in memory too.
 */
export function fileSpool(): Spool {
  let fd: number;
  try {
    const dir = mkdtempSync(join(tmpdir(), 'admission-workbench-'));
    const path = join(dir, 'spool');
    fd = openSync(path, 'w+');
    unlinkSync(path);
    rmdirSync(dir);
  } catch {
    return memorySpool();
  }
  let size = 0;
  let pending: string[] = [];
  let chars = 0;
  let overflow: Spool | undefined;
  const flush = () => {
    const text = pending.join('');
    pending = [];
    chars = 0;
    if (overflow) return overflow.write(text);
    const bytes = Buffer.from(text);
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, size + done);
      size += bytes.length;
    } catch {
      // the bytes of a failed write that did land are read no further than `size`
      overflow = memorySpool();
      overflow.write(text);
    }
  };
  return {
    write(text) {
      pending.push(text);
      chars += text.length;
      if (chars >= SPOOL_PIECE) flush();
    },
    *read() {
      flush();
      const buf = Buffer.allocUnsafe(SPOOL_PIECE);
      const decoder = new TextDecoder();
      try {
        for (let at = 0; at < size; ) {
          const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
          if (n === 0) throw new Error('the report spool ended early');
          at += n;
          yield decoder.decode(buf.subarray(0, n), { stream: true });
        }
        const rest = decoder.decode();
        if (rest) yield rest;
      } finally {
        closeSync(fd);
      }
      if (overflow) yield* overflow.read();
    },
  };
}

export const nodeIO: CliIO = {
  fs: nodeFileSystem,
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  isTTY: () => !!process.stderr.isTTY,
  cores: () => availableParallelism(),
  spool: fileSpool,
};
