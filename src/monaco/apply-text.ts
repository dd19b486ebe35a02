/**
 * Put a new text into a Monaco model by replacing only the part that differs: cheap for
 * large texts, one undo step, and the cursor stays where it was. `known` is the model's
 * text as the caller last saw it (saves reading a large model back); it is checked.
 */
import type * as Monaco from 'monaco-editor';
import { changedRange } from '../base/text-diff';

export function applyText(monaco: { Range: typeof Monaco.Range }, model: Monaco.editor.ITextModel, text: string, known?: string): void {
  const old = known !== undefined && model.getValueLength() === known.length ? known : model.getValue();
  if (old === text) return;
  const change = changedRange(old, text);
  if (!change) return;
  const { at: start, oldEnd: endOld, newEnd: endNew } = change;
  const from = model.getPositionAt(start);
  const to = model.getPositionAt(endOld);
  model.pushEditOperations(
    [],
    [{ range: new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column), text: text.slice(start, endNew) }],
    () => null,
  );
}
