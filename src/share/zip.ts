/**
 * A ZIP archive of text files, stored without compression (PKWARE APPNOTE 6.3: local headers,
 * central directory, end record; UTF-8 names). Enough for a handful of YAML files that belong
 * together (the kaptest export), readable by every unzip.
 */
import { crc32 } from './crc32';

const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;
const UTF8_NAMES = 0x0800;

export function zipFiles(files: Readonly<Record<string, string>>): Uint8Array {
  const enc = new TextEncoder();
  const entries = Object.entries(files).map(([name, text]) => {
    const data = enc.encode(text);
    return { name: enc.encode(name), data, crc: crc32(data) };
  });
  const localSize = entries.reduce((n, e) => n + 30 + e.name.length + e.data.length, 0);
  const centralSize = entries.reduce((n, e) => n + 46 + e.name.length, 0);
  const out = new Uint8Array(localSize + centralSize + 22);
  const view = new DataView(out.buffer);
  let at = 0;
  const u16 = (v: number) => {
    view.setUint16(at, v, true);
    at += 2;
  };
  const u32 = (v: number) => {
    view.setUint32(at, v >>> 0, true);
    at += 4;
  };
  const bytes = (b: Uint8Array) => {
    out.set(b, at);
    at += b.length;
  };
  /** version needed, flags, method (stored), time, date, crc, sizes, name length, extra length */
  const common = (e: (typeof entries)[number]) => {
    u16(20);
    u16(UTF8_NAMES);
    u16(0);
    u16(0);
    u16(DOS_DATE_1980_01_01);
    u32(e.crc);
    u32(e.data.length);
    u32(e.data.length);
    u16(e.name.length);
    u16(0);
  };
  const offsets: number[] = [];
  for (const e of entries) {
    offsets.push(at);
    u32(0x04034b50);
    common(e);
    bytes(e.name);
    bytes(e.data);
  }
  const centralStart = at;
  entries.forEach((e, i) => {
    u32(0x02014b50);
    u16(20); // made by
    common(e);
    u16(0); // comment length
    u16(0); // disk
    u16(0); // internal attributes
    u32(0); // external attributes
    u32(offsets[i]!);
    bytes(e.name);
  });
  u32(0x06054b50);
  u16(0);
  u16(0);
  u16(entries.length);
  u16(entries.length);
  u32(centralSize);
  u32(centralStart);
  u16(0);
  return out;
}

/**
 * The text files of a ZIP archive with stored (uncompressed) entries, as zipFiles writes them:
 * read through the central directory. A compressed entry, a CRC mismatch or bytes that are no
 * ZIP archive give an error (unpack such an archive instead).
 */
export function unzipFiles(zip: Uint8Array): Record<string, string> | { error: string } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return { error: 'not a ZIP archive' };
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const dec = new TextDecoder('utf-8', { fatal: true });
  const out: Record<string, string> = {};
  try {
    for (let i = 0; i < count; i++) {
      if (view.getUint32(at, true) !== 0x02014b50) return { error: 'the archive’s directory is damaged' };
      const method = view.getUint16(at + 10, true);
      const crc = view.getUint32(at + 16, true);
      const size = view.getUint32(at + 20, true);
      const nameLength = view.getUint16(at + 28, true);
      const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
      const offset = view.getUint32(at + 42, true);
      const name = dec.decode(zip.subarray(at + 46, at + 46 + nameLength));
      at += 46 + skip;
      if (name.endsWith('/')) continue;
      if (method !== 0) return { error: `${name} is compressed: unpack the archive and pass its files` };
      const start = offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
      const data = zip.subarray(start, start + size);
      if (crc32(data) !== crc) return { error: `${name} is damaged (CRC mismatch)` };
      out[name] = dec.decode(data);
    }
  } catch (e) {
    return { error: `the archive cannot be read: ${e instanceof Error ? e.message : String(e)}` };
  }
  return out;
}
