#!/usr/bin/env node
// Prints the size of the built CEL engine: raw, gzip -9 and brotli 11 (node:zlib). No dependencies.
import { readFileSync, existsSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = [process.env.CEL_WASM ?? join(root, 'public', 'cel', 'cel.wasm'), join(root, 'public', 'cel', 'wasm_exec.js')];
const fmt = (n) => `${n.toLocaleString('en-US')} B (${(n / 1024 / 1024).toFixed(2)} MiB)`;
for (const file of files) {
  if (!existsSync(file)) {
    console.error(`${file} not found: run npm run build:wasm`);
    process.exit(1);
  }
  const raw = readFileSync(file);
  const gz = gzipSync(raw, { level: 9 }).length;
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }).length;
  console.log(`${file.slice(root.length + 1)}\n  raw    ${fmt(raw.length)}\n  gzip   ${fmt(gz)}\n  brotli ${fmt(br)}`);
}
