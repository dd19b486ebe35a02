/**
 * Share links: a workspace file (workspace-file.ts) in a URL fragment, which browsers never
 * send to the server. `#workspace=<crc>.<data>`: data = base64url(deflate-raw(JSON)), crc =
 * CRC-32 of the JSON's UTF-8 bytes (8 hex digits), so a truncated or edited link is refused
 * instead of opening something else. Uses CompressionStream (browsers, Node ≥ 18).
 *
 * Decompression stops at MAX_SHARE_JSON_BYTES (a small link cannot expand into gigabytes).
 * Errors are values: nothing here throws.
 */
import { crc32 } from './crc32';
import { fromBase64Url, toBase64Url } from './base64url';
import { readWorkspaceFile, type ReadResult, type WorkspaceFile } from './workspace-file';

export const SHARE_FRAGMENT_KEY = 'workspace';
/** The decompressed payload may not exceed this (the YAML parser's own limit is 10 MiB a text). */
export const MAX_SHARE_JSON_BYTES = 16 * 1024 * 1024;
/** Fragments longer than this are not even decoded. */
export const MAX_SHARE_FRAGMENT_CHARS = 8 * 1024 * 1024;
/** Above this a link may be cut by chat tools and mail clients: offer a download instead. */
export const LONG_LINK_CHARS = 32 * 1024;

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream, limit: number): Promise<Uint8Array | 'too-large'> {
  const writer = stream.writable.getWriter();
  // The write side's promises reject too when the data is corrupt: the reader reports it.
  writer.write(bytes as Uint8Array<ArrayBuffer>).catch(() => undefined);
  writer.close().catch(() => undefined);
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The fragment (without `#`) that carries a workspace. */
export async function encodeShareFragment(ws: WorkspaceFile): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(ws));
  const packed = await pipe(json, new CompressionStream('deflate-raw'), Number.MAX_SAFE_INTEGER);
  if (packed === 'too-large') throw new Error('unreachable');
  return `${SHARE_FRAGMENT_KEY}=${crc32(json).toString(16).padStart(8, '0')}.${toBase64Url(packed)}`;
}

/** A page URL with the workspace in its fragment (any existing fragment replaced). */
export async function shareUrl(pageUrl: string, ws: WorkspaceFile): Promise<string> {
  const base = pageUrl.replace(/#.*$/s, '');
  return `${base}#${await encodeShareFragment(ws)}`;
}

/** Whether a fragment (with or without `#`) is meant to carry a workspace (a bad one included). */
export const isShareFragment = (fragment: string): boolean => fragment.replace(/^#/, '').startsWith(`${SHARE_FRAGMENT_KEY}=`);

const BROKEN = 'The link is broken: it was cut short or changed after it was made. Ask for the link again (or a downloaded workspace file).';

/** Reads a share fragment (with or without `#`). */
export async function decodeShareFragment(fragment: string): Promise<ReadResult> {
  const f = fragment.replace(/^#/, '');
  if (!isShareFragment(f)) return { ok: false, error: 'This is not an Admission Workbench share link (its fragment does not start with #workspace=).' };
  if (f.length > MAX_SHARE_FRAGMENT_CHARS) return { ok: false, error: `The link is too long to open (over ${MAX_SHARE_FRAGMENT_CHARS / 1024 / 1024} MB).` };
  const m = /^([0-9a-f]{8})\.([A-Za-z0-9_-]*)$/.exec(f.slice(SHARE_FRAGMENT_KEY.length + 1));
  if (!m) return { ok: false, error: BROKEN };
  const packed = fromBase64Url(m[2]!);
  if (!packed) return { ok: false, error: BROKEN };
  let json: Uint8Array | 'too-large';
  try {
    json = await pipe(packed, new DecompressionStream('deflate-raw'), MAX_SHARE_JSON_BYTES);
  } catch {
    return { ok: false, error: BROKEN };
  }
  if (json === 'too-large') return { ok: false, error: `The link expands to more than ${MAX_SHARE_JSON_BYTES / 1024 / 1024} MB: not opened.` };
  if (crc32(json).toString(16).padStart(8, '0') !== m[1]) return { ok: false, error: BROKEN };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch {
    return { ok: false, error: BROKEN };
  }
  return readWorkspaceFile(value);
}
