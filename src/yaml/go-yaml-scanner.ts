/**
 * Where go-yaml v2's scanner (what kubectl and the apiserver read YAML with, through
 * sigs.k8s.io/yaml) and js-yaml's (YAML 1.2) read the same characters differently. README.md
 * ("Types: as Kubernetes reads YAML").
 */

/** The error for a `\/` escape, which go-yaml refuses. */
export const SLASH_ESCAPE =
  'YAML syntax error: \\/ is an escape Kubernetes does not know (its YAML reader says "found unknown escape character"); write / alone';

/**
 * Offset of the first `\/` in the content [from, to) of a double-quoted scalar, or -1. YAML 1.2
 * reads it as `/` (JSON's escape); go-yaml v2 knows YAML 1.1's escapes only and refuses the document.
 */
export function slashEscape(src: string, from: number, to: number): number {
  // each backslash escapes the character after it, which is skipped (`\\/` is a backslash and a slash)
  for (let i = src.indexOf('\\', from); i >= 0 && i < to; i = src.indexOf('\\', i + 2)) {
    if (src.charCodeAt(i + 1) === 47 /* / */) return i;
  }
  return -1;
}

/** The error for a tab that go-yaml refuses before a document's content. */
export const LEADING_TAB =
  'YAML syntax error: a tab starts this line, before the document\'s content; Kubernetes\' YAML reader refuses it ("found character that cannot start any token"): remove it or use spaces';

const BLANK_OR_COMMENT = /^[ \t]*(?:#.*)?\r?$/;
const MARKER_ALONE = /^(?:---|\.\.\.)(?:[ \t]+(?:#.*)?)?\r?$/;

/**
 * Offset of a tab among the blanks that start a line before the first content of the document
 * [start, end) (blank, comment, directive and marker lines), or -1. At a line's start in block
 * context go-yaml skips spaces only, and a tab cannot start a token; js-yaml reads the line as
 * blank, so a document of a tab alone was an empty document to it.
 */
export function leadingTab(text: string, start: number, end: number): number {
  for (let pos = start; pos < end; ) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0 || nl > end) nl = end;
    let i = pos === 0 && text.charCodeAt(0) === 0xfeff ? 1 : pos;
    while (text.charCodeAt(i) === 32) i++;
    if (i < nl && text.charCodeAt(i) === 9) return i;
    const line = text.slice(i, nl);
    if (!BLANK_OR_COMMENT.test(line) && !MARKER_ALONE.test(line) && line[0] !== '%') return -1;
    pos = nl + 1;
  }
  return -1;
}
