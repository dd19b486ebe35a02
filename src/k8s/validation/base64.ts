/**
 * Go's encoding/json decodes a []byte field (caBundle) with
 * base64.StdEncoding: padded, the standard alphabet, '\r' and '\n' ignored
 * anywhere. A failure is a decode error worded `illegal base64 data at input byte N`.
 * This returns that message, or undefined when the string decodes.
 */

/** A well-formed padded base64 text once newlines are dropped (the common case, one regex pass). */
const wellFormed = /^[A-Za-z0-9+/]*={0,2}$/;

const isAlphabet = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 /* + */ || c === 47; /* / */
const isNewline = (c: number): boolean => c === 10 || c === 13;

/**
 * The last texts that decoded. A workspace repeats the same caBundle (kilobytes of text) in
 * many webhooks: comparing it with a few known texts costs a fraction of scanning it again
 * (a Set would not help: hashing a string reads every character too).
 */
const recentlyDecoded: string[] = [];
const RECENT = 8;

export function base64DecodeError(s: string): string | undefined {
  if (recentlyDecoded.includes(s)) return undefined;
  const flat = s.includes('\n') || s.includes('\r') ? s.replace(/[\r\n]/g, '') : s;
  if (flat.length % 4 === 0 && wellFormed.test(flat)) {
    if (recentlyDecoded.unshift(s) > RECENT) recentlyDecoded.pop();
    return undefined;
  }
  return `illegal base64 data at input byte ${corruptOffset(s)}`;
}

/** The offset Go's decoder reports (CorruptInputError), for a string known to be malformed. */
function corruptOffset(s: string): number {
  let j = 0; // position inside the current 4-character quantum
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isNewline(c)) continue;
    if (c === 61 /* = */) {
      // padding: only in the 3rd or 4th position; "xx=" must be followed by a second '='
      if (j < 2) return i;
      let k = i + 1;
      if (j === 2) {
        while (k < s.length && isNewline(s.charCodeAt(k))) k++;
        if (k === s.length) return s.length;
        if (s[k] !== '=') return k - 1;
        k++;
      }
      // only newlines may follow the padding
      while (k < s.length && isNewline(s.charCodeAt(k))) k++;
      return k; // k < s.length here: the string is known to be malformed
    }
    if (!isAlphabet(c)) return i;
    j = (j + 1) % 4;
  }
  return s.length - j;
}
