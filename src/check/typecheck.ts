/**
 * Type checking in the check pipeline: every ValidatingAdmissionPolicy of the workspace
 * through typeCheckPolicy (src/admission/typecheck.ts) at the target release. Not a
 * rejection: kube-controller-manager's validatingadmissionpolicy-status-controller writes
 * these into the policy's status.typeChecking.expressionWarnings after it is stored, and
 * the policy is enforced as written. Asynchronous (the schemas load on first use), so it
 * runs beside checkObject rather than in it.
 */
import { typeCheckPolicyResult } from '../admission/typecheck';
import { isObject, str } from '../base/json';
import type { KubernetesVersion } from '../base/releases';

/** The problem type (the code in the CLI's report and the problems list). */
export const TYPE_CHECKING = 'TypeChecking';

export const TYPE_CHECKING_HINT =
  'kube-controller-manager writes this into status.typeChecking.expressionWarnings; the policy is still stored and enforced as written';

export interface TypeCheckProblem {
  /** The apiserver's fieldRef: spec.validations[0].expression. */
  field: string;
  type: typeof TYPE_CHECKING;
  /** The controller's warning (one paragraph per checked kind). */
  message: string;
  /** Where the warning goes in Kubernetes (TYPE_CHECKING_HINT). */
  hint: string;
}

export const isTypeChecked = (o: unknown): boolean =>
  isObject(o) && o.kind === 'ValidatingAdmissionPolicy' && str(o.apiVersion).startsWith('admissionregistration.k8s.io/');

/** One list per object, in order (empty for objects that are not ValidatingAdmissionPolicies, and when the engine cannot check). */
export async function typeCheckWorkspace(objects: readonly unknown[], options: { kubernetesVersion?: KubernetesVersion } = {}): Promise<TypeCheckProblem[][]> {
  const out: TypeCheckProblem[][] = [];
  for (const o of objects) {
    if (!isTypeChecked(o)) {
      out.push([]);
      continue;
    }
    const r = await typeCheckPolicyResult(o, { kubernetesVersion: options.kubernetesVersion, workspace: objects });
    out.push(r.warnings.map((w) => ({ field: w.fieldRef, type: TYPE_CHECKING, message: w.warning.trimEnd(), hint: TYPE_CHECKING_HINT })));
  }
  return out;
}
