#!/usr/bin/env node
// Prints the size of the built CEL engine: raw, gzip -9 and brotli 11 (node:zlib). No dependencies.
//   --by-package  code size by Go package (and data segments), from the wasm name section of a
//                 build that keeps it: CEL_WASM_SYMBOLS=1 CEL_WASM_OUT=dir npm run build:wasm,
//                 then CEL_WASM=dir/cel.wasm node scripts/wasm-size.mjs --by-package
import { readFileSync, existsSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasmFile = process.env.CEL_WASM ?? join(root, 'public', 'cel', 'cel.wasm');
const files = [wasmFile, join(root, 'public', 'cel', 'wasm_exec.js')];
const fmt = (n) => `${n.toLocaleString('en-US')} B (${(n / 1024 / 1024).toFixed(2)} MiB)`;
for (const file of files) {
  if (!existsSync(file)) {
    console.error(`${file} not found: run npm run build:wasm`);
    process.exit(1);
  }
}

if (process.argv.includes('--by-package')) {
  printByPackage(readFileSync(wasmFile));
} else {
  for (const file of files) {
    const raw = readFileSync(file);
    const gz = gzipSync(raw, { level: 9 }).length;
    const br = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    }).length;
    console.log(`${file}\n  raw    ${fmt(raw.length)}\n  gzip   ${fmt(gz)}\n  brotli ${fmt(br)}`);
  }
}

/** The sections of a wasm module: [{ id, name?, start, end }] (start..end = the payload). */
function sections(bytes) {
  const out = [];
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos++];
    const [size, n] = leb(bytes, pos);
    pos += n;
    const s = { id, start: pos, end: pos + size };
    if (id === 0) {
      const [len, m] = leb(bytes, pos);
      s.name = new TextDecoder().decode(bytes.subarray(pos + m, pos + m + len));
    }
    out.push(s);
    pos += size;
  }
  return out;
}

function leb(bytes, pos) {
  let result = 0;
  let shift = 0;
  let n = 0;
  for (;;) {
    const b = bytes[pos + n++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [result, n];
  }
}

/** Function index → name, from the "name" custom section (subsection 1). */
function functionNames(bytes, section) {
  const names = new Map();
  let pos = section.start;
  const [len, m] = leb(bytes, pos);
  pos += m + len;
  while (pos < section.end) {
    const kind = bytes[pos++];
    const [size, n] = leb(bytes, pos);
    pos += n;
    if (kind === 1) {
      let p = pos;
      const [count, c] = leb(bytes, p);
      p += c;
      for (let i = 0; i < count; i++) {
        const [idx, a] = leb(bytes, p);
        p += a;
        const [l, b] = leb(bytes, p);
        p += b;
        names.set(idx, new TextDecoder().decode(bytes.subarray(p, p + l)));
        p += l;
      }
    }
    pos += size;
  }
  return names;
}

/**
 * The Go package of a function name in Go's wasm name section, where "/" and "-" of import
 * paths read "_": "k8s.io_api_core_v1.__Pod_.Marshal" → "k8s.io/api/core/v1" (approximately:
 * an "_" inside a path element reads as "/" too).
 */
function packageOf(name) {
  const domain = /^((?:[a-z0-9-]+\.)+[a-z]+)_/.exec(name);
  if (domain) {
    const rest = name.slice(domain[0].length);
    return `${domain[1]}/${rest.slice(0, rest.indexOf('.') < 0 ? undefined : rest.indexOf('.')).replaceAll('_', '/')}`;
  }
  const dot = name.indexOf('.');
  return (dot < 0 ? name : name.slice(0, dot)).replaceAll('_', '/');
}

/** Groups packages the way the weight table in wasm/README.md reads. */
function groupOf(pkg) {
  const groups = [
    ['k8s.io/api/', 2],
    ['k8s.io/apimachinery/', 3],
    ['k8s.io/apiserver/', 4],
    ['k8s.io/', 2],
    ['github.com/google/cel/go/', 4],
    ['google.golang.org/protobuf/', 3],
    ['github.com/', 3],
    ['golang.org/x/', 3],
    ['go.yaml.in/', 2],
    ['sigs.k8s.io/', 2],
    ['go.opentelemetry.io/', 2],
  ];
  for (const [prefix, depth] of groups) if (pkg.startsWith(prefix)) return pkg.split('/').slice(0, depth).join('/');
  return pkg.includes('.') ? pkg : `std ${pkg.split('/')[0]}`;
}

function printByPackage(bytes) {
  const all = sections(bytes);
  const nameSection = all.find((s) => s.name === 'name');
  if (!nameSection) {
    console.error('no name section: build with CEL_WASM_SYMBOLS=1 (see the header of this script)');
    process.exit(1);
  }
  // Imported functions come first in the function index space.
  const importSection = all.find((s) => s.id === 2);
  let imported = 0;
  if (importSection) {
    let p = importSection.start;
    const [count, c] = leb(bytes, p);
    p += c;
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < 2; k++) {
        const [l, n] = leb(bytes, p);
        p += n + l;
      }
      const kind = bytes[p++];
      if (kind === 0) imported++;
      const [, n] = leb(bytes, p); // type index, table/memory/global descriptions are not functions
      p += n;
      if (kind !== 0) throw new Error('only function imports are expected in a Go wasm module');
    }
  }
  const names = functionNames(bytes, nameSection);
  const code = all.find((s) => s.id === 10);
  const byGroup = new Map();
  const byPackage = new Map();
  let p = code.start;
  const [count, c] = leb(bytes, p);
  p += c;
  for (let i = 0; i < count; i++) {
    const [size, n] = leb(bytes, p);
    p += n + size;
    const pkg = packageOf(names.get(imported + i) ?? '?');
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + size + n);
    const g = groupOf(pkg);
    byGroup.set(g, (byGroup.get(g) ?? 0) + size + n);
  }
  const mb = (n) => `${(n / 1e6).toFixed(2)} MB`.padStart(9);
  console.log(
    `code ${mb(code.end - code.start)}, data ${mb(all.find((s) => s.id === 11)?.end - all.find((s) => s.id === 11)?.start)}, names ${mb(nameSection.end - nameSection.start)}`,
  );
  console.log('\ncode by group:');
  for (const [g, size] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${mb(size)}  ${g}`);
  console.log('\ncode by package (top 40):');
  for (const [g, size] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${mb(size)}  ${g}`);
}
