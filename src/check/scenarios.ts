/**
 * Saved simulator scenarios of a workspace file: each request sent through the checked
 * objects' admission chain (src/admission simulateDraft, the real CEL engine) with the webhook
 * responses the scenario assumes; the verdict compared with the expected one
 * (src/request scenarioFailures), as the Simulate view does.
 */
import { notRunReason, simulateDraft, type DraftOptions, type MutationBreak, type SimStep } from '../admission';
import { scenarioFailures, type Scenario } from '../request';
import type { CelTraceNode } from '../cel/types';
import { isPolicy } from '../k8s/resources';
import type { CoverageRun } from '../policy/coverage';

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
  const run = await simulateDraft(
    objects,
    { input: s.input, webhooks: s.webhooks, ...(s.authorization ? { authorization: s.authorization } : {}), ...(s.cluster ? { cluster: s.cluster } : {}) },
    options,
  );
  if (run.ok) return { failures: scenarioFailures(s.expect, run.result), breaks: run.breaks, ...(options.trace ? { steps: run.result.steps } : {}) };
  return { failures: [notRunReason(run)], breaks: [] };
}

/**
 * A scenario's traced steps as coverage runs (src/policy/coverage.ts): one run per policy the
 * scenario ran, holding each of its traced expressions — a scenario counts as a case of each
 * policy it runs, in `check --coverage` and in the editor alike.
 */
export function scenarioCoverageRuns(name: string, objects: readonly unknown[], steps: readonly SimStep[]): Map<unknown, CoverageRun> {
  const byPolicy = new Map<unknown, CoverageRun>();
  for (const step of steps) {
    const policy = objects[step.document.index];
    if (!step.expressions?.length || !isPolicy(policy)) continue;
    const run = byPolicy.get(policy) ?? byPolicy.set(policy, { name: `scenario ${name}`, samples: [] }).get(policy)!;
    for (const e of step.expressions) run.samples.push({ field: e.field, outcome: rootOutcome(e.trace), trace: e.trace });
  }
  return byPolicy;
}

/** An expression's result from its trace (the root node comes first). */
function rootOutcome(trace: readonly CelTraceNode[]): 'true' | 'false' | 'error' | 'value' {
  const root = trace[0];
  return !root || root.error !== undefined ? 'error' : root.value === true ? 'true' : root.value === false ? 'false' : 'value';
}
