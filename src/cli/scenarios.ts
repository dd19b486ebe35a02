/**
 * Saved simulator scenarios of a workspace file: each request sent through the checked
 * objects' admission chain (src/admission simulate, the real CEL engine) with the webhook
 * responses the scenario assumes; the verdict compared with the expected one
 * (src/request scenarioFailures), as the Simulate view does.
 */
import { mutationBreaks, simulate, type MutationBreak } from '../admission';
import type { KubernetesVersion } from '../k8s/versions';
import { scenarioFailures, toTestInput, toWebhookResponses, type Scenario } from '../request';

/**
 * Why a scenario fails (`failures`, [] when it passes), and the validators its mutations break
 * (M06 mutation-breaks-validation, src/admission/mutation-check.ts). Never throws.
 */
export async function scenarioProblems(objects: readonly unknown[], s: Scenario, kubernetesVersion?: KubernetesVersion): Promise<{ failures: string[]; breaks: MutationBreak[] }> {
  const { input, errors } = toTestInput(s.input);
  const { responses, errors: responseErrors } = toWebhookResponses(s.webhooks);
  if (errors.length || responseErrors.length) {
    return { failures: [`does not run: ${[...errors.map((e) => `${e.field}: ${e.message}`), ...responseErrors.map((e) => `${e.webhook}: ${e.message}`)].join('; ')}`], breaks: [] };
  }
  try {
    const options = {
      webhooks: responses,
      namespaces: input.namespaceObject !== undefined ? [input.namespaceObject] : undefined,
      authorizer: input.authorizer,
      ...(kubernetesVersion ? { kubernetesVersion } : {}),
    };
    const r = await simulate(objects, input.request, options);
    return { failures: scenarioFailures(s.expect, r), breaks: await mutationBreaks(objects, input.request, options, undefined, r) };
  } catch (e) {
    return { failures: [`the simulation failed: ${(e as Error).message}`], breaks: [] };
  }
}
