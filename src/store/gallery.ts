/**
 * Opening an entry of the policy gallery (src/k8s/gallery): its documents join the workspace
 * as one import (one undo step, the YAML with its source comments kept) and its cases are
 * saved on its policies, where the policy test panel runs them.
 */
import { GALLERY, type GalleryEntry } from '../k8s/gallery';
import { nameOf } from '../base/json';
import { readPolicyCase } from '../request';
import { testInputs, type TestInputsStore } from './test-inputs';
import { workspace, type WorkspaceStore } from './workspace';

export { GALLERY, type GalleryEntry };

const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy']);

/** Adds the entry's documents and saves its cases; selects its first policy. Returns the new documents' ids. */
export function openGalleryEntry(entry: GalleryEntry, ws: WorkspaceStore = workspace, tests: TestInputsStore = testInputs): string[] {
  const ids = ws.getState().importText(entry.yaml, `gallery: ${entry.title}`);
  const added = ws.getState().docs.filter((d) => ids.includes(d.id));
  const policies = added.filter((d) => POLICY_KINDS.has(String((d.object as { kind?: unknown } | undefined)?.kind)));
  // the gallery's cases are plain data in the saved-case shape of src/request (src/k8s cannot import it): read them as saved cases are read
  for (const doc of policies)
    (entry.cases[nameOf(doc.object)] ?? []).forEach((c, i) => {
      const saved = readPolicyCase(c, i);
      if (saved) tests.getState().savePolicyCase(doc.id, saved);
    });
  if (policies[0]) ws.getState().select(policies[0].id);
  return ids;
}
