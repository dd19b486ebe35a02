/**
 * Saved simulator scenarios of a workspace file: each request sent through the checked
 * objects' admission chain (src/admission simulateDraft, the real CEL engine) with the webhook
 * responses the scenario assumes; the verdict compared with the expected one
 * (src/request scenarioFailures), as the Simulate view does.
 */
import { notRunReason, simulateDraft, type MutationBreak, type SimStep } from '../admission';
import type { KubernetesVersion } from '../base/releases';
import { scenarioFailures, type Scenario } from '../request';

/**
 * Why a scenario fails (`failures`, [] when it passes), and the validators its mutations break
 * (M06 mutation-breaks-validation, src/admission/mutation-check.ts). `trace`: the run's steps come
 * back with their traced expressions (for coverage). Never throws.
 */
export async function scenarioProblems(
  objects: readonly unknown[],
  s: Scenario,
  kubernetesVersion?: KubernetesVersion,
  trace = false,
): Promise<{ failures: string[]; breaks: MutationBreak[]; steps?: SimStep[] }> {
  const run = await simulateDraft(objects, { input: s.input, webhooks: s.webhooks }, kubernetesVersion, trace);
  if (run.ok) return { failures: scenarioFailures(s.expect, run.result), breaks: run.breaks, ...(trace ? { steps: run.result.steps } : {}) };
  return { failures: [notRunReason(run)], breaks: [] };
}
