/** One line of the CLI's report, in the JSON shape of `--format json`. */
import type { Severity } from '../check/severity';
import type { Lint } from '../k8s/lints';

export type { Severity };
/** A finding's own level (the lint tables'): `warning` risky, `info` worth knowing. */
export type FindingLevel = Lint['severity'];

/**
 * `type`: the apiserver's error type (Invalid, Required, …), `Lint` for a best-practice
 * finding, `YAML` for a parse problem, `File` for input that could not be read, `Case` /
 * `Scenario` for a saved case that failed.
 */
export interface Problem {
  file: string;
  line: number;
  column: number;
  /** 0-based index of the YAML document in the file. */
  document: number;
  kind: string;
  name: string;
  /** Field path (`webhooks[0].timeoutSeconds`); '' for the whole document or file. */
  field: string;
  type: string;
  /** error / warning: what the apiserver would answer; finding: ours (a lint), never the apiserver's. */
  severity: Severity;
  /** For findings: the lint's level. */
  level?: FindingLevel;
  message: string;
  /** The lint rule id (W03) or the case's name. */
  rule?: string;
  hint?: string;
}

/**
 * `--fail-on`, in the same vocabulary: `warning` = the apiserver's warnings (and errors),
 * `finding` = anything. Before, `warning` also meant findings of level warning; that is now
 * `--fail-on finding`.
 */
export type FailOn = 'error' | 'warning' | 'finding';

const RANK: Record<Severity, number> = { error: 2, warning: 1, finding: 0 };
const THRESHOLD: Record<FailOn, number> = { error: 2, warning: 1, finding: 0 };

/** Whether a problem is at or above `--fail-on`. */
export const fails = (p: Problem, failOn: FailOn): boolean => RANK[p.severity] >= THRESHOLD[failOn];

/** Problems in report order: by file (as given), then line and column. */
export function sortProblems(problems: readonly Problem[], fileOrder: readonly string[]): Problem[] {
  const order = new Map(fileOrder.map((f, i) => [f, i]));
  const rank = (f: string) => order.get(f) ?? Number.MAX_SAFE_INTEGER;
  return [...problems].sort((a, b) => rank(a.file) - rank(b.file) || a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}
