/** The CLI's I/O on Node: node:fs, process.stdin (read up to the size limit), stdout/stderr. */
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

export const nodeFileSystem: FileSystem = {
  stat: (p) => statSync(p),
  readdir: (p) => readdirSync(p),
  readFile: (p) => readFileSync(p),
  join,
  dirname,
  readStdin,
  readStream: (p) => (p === '-' ? process.stdin : createReadStream(p)) as AsyncIterable<Uint8Array>,
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
