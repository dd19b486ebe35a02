/** Offsets ↔ 1-based line/column over one text. */
import type { SourceRange } from './types';

export interface LineIndex {
  /** 1-based line and column of a 0-based offset. */
  lineColumn(offset: number): { line: number; column: number };
  /** 0-based offset of a 1-based line and column (clamped to the text). */
  offset(line: number, column: number): number;
  range(start: number, end: number): SourceRange;
}

/** 0-based index of the line holding `offset`, by binary search in the lines' start offsets (ascending, the first 0). */
export function lineOfOffset(starts: ArrayLike<number>, offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function lineIndex(text: string): LineIndex {
  const starts: number[] = [0];
  if (text.includes('\r') && /\r(?!\n)/.test(text)) {
    // Lone CRs break lines too (as in YAML and Monaco).
    const re = /\r\n?|\n/g;
    for (let m = re.exec(text); m; m = re.exec(text)) starts.push(m.index + m[0].length);
  } else {
    let i = text.indexOf('\n');
    while (i >= 0) {
      starts.push(i + 1);
      i = text.indexOf('\n', i + 1);
    }
  }
  const lineOf = (offset: number): number => lineOfOffset(starts, offset);
  const lineColumn = (offset: number) => {
    const o = Math.max(0, Math.min(offset, text.length));
    const l = lineOf(o);
    return { line: l + 1, column: o - starts[l]! + 1 };
  };
  return {
    lineColumn,
    offset(line, column) {
      const l = Math.max(1, Math.min(line, starts.length)) - 1;
      const lineEnd = l + 1 < starts.length ? starts[l + 1]! - 1 : text.length;
      return Math.min(starts[l]! + Math.max(column, 1) - 1, lineEnd);
    },
    range(start, end) {
      const a = lineColumn(start);
      const b = lineColumn(end);
      return {
        startLine: a.line,
        startColumn: a.column,
        endLine: b.line,
        endColumn: b.column,
        startOffset: start,
        endOffset: end,
      };
    },
  };
}
