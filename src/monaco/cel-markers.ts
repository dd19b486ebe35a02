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

/** One position of a type-checking warning: `apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'`. */
export interface TypeCheckIssue {
  line: number;
  column: number;
  message: string;
  /** The kinds (`apps/v1, Kind=Deployment`) the problem was found for. */
  kinds: string[];
}

const KIND_HEAD = /^(\S[^\n]*?, Kind=[^:\n]+): /;
const ISSUE = /ERROR: <input>:(\d+):(\d+): ([^\n]*)/g;

/** The issues of kube-controller-manager's warning text (one paragraph per kind), the same position and message once with all its kinds. */
export function typeCheckIssues(warning: string): TypeCheckIssue[] {
  const byKey = new Map<string, TypeCheckIssue>();
  for (const para of warning.split(/\n\n(?=\S[^\n]*, Kind=)/)) {
    const kind = KIND_HEAD.exec(para)?.[1] ?? '';
    for (const m of para.matchAll(ISSUE)) {
      const key = `${m[1]}:${m[2]}:${m[3]}`;
      const issue = byKey.get(key) ?? { line: Number(m[1]), column: Number(m[2]), message: m[3]!, kinds: [] };
      if (kind && !issue.kinds.includes(kind)) issue.kinds.push(kind);
      byKey.set(key, issue);
    }
  }
  return [...byKey.values()];
}

/**
 * Type-checking warnings (status.typeChecking) as warning markers at their positions. cel-go
 * puts a field selection's position at its dot: the marker spans the field name after it.
 */
export function typeCheckMarkers(monaco: Pick<typeof Monaco, 'MarkerSeverity'>, model: Model, warnings: readonly string[]): Monaco.editor.IMarkerData[] {
  const lineCount = model.getLineCount();
  return warnings.flatMap(typeCheckIssues).map((issue) => {
    const lineNumber = Math.min(Math.max(1, issue.line), lineCount);
    const text = model.getLineContent(lineNumber);
    let start = Math.min(codePointColumnToUtf16(text, issue.column), text.length + 1);
    if (text[start - 1] === '.' && /[A-Za-z_]/.test(text[start] ?? '')) start++;
    let end = start;
    while (end <= text.length && /[A-Za-z0-9_]/.test(text[end - 1]!)) end++;
    return {
      severity: monaco.MarkerSeverity.Warning,
      source: 'type checking',
      message: `${issue.message}\n${issue.kinds.join('; ')} (the apiserver's type checking: kube-controller-manager writes this into status.typeChecking; the policy is still enforced)`,
      startLineNumber: lineNumber,
      startColumn: start,
      endLineNumber: lineNumber,
      endColumn: end === start ? start + 1 : end,
    };
  });
}
