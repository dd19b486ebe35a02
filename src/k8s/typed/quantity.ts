/**
 * resource.Quantity as the apiserver reads and writes it (k8s.io/apimachinery
 * pkg/api/resource/quantity.go): ParseQuantity (the format from the suffix, values below one
 * nano rounded up, away from zero) and the canonical form String() gives (mantissa without
 * trailing zeros, exponent a multiple of 3 with its SI suffix; BinarySI in powers of 1024 when
 * exact and at least 1024). `limits: {cpu: 0.5}` reaches admission as `500m`, `1.5Gi` as `1536Mi`.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DEC_SUFFIX: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIX).map(([k, v]) => [v, k]));
const BIN_BY_EXP = new Map(Object.entries(BIN_SUFFIX).map(([k, v]) => [v, k]));

/** A decimal: unscaled × 10^exp. */
interface Dec {
  n: bigint;
  exp: number;
}

const POW10 = (k: number): bigint => 10n ** BigInt(k);
const MAX_INT64 = (1n << 63n) - 1n;

/** The quantity grammar (quantity.go parseQuantityString): sign, digits, fraction, suffix. */
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?([a-zA-Z]*|[eE][+-]?\d+)$/;

export type QuantityResult = { ok: true; value: string } | { ok: false; error: string };

/** `str` in canonical form, or the apiserver's parse error. */
export function canonicalQuantity(str: string): QuantityResult {
  const s = str.trim();
  const m = QUANTITY.exec(s);
  if (!s || !m || (m[2] === '' && (m[3] ?? '') === ''))
    return { ok: false, error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" };
  const [, sign, num = '', frac = '', suffix = ''] = m;
  let format: Format;
  let dec: Dec;
  const digits = BigInt(`${num}${frac}` || '0');
  if (suffix in BIN_SUFFIX) {
    format = 'BinarySI';
    dec = { n: digits * (1n << BigInt(BIN_SUFFIX[suffix]!)), exp: -frac.length };
  } else if (suffix in DEC_SUFFIX) {
    format = 'DecimalSI';
    dec = { n: digits, exp: DEC_SUFFIX[suffix]! - frac.length };
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    dec = { n: digits, exp: Number(suffix.slice(1)) - frac.length };
  } else return { ok: false, error: "unable to parse quantity's suffix" };
  if (sign === '-') dec.n = -dec.n;
  // below 1n: rounded up, away from zero (inf.RoundUp at scale 9)
  if (dec.exp < -9 && dec.n !== 0n) {
    const div = POW10(-9 - dec.exp);
    const q = dec.n / div;
    dec = { n: dec.n % div === 0n ? q : q + (dec.n < 0n ? -1n : 1n), exp: -9 };
  }
  const abs = dec.n < 0n ? -dec.n : dec.n;
  if (format === 'BinarySI' && greater(abs, dec.exp, MAX_INT64)) dec = { n: dec.n < 0n ? -MAX_INT64 : MAX_INT64, exp: 0 };
  return { ok: true, value: canonical(dec, format) };
}

/** |n|·10^exp > x (x an integer). */
function greater(n: bigint, exp: number, x: bigint): boolean {
  return exp >= 0 ? n * POW10(exp) > x : n > x * POW10(-exp);
}

function canonical(d: Dec, format: Format): string {
  if (d.n === 0n) return '0';
  let f = format;
  let integer: bigint | undefined;
  if (f === 'BinarySI') {
    const abs = d.n < 0n ? -d.n : d.n;
    // between -1024 and 1024 exclusive, or not an integer: DecimalSI (CanonicalizeBytes)
    if (!greater(abs, d.exp, 1023n)) f = 'DecimalSI';
    else if (d.exp >= 0) integer = d.n * POW10(d.exp);
    else if (d.n % POW10(-d.exp) === 0n) integer = d.n / POW10(-d.exp);
    else f = 'DecimalSI';
  }
  if (f === 'BinarySI' && integer !== undefined) {
    let exp = 0;
    while (integer % 1024n === 0n && exp < 60) {
      integer /= 1024n;
      exp += 10;
    }
    return `${integer}${BIN_BY_EXP.get(exp) ?? ''}`;
  }
  let { n, exp } = d;
  while (n % 10n === 0n) {
    n /= 10n;
    exp++;
  }
  const r = ((exp % 3) + 3) % 3;
  n *= POW10(r);
  exp -= r;
  if (f === 'DecimalExponent') return exp === 0 ? `${n}` : `${n}e${exp}`;
  return `${n}${DEC_BY_EXP.get(exp) ?? ''}`;
}
