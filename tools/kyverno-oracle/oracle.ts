/**
 * The Kyverno oracle from TypeScript (tests only): builds tools/kyverno-oracle through
 * go-oracle.mjs (cached) and decides a batch of requests in one process. Protocol: main.go.
 */
import { buildOracleAsync, ORACLE_BUILDS, runOracle } from '../go-oracle.mjs';

/** One decision to make: a Kyverno policy (legacy kyverno.io/v1 or policies.kyverno.io ValidatingPolicy) on a resource. */
export interface KyvernoRequest {
  policy: unknown;
  resource: unknown;
  /** UPDATE: the object before (default: the resource itself, as `kyverno test` does); DELETE: the object deleted. */
  oldResource?: unknown;
  /** CREATE (default), UPDATE or DELETE. */
  operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  /** Labels of the resource's Namespace (namespaceSelector, namespaceObject). */
  namespaceLabels?: Record<string, string>;
  userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The resource's plural (default: apimachinery's guess from the kind, as the CLI does offline). */
  plural?: string;
  /** Legacy policies: values of variables (a kyverno-test values file's). */
  variables?: Record<string, unknown>;
}

/** Kyverno's RuleStatus; `warning` only for rules whose failure action is a warning. */
export type KyvernoRuleStatus = 'pass' | 'fail' | 'skip' | 'error' | 'warning';

export interface KyvernoRuleResult {
  policy: string;
  /** The rule's name (legacy policies; `autogen-…` for the pod-controller rules); '' for a ValidatingPolicy. */
  rule: string;
  status: KyvernoRuleStatus;
  message?: string;
  /** Kyverno generated it from the source (pod-controller autogen). */
  generated?: boolean;
}

export interface KyvernoAnswer {
  /** Every rule response Kyverno gave (none: the policy did not match the resource). */
  results: KyvernoRuleResult[];
  /** A legacy policy with mutate rules: the resource after them (Kyverno's patched resource). */
  patched?: unknown;
  /** The request could not be decided (bad policy, unknown kind of policy …). */
  error?: string;
}

/** Builds (or finds) the oracle and decides every request, in order. */
export async function decideKyverno(requests: readonly KyvernoRequest[]): Promise<KyvernoAnswer[]> {
  if (requests.length === 0) return [];
  const { path } = await buildOracleAsync(ORACLE_BUILDS['kyverno-oracle']);
  const out = await runOracle(path, requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const answers = out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as KyvernoAnswer);
  if (answers.length !== requests.length) throw new Error(`kyverno-oracle answered ${answers.length} lines for ${requests.length} requests`);
  return answers;
}
