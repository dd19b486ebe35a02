import { describe, expect, test } from 'vitest';
import { crc32 } from './crc32';
import { unzipFiles, zipFiles } from './zip';

/** Reads a stored ZIP back through its central directory (APPNOTE 4.3.12), as unzip does. */
function unzipStored(zip: Uint8Array): Record<string, string> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  expect(view.getUint32(end, true)).toBe(0x06054b50);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const out: Record<string, string> = {};
  const dec = new TextDecoder();
  for (let i = 0; i < count; i++) {
    expect(view.getUint32(at, true)).toBe(0x02014b50);
    const crc = view.getUint32(at + 16, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const offset = view.getUint32(at + 42, true);
    const name = dec.decode(zip.subarray(at + 46, at + 46 + nameLength));
    expect(view.getUint32(offset, true)).toBe(0x04034b50);
    const start = offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
    const data = zip.subarray(start, start + size);
    expect(crc32(data)).toBe(crc);
    out[name] = dec.decode(data);
    at += 46 + nameLength;
  }
  return out;
}

describe('zipFiles', () => {
  test('every file comes back with its name and text (UTF-8 names and contents)', () => {
    const files = { 'kaptest.yaml': 'version: v1alpha1\n', 'policy.yaml': 'kind: ValidatingAdmissionPolicy\n', 'résumé.yaml': 'x: "é"\n', 'empty.yaml': '' };
    expect(unzipStored(zipFiles(files))).toEqual(files);
  });
});

describe('unzipFiles', () => {
  test('reads back what zipFiles wrote; refuses what it cannot read', () => {
    const files = { 'kaptest.yaml': 'version: v1alpha1\n', 'résumé.yaml': 'x: "é"\n' };
    expect(unzipFiles(zipFiles(files))).toEqual(files);
    expect(unzipFiles(new TextEncoder().encode('kind: Pod\n'))).toEqual({ error: 'not a ZIP archive' });
    const zip = zipFiles({ 'a.yaml': 'a: 1\n' });
    zip[8] = 8; // the local header says deflate: the central directory is what counts
    const dir = zip.length - 22 - (46 + 'a.yaml'.length);
    zip[dir + 10] = 8;
    expect(unzipFiles(zip)).toEqual({ error: 'a.yaml is compressed: unpack the archive and pass its files' });
  });
});
