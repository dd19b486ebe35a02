/**
 * Bytes → text, as every input of the Workbench is read (the CLI's files and stdin, the UI's
 * opened and dropped files): UTF-8 only, a leading BOM dropped. Binary data (NUL bytes) and
 * invalid UTF-8 are refused with a reason, never decoded with U+FFFD in place of what was there.
 */

/** Text of the bytes, or why they are not a text file (NUL bytes or invalid UTF-8). */
export function decodeText(bytes: Uint8Array): { text: string } | { error: string } {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return { error: 'binary file (contains NUL bytes): not YAML or JSON' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  } catch {
    return { error: 'not UTF-8 text: not YAML or JSON' };
  }
}
