/**
 * The YAML pane follows the form: after a form edit reaches the YAML, the edited field's line is
 * scrolled into view (when it is outside the view). Called by the YAML pane once per applied
 * text; each edit is revealed once. Large documents are skipped: finding the line parses the
 * whole text again.
 */
import { docPositions, workspace, type WorkspaceDoc } from '../store';
import { formatPath } from '../base/path-format';

/** Above this many characters the line is not looked for (a parse of the text per form edit would cost more than a frame). */
const MAX_CHARS = 200_000;

let revealed = 0;

export function revealEdited(editor: { revealLineInCenterIfOutsideViewport(line: number): void }, doc: WorkspaceDoc): void {
  const edited = workspace.getState().edited;
  if (!edited || edited.seq === revealed || edited.docId !== doc.id || doc.error) return;
  revealed = edited.seq;
  if (doc.text.length > MAX_CHARS) return;
  const pos = docPositions(doc)?.positionOf(formatPath(edited.path));
  if (pos) editor.revealLineInCenterIfOutsideViewport((pos.key ?? pos.value).startLine);
}
