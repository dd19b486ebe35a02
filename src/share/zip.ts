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
