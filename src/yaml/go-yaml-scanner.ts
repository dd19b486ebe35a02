/**
 * Where go-yaml v2's scanner (what kubectl and the apiserver read YAML with, through
 * sigs.k8s.io/yaml) and js-yaml's (YAML 1.2) read the same characters differently. README.md
 * ("Types: as Kubernetes reads YAML").
 */
import type { LineIndex } from './lines';
import type { PosNode, TextProblem } from './pos-tree';

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

/** A document as ./construct.ts builds it: what has offsets. */
interface Placed {
  at: number;
  pos: PosNode;
  errors: TextProblem[];
  warnings: TextProblem[];
  duplicates: TextProblem[];
}

/**
 * The documents of `src` (at `base` in the text, whose index is `lines`) read again with the blanks
 * before each line's content that hold a tab as spaces, where go-yaml reads every such line so:
 * inside a flow collection or a quoted scalar go-yaml skips tabs as blanks and asks no indentation,
 * where js-yaml counts spaces only and refuses a line indented less than the block around it
 * ("deficient indentation"). The blanks become as many spaces as the deepest indentation of `src`
 * and one more, so those lines are indented enough; the documents' offsets are moved back to the
 * text's. Undefined when there is no such tab, `read` throws, or a changed line is elsewhere (in a
 * plain or block scalar, after a plain scalar that go-yaml may read on into it, or in block
 * context): the caller keeps js-yaml's error. Neither context keeps a line's leading blanks in a value.
 */
export function readWithTabsAsSpaces<T extends Placed>(
  src: string,
  base: number,
  lines: LineIndex,
  read: (text: string, lines: LineIndex) => T[],
): T[] | undefined {
  const runs: { start: number; end: number }[] = [];
  let deepest = 0;
  for (let ls = 0; ls < src.length; ) {
    let i = ls;
    while (src[i] === ' ' || src[i] === '\t') i++;
    if (src.slice(ls, i).includes('\t')) runs.push({ start: ls, end: i });
    else deepest = Math.max(deepest, i - ls);
    // the next line: after \n, \r\n or a lone \r (YAML's line breaks)
    while (i < src.length && src[i] !== '\n' && src[i] !== '\r') i++;
    ls = src[i] === '\r' && src[i + 1] === '\n' ? i + 2 : i + 1;
  }
  if (!runs.length) return undefined;
  // each run's first content in the spaced text, and how far offsets from there move back
  const moves: { from: number; by: number; run: { start: number; end: number } }[] = [];
  let spaced = '';
  let done = 0;
  for (const run of runs) {
    spaced += `${src.slice(done, run.start)}${' '.repeat(deepest + 1)}`;
    done = run.end;
    moves.push({ from: base + spaced.length, by: spaced.length - run.end, run });
  }
  spaced += src.slice(done);
  /** An offset in the spaced text (absolute) → the same place in the text (one inside a run: at most the run's end). */
  const back = (off: number): number => {
    let k = moves.length - 1;
    while (k >= 0 && moves[k]!.from > off) k--;
    const moved = k < 0 ? off : off - moves[k]!.by;
    const next = moves[k + 1];
    return next ? Math.min(moved, base + next.run.end) : moved;
  };
  let documents: T[];
  try {
    documents = read(spaced, { ...lines, lineColumn: (o) => lines.lineColumn(back(o)) });
  } catch {
    return undefined;
  }
  const spans = scalarAndFlowSpans(
    spaced,
    base,
    documents.map((d) => d.pos),
  );
  const inside = (list: [number, number][], at: number) => list.some(([s, e]) => s < at && at < e);
  const ok = moves.every(({ from }) => {
    let j = from - base - 1;
    while (j >= 0 && /[ \t\r\n]/.test(spaced[j]!)) j--;
    return (inside(spans.flow, from) || inside(spans.quoted, from)) && !inside(spans.other, from) && !spans.plainEnds.has(base + j + 1);
  });
  if (!ok) return undefined;
  for (const d of documents) {
    d.at = back(d.at);
    moveBack(d.pos, back);
    for (const p of [...d.errors, ...d.warnings, ...d.duplicates]) [p.start, p.end] = [back(p.start), back(p.end)];
  }
  return documents;
}

function moveBack(n: PosNode, back: (off: number) => number): void {
  n.start = back(n.start);
  n.end = back(n.end);
  for (const item of n.items ?? []) moveBack(item, back);
  for (const e of n.entries ?? []) {
    e.keyStart = back(e.keyStart);
    e.keyEnd = back(e.keyEnd);
    moveBack(e.node, back);
  }
}

/** Where the trees' flow collections, quoted scalars and other scalars are (keys included), and where plain scalars end. */
function scalarAndFlowSpans(src: string, base: number, roots: PosNode[]) {
  const out = { flow: [] as [number, number][], quoted: [] as [number, number][], other: [] as [number, number][], plainEnds: new Set<number>() };
  const scalar = (start: number, end: number) => {
    if (start >= end) return;
    const c = src[start - base];
    if (c === '"' || c === "'") out.quoted.push([start, end]);
    else out.other.push([start, end]);
    if (c !== '"' && c !== "'" && c !== '|' && c !== '>') out.plainEnds.add(end);
  };
  const walk = (n: PosNode): void => {
    if (n.kind === 'scalar') scalar(n.start, n.end);
    else if (n.flow && n.kind !== 'alias') out.flow.push([n.start, n.end]);
    for (const item of n.items ?? []) walk(item);
    for (const e of n.entries ?? []) {
      scalar(e.keyStart, e.keyEnd);
      walk(e.node);
    }
  };
  for (const r of roots) walk(r);
  return out;
}
