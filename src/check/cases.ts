/**
 * Saved-case results, the pipeline's last part (docs/architecture.md "Problems"): policy cases,
 * CEL cases (cel-cases.ts) and simulator scenarios (scenarios.ts) run here, at the one target
 * release, for the CLI (`check --cases`, src/cli/cases.ts) and the app (src/store/policy-run.ts,
 * the policy panel's case badges) alike. Not re-exported by index.ts: it loads src/policy and
 * src/admission, which the store keeps out of the first bundle (the policy panel imports
 * policy-run.ts, and with it this file, on first use).
 */
import { kindOf, nameOf } from '../base/json';
import type { KubernetesVersion } from '../base/releases';
import { BINDING_KIND_OF, isPolicy } from '../k8s/resources';
import { runCases, type CaseTarget, type CasesReport, type PolicyCel, type PolicyTestCase, type RunCaseOptions } from '../policy';

export { runCelCases, type CelCaseRun, type CelRunner } from './cel-cases';
export { scenarioCoverageRuns, scenarioProblems } from './scenarios';

/** `cel` with every evaluation in the environment of `release`. */
export const celAtRelease = <C extends PolicyCel>(cel: C, release: KubernetesVersion): C => ({
  ...cel,
  evaluate: (expression, context, inputs, options) => cel.evaluate(expression, context, inputs, { ...options, kubernetesVersion: release }),
});

export { isPolicy };

/** The policy named `name` among the objects. */
export const findPolicy = (objects: readonly unknown[], name: string): unknown => objects.find((o) => isPolicy(o) && nameOf(o) === name);

/** What a policy's cases run against: its kind's bindings in the workspace, and every object as a possible param. */
export function caseTarget(policy: unknown, objects: readonly unknown[]): CaseTarget {
  const bindingKind = BINDING_KIND_OF[kindOf(policy)];
  return { policy, bindings: objects.filter((o) => kindOf(o) === bindingKind), paramDocuments: objects };
}

/** A policy's saved cases against the workspace, with the real engine at `release` (traced for coverage: `options.trace`). */
export const runPolicyCases = (
  policy: unknown,
  objects: readonly unknown[],
  cases: readonly PolicyTestCase[],
  cel: PolicyCel,
  release: KubernetesVersion,
  options: RunCaseOptions = {},
): Promise<CasesReport> => runCases(caseTarget(policy, objects), cases, celAtRelease(cel, release), { ...options, kubernetesVersion: release });
