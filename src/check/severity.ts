/**
 * One vocabulary for the UI and the CLI, the apiserver's: an **error** is what the apiserver
 * would reject the object with, a **warning** what it would accept with a warning (or strict
 * decoding would reject, like unknown fields; YAML warnings count here too). A **finding** is
 * ours, never the apiserver's: a lint or caBundle finding, with its own level
 * (`warning` = risky, `info` = worth knowing), shown as "finding" everywhere.
 */
import type { FieldError } from '../k8s/errors';

export type Severity = 'error' | 'warning' | 'finding';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'finding'];

/** The severity of an apiserver answer. */
export const severityOf = (e: Pick<FieldError, 'severity'>): Severity => (e.severity === 'warning' ? 'warning' : 'error');

/** How each count is worded, "1 error, 2 warnings, 3 findings". */
export function countsText(c: { errors: number; warnings: number; findings: number }): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [plural(c.errors, 'error'), plural(c.warnings, 'warning'), plural(c.findings, 'finding')].join(', ');
}
