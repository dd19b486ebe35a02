/** A click on a simulator step or a lockout finding: select its document and focus the field that decided it. */
import { workspace, type WorkspaceDoc } from '../../store';

export function focusRef(doc: WorkspaceDoc | undefined, path: string): void {
  if (doc) workspace.getState().focusField(doc.id, path);
}
