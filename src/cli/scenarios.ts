/**
 * Saved simulator scenarios of a workspace file: each request sent through the checked
 * objects' admission chain (src/admission simulate, the real CEL engine) with the webhook
 * responses the scenario assumes; the verdict compared with the expected one
 * (src/request scenarioFailures), as the Simulate view does.
 */
import { simulate } from '../admission';
import type { KubernetesVersion } from '../k8s/versions';
import { scenarioFailures, toTestInput, toWebhookResponses, type Scenario } from '../request';

/** Why a scenario fails ([] when it passes). Never throws. */
export async function scenarioProblems(objects: readonly unknown[], s: Scenario, kubernetesVersion?: KubernetesVersion): Promise<string[]> {
  const { input, errors } = toTestInput(s.input);
  const { responses, errors: responseErrors } = toWebhookResponses(s.webhooks);
  if (errors.length || responseErrors.length) {
    return [`does not run: ${[...errors.map((e) => `${e.field}: ${e.message}`), ...responseErrors.map((e) => `${e.webhook}: ${e.message}`)].join('; ')}`];
  }
  try {
    const r = await simulate(objects, input.request, {
      webhooks: responses,
      namespaces: input.namespaceObject !== undefined ? [input.namespaceObject] : undefined,
      authorizer: input.authorizer,
      ...(kubernetesVersion ? { kubernetesVersion } : {}),
    });
    return scenarioFailures(s.expect, r);
  } catch (e) {
    return [`the simulation failed: ${(e as Error).message}`];
  }
}
