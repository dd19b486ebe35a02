import { describe, expect, it } from 'vitest';
import { decodeText } from './decode';

describe('decodeText', () => {
  it('reads UTF-8 and drops a BOM, saying it was there', () => {
    expect(decodeText(new TextEncoder().encode('\ufeffname: café\n'))).toEqual({ text: 'name: café\n', bom: true });
    expect(decodeText(new TextEncoder().encode('name: café\n'))).toEqual({ text: 'name: café\n', bom: false });
  });
  it('refuses Latin-1 (café as one byte é) instead of decoding it to U+FFFD', () => {
    const bytes = Uint8Array.from([...new TextEncoder().encode('name: caf'), 0xe9, 0x0a]);
    expect(decodeText(bytes)).toEqual({ error: 'not UTF-8 text: not YAML or JSON' });
  });
  it('refuses binary data', () => {
    expect(decodeText(Uint8Array.from([0x61, 0, 0x62]))).toEqual({ error: 'binary file (contains NUL bytes): not YAML or JSON' });
  });
});
