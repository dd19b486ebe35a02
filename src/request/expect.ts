/**
 * Expectations of saved CEL cases: an expected value (YAML or JSON text, kept as typed) or
 * an error, and whether a result meets it.
 */
import { deepEqual } from '../base/json';
import { parseDocuments } from '../yaml';

export type CelExpectation = { error: true } | { error: false; value: string };

/** Deep equality of JSON-like values (object key order ignored). */
export const sameValue = deepEqual;

/** The value of an expectation text; an unparsable text is reported. */
export function expectedValue(text: string): { value: unknown } | { error: string } {
  if (!text.trim()) return { value: null };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    // not JSON: YAML (parseDocuments reads mappings, so the value is wrapped in one)
  }
  const wrapped = `value:\n${text.replace(/^/gm, '  ')}\n`;
  const { documents, errors } = parseDocuments(wrapped);
  if (errors.length) return { error: errors[0].message };
  return { value: (documents[0]?.object as { value?: unknown } | undefined)?.value ?? null };
}

export type Outcome = { ok: true; value: unknown } | { ok: false };

/** Whether a result meets an expectation. */
export function passes(expect: CelExpectation, outcome: Outcome): boolean {
  if (expect.error) return !outcome.ok;
  if (!outcome.ok) return false;
  // Ints beyond ±2^53 come back as decimal strings: compare their text.
  if (typeof outcome.value === 'string' && /^-?\d+$/.test(expect.value.trim())) return outcome.value === expect.value.trim();
  const e = expectedValue(expect.value);
  if ('error' in e) return false;
  return sameValue(e.value, outcome.value);
}

/** A value as the expectation text a new case starts with. */
export function expectationText(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return String(value);
  }
}
