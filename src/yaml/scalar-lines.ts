/** Where the lines of a string scalar sit in the YAML text (coverage's LCOV and gutter marks). */
import { lineIndex } from './lines';

/**
 * The 1-based text line of each line of `value`, a string scalar whose YAML spans `start`..`end`
 * of `text` (a field's `positions.positionOf(path).value` offsets): a literal block (`|`) has its
 * lines one per text line after the indicator; for other styles each line of the value is looked
 * up, in order, among the scalar's lines (folded and quoted scalars join lines, so a line that is
 * not found stays on the last one found).
 */
export function scalarLines(text: string, start: number, end: number, value: string): number[] {
  const firstLine = lineIndex(text).lineColumn(start).line;
  const sourceLines = text.slice(start, end).split(/\r\n?|\n/);
  const out: number[] = [];
  let at = /^[|>]/.test(sourceLines[0] ?? '') ? 1 : 0;
  let last = firstLine + at;
  for (const l of value.split('\n')) {
    const needle = l.trim();
    let found = -1;
    if (needle) for (let k = at; k < sourceLines.length && found < 0; k++) if (sourceLines[k]!.includes(needle)) found = k;
    if (found >= 0) {
      last = firstLine + found;
      at = found + 1;
    }
    out.push(last);
  }
  return out;
}
