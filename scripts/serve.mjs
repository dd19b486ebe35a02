#!/usr/bin/env node
// A static file server for dist/ under any base path, with no dependencies: what an
// internal portal does. Usage: node scripts/serve.mjs [--port 4173] [--base /portal/x/] [--dir dist]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { cacheControl } from './cache-control.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const port = Number(arg('port', '4173'));
const base = arg('base', '/').replace(/\/?$/, '/');
const root = resolve(arg('dir', 'dist'));
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

createServer(async (req, res) => {
  const url = new URL(`http://x${req.url ?? '/'}`); // `//…` is a path here, not a host
  if (url.pathname === base.slice(0, -1)) {
    res.writeHead(301, { location: base }).end();
    return;
  }
  if (!url.pathname.startsWith(base)) {
    res.writeHead(404).end('not found');
    return;
  }
  let rel;
  try {
    rel = decodeURIComponent(url.pathname.slice(base.length)) || 'index.html';
  } catch {
    res.writeHead(400).end('bad request: the path is not valid percent-encoding');
    return;
  }
  const file = normalize(join(root, rel));
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const s = await stat(file);
    const path = s.isDirectory() ? join(file, 'index.html') : file;
    const info = s.isDirectory() ? await stat(path) : s;
    // With a validator, and kept without asking again where the URL says the content cannot
    // change (scripts/cache-control.mjs: hashed assets, the engine's versioned files).
    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const headers = {
      'content-type': types[extname(path)] ?? 'application/octet-stream',
      'cache-control': cacheControl(rel, url.search),
      etag,
      'last-modified': info.mtime.toUTCString(),
      vary: 'accept-encoding',
    };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    // Precompressed siblings (cel.wasm.br, cel.wasm.gz) when the client accepts them.
    const accepts = String(req.headers['accept-encoding'] ?? '');
    for (const [enc, ext] of [
      ['br', '.br'],
      ['gzip', '.gz'],
    ]) {
      if (!accepts.includes(enc)) continue;
      const compressed = await readFile(path + ext).catch(() => undefined);
      if (compressed) {
        res.writeHead(200, { ...headers, 'content-encoding': enc }).end(compressed);
        return;
      }
    }
    const body = await readFile(path);
    res.writeHead(200, headers).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
}).listen(port, '127.0.0.1', () => console.log(`serving ${root} at http://127.0.0.1:${port}${base}`));
