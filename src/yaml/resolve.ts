/**
 * Plain-scalar typing as Kubernetes reads YAML: go-yaml v2's `resolve` (YAML 1.1, through
 * sigs.k8s.io/yaml), so that what the app shows is what the cluster gets (`yes` is true, `0123`
 * is 83, `.inf` is an error, a timestamp stays a string). The rules as a table: README.md ("Types").
 */

export type Resolved =
  | { kind: 'null'; value: null }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int'; value: number | bigint }
  | { kind: 'float'; value: number }
  | { kind: 'merge'; value: '<<' }
  | { kind: 'str'; value: string };

const TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULL = new Set(['', '~', 'null', 'Null', 'NULL']);
const NAN = new Set(['.nan', '.NaN', '.NAN']);
const POS_INF = new Set(['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
const NEG_INF = new Set(['-.inf', '-.Inf', '-.INF']);

const MAP_FIRST = new Set('yYnNtTfFoO~'.split(''));
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Go's strconv.ParseInt(s, 0, …) syntax, without the range check. */
function goParseIntBase0(s: string): bigint | undefined {
  let sign = 1n;
  let i = 0;
  if (s[0] === '+' || s[0] === '-') {
    if (s[0] === '-') sign = -1n;
    i = 1;
  }
  const body = s.slice(i);
  if (body === '') return undefined;
  let digits: string;
  let prefix: string;
  let re: RegExp;
  const p = body.slice(0, 2).toLowerCase();
  if (p === '0x') {
    prefix = '0x';
    digits = body.slice(2);
    re = /^[0-9a-fA-F]+$/;
  } else if (p === '0o') {
    prefix = '0o';
    digits = body.slice(2);
    re = /^[0-7]+$/;
  } else if (p === '0b') {
    prefix = '0b';
    digits = body.slice(2);
    re = /^[01]+$/;
  } else if (body[0] === '0' && body.length > 1) {
    prefix = '0o';
    digits = body.slice(1);
    re = /^[0-7]+$/;
  } else {
    prefix = '';
    digits = body;
    re = /^[0-9]+$/;
  }
  if (!re.test(digits)) return undefined;
  return sign * BigInt(prefix + digits);
}

function intValue(v: bigint): number | bigint {
  return v > SAFE_MAX || v < -SAFE_MAX ? v : Number(v);
}

/**
 * Fast path: a scalar starting with a letter can only be a non-string if it is
 * one of the bool/null words, all of which start with y n t f o (any case) and
 * are at most 5 characters long.
 */
function startsLikeText(s: string): boolean {
  const c = s.charCodeAt(0);
  const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return letter && (s.length > 5 || !MAP_FIRST.has(s[0]!));
}

/** Type an untagged plain scalar the way go-yaml v2 does. */
export function resolvePlain(text: string): Resolved {
  if (startsLikeText(text)) return { kind: 'str', value: text };
  const first = text === '' ? '' : text[0]!;
  if (NULL.has(text)) return { kind: 'null', value: null };
  if (text === '<<') return { kind: 'merge', value: '<<' };
  const isDigitOrSign = (first >= '0' && first <= '9') || first === '+' || first === '-';
  if (!(MAP_FIRST.has(first) || first === '.' || isDigitOrSign)) return { kind: 'str', value: text };
  if (TRUE.has(text)) return { kind: 'bool', value: true };
  if (FALSE.has(text)) return { kind: 'bool', value: false };
  if (NAN.has(text)) return { kind: 'float', value: NaN };
  if (POS_INF.has(text)) return { kind: 'float', value: Infinity };
  if (NEG_INF.has(text)) return { kind: 'float', value: -Infinity };
  if (first === '.') {
    if (DOT_FLOAT.test(text)) {
      const f = Number(text);
      if (Number.isFinite(f)) return { kind: 'float', value: f };
    }
    return { kind: 'str', value: text };
  }
  if (!isDigitOrSign) return { kind: 'str', value: text };
  const plain = text.includes('_') ? text.replace(/_/g, '') : text;
  const n = goParseIntBase0(plain);
  if (n !== undefined) {
    if (n >= INT64_MIN && n <= UINT64_MAX) return { kind: 'int', value: intValue(n) };
  }
  if (YAML_STYLE_FLOAT.test(plain)) {
    const f = Number(plain);
    // Go's ParseFloat fails on overflow (1e400): the scalar stays a string.
    if (Number.isFinite(f)) return { kind: 'float', value: f };
  }
  // Beyond uint64 without a float form (e.g. a huge hex): go-yaml makes a big.Int.
  if (n !== undefined) return { kind: 'int', value: n };
  return { kind: 'str', value: text };
}

/**
 * A plain map key as go-yaml v2 + sigs.k8s.io/yaml turn it into a JSON key:
 * ints and bools printed, floats printed, null refused.
 */
export function keyString(r: Resolved): string | undefined {
  switch (r.kind) {
    case 'str':
      return r.value;
    case 'merge':
      return '<<';
    case 'bool':
      return r.value ? 'true' : 'false';
    case 'int':
      return r.value.toString();
    case 'float':
      if (Number.isNaN(r.value)) return '.nan';
      if (r.value === Infinity) return '.inf';
      if (r.value === -Infinity) return '-.inf';
      // Go prints float keys with FormatFloat(v, 'g', -1, 32).
      return formatFloat32(r.value);
    case 'null':
      return undefined;
  }
}

function formatFloat32(v: number): string {
  const f = Math.fround(v);
  let digits = 1;
  let s = f.toPrecision(digits);
  while (digits < 9 && Math.fround(Number(s)) !== f) s = f.toPrecision(++digits);
  const num = Number(s);
  const exp = num === 0 ? 0 : Math.floor(Math.log10(Math.abs(num)));
  if (exp < -4 || exp >= Math.max(digits, 21)) {
    // Go: 1e+06 style exponent with at least two digits.
    const [m, e] = num.toExponential().split('e');
    const en = Number(e);
    return `${m}e${en < 0 ? '-' : '+'}${String(Math.abs(en)).padStart(2, '0')}`;
  }
  return String(num);
}

/** True when a string, written plain, would not read back as that same string (for any common YAML reader). */
export function plainChangesType(s: string): boolean {
  if (startsLikeText(s)) return false;
  if (resolvePlain(s).kind !== 'str') return true;
  return OTHER_READERS.some((re) => re.test(s));
}

/** Forms that YAML 1.2 core or YAML 1.1 readers (js-yaml, PyYAML, go-yaml v3) type as non-strings. */
const OTHER_READERS: RegExp[] = [
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(?:null|Null|NULL|~)$/,
  /^[-+]?(?:0b[0-1_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9._]*(?:[eE][-+]?[0-9]+)?$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
  /^[-+]?\.(?:inf|Inf|INF)$/,
  /^\.(?:nan|NaN|NAN)$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}/,
  /^(?:<<|=)$/,
];

/** Go's base64.StdEncoding once '\r' and '\n' are dropped: padded quanta of the standard alphabet (as src/k8s/validation/base64.ts checks a caBundle). */
const GO_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A `!!binary` scalar as Kubernetes reads it: go-yaml v2 decodes the base64 into a Go string,
 * and json.Marshal writes that string's bytes that are not UTF-8 as U+FFFD, one each.
 * Undefined where Go's decoder refuses the base64 (go-yaml: "!!binary value contains invalid base64 data").
 */
export function decodeBinary(text: string): string | undefined {
  const flat = text.replace(/[\r\n]/g, '');
  if (!GO_BASE64.test(flat)) return undefined;
  const raw = atob(flat);
  const b = (i: number): number => (i < raw.length ? raw.charCodeAt(i) : -1);
  let out = '';
  for (let i = 0; i < raw.length; ) {
    const c = b(i);
    // Go's utf8.DecodeRune: the sequence's length by its first byte; the second byte's range is
    // narrower after E0, ED, F0 and F4 (no overlong forms, surrogates, or code points past U+10FFFF)
    let n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    if (n > 1 && !(b(i + 1) >= lo && b(i + 1) <= hi)) n = 0;
    for (let k = 2; k < n; k++) if (!(b(i + k) >= 0x80 && b(i + k) <= 0xbf)) n = 0;
    if (n === 0) {
      out += '\ufffd';
      i++;
      continue;
    }
    let cp = n === 1 ? c : c & (0xff >> (n + 1));
    for (let k = 1; k < n; k++) cp = (cp << 6) | (b(i + k) & 0x3f);
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}
