/** Values as text in a control: strings as they are, everything else as JSON (bigint-safe: YAML can hold int64). */
export function displayValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}
