/**
 * Saved simulator scenarios of a workspace file: each request sent through the checked
 * objects' admission chain (src/admission simulateDraft, the real CEL engine) with the webhook
 * responses the scenario assumes; the verdict compared with the expected one
 * (src/request scenarioFailures), as the Simulate view does.
 */
import { notRunReason, simulateDraft, type DraftOptions, type MutationBreak, type SimStep } from '../admission';
import { scenarioFailures, type Scenario } from '../request';

/**
 * Why a scenario fails (`failures`, [] when it passes), and the validators its mutations break
 * (M06 mutation-breaks-validation, src/admission/mutation-check.ts). `options.trace`: the run's
 * steps come back with their traced expressions (for coverage). Never throws.
 */
export async function scenarioProblems(
  objects: readonly unknown[],
  s: Scenario,
  options: DraftOptions = {},
): Promise<{ failures: string[]; breaks: MutationBreak[]; steps?: SimStep[] }> {
  const run = await simulateDraft(objects, { input: s.input, webhooks: s.webhooks }, options);
  if (run.ok) return { failures: scenarioFailures(s.expect, run.result), breaks: run.breaks, ...(options.trace ? { steps: run.result.steps } : {}) };
  return { failures: [notRunReason(run)], breaks: [] };
}
