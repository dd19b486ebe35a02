/** Compile issues of a CEL expression as Monaco markers. */
import type * as Monaco from 'monaco-editor';
import type { CelCompileResult } from '../cel/types';
import type { Model } from './cel-model';

/** Converts a 1-based code-point column on a line to Monaco's 1-based UTF-16 column. */
export function codePointColumnToUtf16(line: string, column: number): number {
  let utf16 = 0;
  let cp = 1;
  for (const ch of line) {
    if (cp >= column) break;
    utf16 += ch.length;
    cp++;
  }
  return utf16 + 1 + Math.max(0, column - cp);
}

const WHOLE_EXPRESSION = /^(must evaluate to|program instantiation failed|unexpected)/;

/**
 * Compile issues as Monaco markers. Positions are the engine's (1-based line, 1-based
 * code-point column) converted to UTF-16 columns; a marker spans the token at its column.
 * Issues without a position (result type, program instantiation) span the whole model.
 * `offset` shifts the markers when the expression is embedded in a larger model.
 */
export function celMarkers(
  monaco: Pick<typeof Monaco, 'MarkerSeverity'>,
  model: Model,
  result: CelCompileResult | undefined,
  offset: { line: number; column: number } = { line: 0, column: 0 },
): Monaco.editor.IMarkerData[] {
  if (!result || result.ok) return [];
  const lineCount = model.getLineCount();
  const markers: Monaco.editor.IMarkerData[] = [];
  const issues = result.issues.length ? result.issues : [{ message: result.message ?? 'invalid expression', line: 1, column: 1 }];
  for (const issue of issues) {
    if (WHOLE_EXPRESSION.test(issue.message) && offset.line === 0) {
      markers.push({
        severity: monaco.MarkerSeverity.Error,
        message: issue.message,
        source: 'CEL',
        startLineNumber: 1,
        startColumn: 1,
        endLineNumber: lineCount,
        endColumn: model.getLineMaxColumn(lineCount),
      });
      continue;
    }
    const lineNumber = Math.min(Math.max(1, issue.line + offset.line), lineCount);
    const text = model.getLineContent(lineNumber);
    const columnShift = issue.line === 1 ? offset.column : 0;
    const start = Math.min(codePointColumnToUtf16(text, issue.column) + columnShift, text.length + 1);
    let end = start;
    while (end <= text.length && /[A-Za-z0-9_]/.test(text[end - 1]!)) end++;
    if (end === start) end = Math.min(start + 1, text.length + 1);
    markers.push({
      severity: monaco.MarkerSeverity.Error,
      message: issue.message,
      source: 'CEL',
      startLineNumber: lineNumber,
      startColumn: start,
      endLineNumber: lineNumber,
      endColumn: end === start ? start + 1 : end,
    });
  }
  return markers;
}

/** Sets (or clears, when ok/undefined) the `cel` markers of a model. */
export function setCelMarkers(
  monaco: Pick<typeof Monaco, 'MarkerSeverity' | 'editor'>,
  model: Model,
  result: CelCompileResult | undefined,
  owner = 'cel',
): void {
  monaco.editor.setModelMarkers(model, owner, celMarkers(monaco, model, result));
}
