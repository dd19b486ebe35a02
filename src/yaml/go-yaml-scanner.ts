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
