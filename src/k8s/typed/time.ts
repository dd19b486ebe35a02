/**
 * metav1.Time, MicroTime and Duration as the apiserver reads and writes them: a Time is parsed
 * as RFC 3339 and written in UTC to the second (`2024-05-01T12:00:00.5+02:00` →
 * `2024-05-01T10:00:00Z`), a MicroTime to the microsecond, a Duration as Go's
 * time.Duration.String() (`90m` → `1h30m0s`). undefined: Go would not parse it.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The instant as [seconds since the epoch (UTC), the fraction's digits], or undefined. */
function parse(s: string): [number, string] | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se, frac = '', z, sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se));
  // Go's time.Parse: "month out of range", "day out of range" (February 30 does not roll over), …
  if (Number.isNaN(ms) || Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysIn(Number(y), Number(mo))) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(se) > 59) return undefined;
  const offset = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60;
  return [ms / 1000 - offset, frac];
}

/** The days of a month of the proleptic Gregorian calendar. */
const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function utc(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** A metav1.Time as the apiserver writes it (RFC 3339, UTC, whole seconds). */
export function formatTime(s: string): string | undefined {
  const p = parse(s);
  return p && `${utc(p[0])}Z`;
}

/** A metav1.MicroTime as the apiserver writes it (RFC 3339 with six fraction digits, UTC). */
export function formatMicroTime(s: string): string | undefined {
  const p = parse(s);
  return p && `${utc(p[0])}.${p[1].slice(0, 6).padEnd(6, '0')}Z`;
}

const UNITS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** time.ParseDuration then Duration.String(), or undefined. */
export function parseDuration(s: string): string | undefined {
  const m = /^([+-]?)((?:\d*\.?\d+(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s);
  if (!m) return undefined;
  let ns = 0;
  for (const [, n, u] of m[2]!.matchAll(/(\d*\.?\d+)(ns|us|µs|μs|ms|s|m|h)/g)) ns += Number(n) * UNITS[u!]!;
  ns = Math.round(ns) * (m[1] === '-' ? -1 : 1);
  return durationString(ns);
}

function durationString(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    const [unit, div] = u < 1e3 ? ['ns', 1] : u < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    out = `${trim(u / (div as number))}${unit}`;
  } else {
    const h = Math.floor(u / 3600e9);
    u -= h * 3600e9;
    const mi = Math.floor(u / 60e9);
    u -= mi * 60e9;
    out = `${h ? `${h}h` : ''}${h || mi ? `${mi}m` : ''}${trim(u / 1e9)}s`;
  }
  return neg ? `-${out}` : out;
}

const trim = (x: number): string => String(Number(x.toFixed(9)));
