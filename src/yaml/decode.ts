/**
 * Bytes → text, as every input of the Workbench is read (the CLI's files and stdin, the UI's
 * opened and dropped files): UTF-8 only, a leading BOM dropped from the text and reported (`bom`),
 * so the UI's import can write it back on export. Binary data (NUL bytes) and invalid UTF-8 are
 * refused with a reason, never decoded with U+FFFD in place of what was there.
 */

/** Text of the bytes, or why they are not a text file (NUL bytes or invalid UTF-8). */
export function decodeText(bytes: Uint8Array): { text: string; bom: boolean } | { error: string } {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return { error: 'binary file (contains NUL bytes): not YAML or JSON' };
  try {
    // ignoreBOM: hand the BOM over rather than drop it silently (the decoder's default), to say it was there
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    const bom = text.charCodeAt(0) === 0xfeff;
    return { text: bom ? text.slice(1) : text, bom };
  } catch {
    return { error: 'not UTF-8 text: not YAML or JSON' };
  }
}
