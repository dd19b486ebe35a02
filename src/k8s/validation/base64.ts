/**
 * Go's encoding/json decodes a []byte field (caBundle) with
 * base64.StdEncoding: padded, the standard alphabet, '\r' and '\n' ignored
 * anywhere. A failure is a decode error worded `illegal base64 data at input byte N`.
 * This returns that message, or undefined when the string decodes.
 */
const alphabet = /^[A-Za-z0-9+/]$/;

export function base64DecodeError(s: string): string | undefined {
  const fail = (offset: number): string => `illegal base64 data at input byte ${offset}`;
  let j = 0; // position inside the current 4-character quantum
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\r' || c === '\n') continue;
    if (c === '=') {
      // padding: only in the 3rd or 4th position; "xx=" must be followed by a second '='
      if (j < 2) return fail(i);
      if (j === 2) {
        let k = i + 1;
        while (k < s.length && (s[k] === '\r' || s[k] === '\n')) k++;
        if (k === s.length) return fail(s.length);
        if (s[k] !== '=') return fail(k - 1);
        i = k;
      }
      // only newlines may follow the padding
      let k = i + 1;
      while (k < s.length && (s[k] === '\r' || s[k] === '\n')) k++;
      if (k < s.length) return fail(k);
      return undefined;
    }
    if (!alphabet.test(c)) return fail(i);
    j = (j + 1) % 4;
  }
  return j === 0 ? undefined : fail(s.length - j);
}
