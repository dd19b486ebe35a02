/**
 * The typed fields of `object`/`oldObject` and `params` for the CEL editor's completion and hover:
 * the kinds an admission document's expression can see (a policy's matchConstraints and
 * paramKind, a webhook's rules for its matchConditions), typed by the schemas the type checker
 * uses (src/admission/schema-fields.ts), at the workspace's target release with its
 * CustomResourceDefinitions. The release's schema asset loads on the first question, not with the
 * page. Undefined for anything else (the scratchpad, no schema known).
 */
import type { SchemaFieldsAt, TypedRoot } from '../admission/schema-fields';
import { workspace } from './workspace';

/** The fields at `path` (field names, '[]' for a list's element or a map's value, '[*]' for a list's element) of `root` in the expression at `field` of a document. */
export async function typedFields(docId: string, field: string, root: TypedRoot, path: readonly string[]): Promise<SchemaFieldsAt | undefined> {
  const s = workspace.getState();
  const doc = s.docs.find((d) => d.id === docId);
  if (!doc) return undefined;
  const { kindFieldsAt, typedRootKinds } = await import('../admission/schema-fields');
  const objects = s.docs.map((d) => d.object);
  const kinds = typedRootKinds(doc.object, field, root, s.kubernetesVersion, objects);
  return kindFieldsAt(kinds, path, { kubernetesVersion: s.kubernetesVersion, workspace: objects }).catch(() => undefined);
}
