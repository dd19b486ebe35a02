/**
 * The seam to saved-case runs (policy cases, CEL cases, scenarios live with their models:
 * src/policy, src/request, src/admission): whatever runs them evaluates CEL through this, so
 * cases run in the environment of the same target release as the checks.
 */
import type { KubernetesVersion } from '../base/releases';
import type { PolicyCel } from '../policy/expressions';

/** `cel` with every evaluation in the environment of `release`. */
export const celAtRelease = <C extends PolicyCel>(cel: C, release: KubernetesVersion): C => ({
  ...cel,
  evaluate: (expression, context, inputs, options) => cel.evaluate(expression, context, inputs, { ...options, kubernetesVersion: release }),
});
