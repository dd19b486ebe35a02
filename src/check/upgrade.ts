/**
 * The upgrade check: what changes for a workspace from release A to release B. The one check
 * pipeline (validation with CEL compiled by the real engine, lints, type checking) and every
 * saved case and scenario run once at each release (the CLI's `check --upgrade-from`); this file
 * compares the two answers. A problem is the same at both releases when it is at the same place
 * (file, document, object, field, type, rule) with the same severity and words (its own release's
 * number aside); at the same place
 * with other words or severity it "changed" (a case denied at A with one message and failing at B
 * with another); otherwise it appears or is gone at B.
 */
import { isKubernetesVersion, KUBERNETES_VERSIONS, type KubernetesVersion } from '../base/releases';
import type { Severity } from './severity';

/** What the comparison reads of a problem (the CLI's Problem has these and more). */
export interface UpgradeProblem {
  file: string;
  document: number;
  kind: string;
  name: string;
  field: string;
  type: string;
  severity: Severity;
  message: string;
  rule?: string;
}

export type UpgradeChangeKind = 'appears' | 'gone' | 'changed';

export interface UpgradeChange<P extends UpgradeProblem> {
  change: UpgradeChangeKind;
  /** The release the change is seen at (B). */
  release: KubernetesVersion;
  /** The problem at B ('appears', 'changed') or at A ('gone'). */
  problem: P;
  /** 'changed': the problem at the same place at A. */
  before?: P;
  /** A new error at B, or an error whose words or severity changed (a case's verdict). */
  worse: boolean;
}

const placeOf = (p: UpgradeProblem): string => JSON.stringify([p.file, p.document, p.kind, p.name, p.field, p.type, p.rule ?? '']);
/** The words, with the release's own number made neutral: "a 1.36 apiserver rejects" at 1.36 is the same finding as "a 1.37 apiserver rejects" at 1.37. */
const wordsAt = (message: string, release: KubernetesVersion): string =>
  message.replace(new RegExp(`(?<![\\d.])${release.replace('.', '\\.')}(?![\\d])`, 'g'), '<release>');
const sameOf = (p: UpgradeProblem, release: KubernetesVersion): string => JSON.stringify([placeOf(p), p.severity, wordsAt(p.message, release)]);

/** Removes and returns the first problem of `pool` with `key`, keeping the rest in order. */
function take<P extends UpgradeProblem>(pool: P[], key: (p: P) => string, k: string): P | undefined {
  const i = pool.findIndex((p) => key(p) === k);
  return i < 0 ? undefined : pool.splice(i, 1)[0];
}

/** The changes from the problems at release `fromRelease` to those at `release`, in the order of `to` then `from`. */
export function upgradeChanges<P extends UpgradeProblem>(
  from: readonly P[],
  to: readonly P[],
  fromRelease: KubernetesVersion,
  release: KubernetesVersion,
): UpgradeChange<P>[] {
  // counted as multisets: the same problem twice at A and once at B is one gone
  const before = [...from];
  const unmatched = to.filter((p) => take(before, (q) => sameOf(q, fromRelease), sameOf(p, release)) === undefined);
  const out: UpgradeChange<P>[] = [];
  for (const p of unmatched) {
    const was = take(before, placeOf, placeOf(p));
    // an error that stays an error in other words (an engine's new wording) is changed, not worse;
    // a case's changed outcome is worse (its expectation no longer holds as it did)
    const worse = p.severity === 'error' && (was?.severity !== 'error' || p.type === 'Case');
    if (was) out.push({ change: 'changed', release, problem: p, before: was, worse });
    else out.push({ change: 'appears', release, problem: p, worse });
  }
  for (const p of before) out.push({ change: 'gone', release, problem: p, worse: false });
  return out;
}

/** Why `from` → `to` cannot be compared (a usage error), or undefined. */
export function upgradeUsageError(from: string | undefined, to: KubernetesVersion): string | undefined {
  const v = from?.replace(/^v/, '');
  if (!isKubernetesVersion(v)) return `--upgrade-from must be one of ${KUBERNETES_VERSIONS.join(', ')}`;
  if (v === to) return `--upgrade-from ${v} is the target release itself: give the release to upgrade to with --kubernetes-version (or --platform)`;
  return undefined;
}
