/**
 * Put a new text into a Monaco model by replacing only the part that differs: cheap for
 * large texts, one undo step, and the cursor stays where it was. `known` is the model's
 * text as the caller last saw it (saves reading a large model back); it is checked.
 */
import type * as Monaco from 'monaco-editor';

export function applyText(monaco: { Range: typeof Monaco.Range }, model: Monaco.editor.ITextModel, text: string, known?: string): void {
  const old = known !== undefined && model.getValueLength() === known.length ? known : model.getValue();
  if (old === text) return;
  let start = 0;
  const max = Math.min(old.length, text.length);
  while (start < max && old.charCodeAt(start) === text.charCodeAt(start)) start++;
  let endOld = old.length;
  let endNew = text.length;
  while (endOld > start && endNew > start && old.charCodeAt(endOld - 1) === text.charCodeAt(endNew - 1)) {
    endOld--;
    endNew--;
  }
  const from = model.getPositionAt(start);
  const to = model.getPositionAt(endOld);
  model.pushEditOperations([], [{ range: new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column), text: text.slice(start, endNew) }], () => null);
}
