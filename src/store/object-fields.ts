/**
 * The typed fields of `object`/`oldObject` for the CEL editor's completion and hover: the kinds a
 * policy document's matchConstraints can match, typed by the schemas the type checker uses
 * (src/admission/schema-fields.ts), at the workspace's target release with its
 * CustomResourceDefinitions. The release's schema asset loads on the first question, not with
 * the page. Undefined for anything else (webhooks, the scratchpad, no schema known).
 */
import { isObject, str } from '../base/json';
import type { SchemaFieldsAt } from '../admission/schema-fields';
import { workspace } from './workspace';

const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'];

/** The fields at `path` (field names, '[]' for a list's element or a map's value) of a policy document's `object`. */
export async function objectFields(docId: string, path: readonly string[]): Promise<SchemaFieldsAt | undefined> {
  const s = workspace.getState();
  const doc = s.docs.find((d) => d.id === docId);
  const o = doc?.object;
  if (!isObject(o) || !POLICY_KINDS.includes(str(o.kind)) || !str(o.apiVersion).startsWith('admissionregistration.k8s.io/')) return undefined;
  const { objectFieldsAt } = await import('../admission/schema-fields');
  return objectFieldsAt(o, path, { kubernetesVersion: s.kubernetesVersion, workspace: s.docs.map((d) => d.object) }).catch(() => undefined);
}
