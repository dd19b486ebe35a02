/**
 * Which problems get a YAML marker or a code action: all of them, or, above ALL_MARKERS_UP_TO,
 * those in the list elements around the lines asked about (10,000 webhooks: 30,000 problems).
 */
import type { Problem } from '../store';

/**
 * Above this many problems (10,000 webhooks: 30,000 findings), markers are set for the lines
 * around the visible ones only, again as the view scrolls: Monaco's work per marker, and ours
 * per position, made every keystroke a long task. Below it, every problem has its marker.
 */
export const ALL_MARKERS_UP_TO = 2_000;
/** Lines above and below the visible ones that get markers too. */
const MARKER_MARGIN_LINES = 200;

/** What is asked of a document's positions here (docPositions). */
type Positions = { pathAtLineColumn(line: number, column: number): { path: string } | undefined };

/** The problems whose field is in list elements around the visible lines (or in no list element), when there are many. */
export function nearVisible(
  items: readonly Problem[],
  positions: Positions,
  visible: { startLine: number; endLine: number } | undefined,
  margin = MARKER_MARGIN_LINES,
): readonly Problem[] {
  if (items.length <= ALL_MARKERS_UP_TO || !visible) return items;
  const lineAt = (line: number) => positions.pathAtLineColumn(Math.max(1, line), 1)?.path ?? '';
  const first = lineAt(visible.startLine - margin);
  const last = lineAt(visible.endLine + margin);
  const a = elementOf(first);
  const b = elementOf(last);
  const from = a ? a.index : 0;
  const to = b && (!a || b.list === a.list) ? b.index : Infinity;
  // Positions in `items` of the problems kept, from the index by list element (built once per problems array).
  const index = elementIndex(items);
  const kept = [...index.others];
  for (const [list, byElement] of index.lists) {
    const [lo, hi] = !a || list === a.list ? [from, Math.min(to, byElement.length - 1)] : [0, byElement.length - 1];
    for (let i = lo; i <= hi; i++) if (byElement[i]) kept.push(...byElement[i]!);
  }
  return kept.sort((x, y) => x - y).map((i) => items[i]!);
}

/** Where each problem of a problems array is, by top list element: positions in the array. */
interface ElementIndex {
  /** Problems in no list element. */
  others: number[];
  /** List name → element index → positions of its problems (in order). */
  lists: Map<string, number[][]>;
}
const indexes = new WeakMap<readonly Problem[], ElementIndex>();
/** One pass over the problems per problems array (Monaco asks for code actions, and markers follow the view, many times per keystroke). */
function elementIndex(items: readonly Problem[]): ElementIndex {
  let index = indexes.get(items);
  if (index) return index;
  index = { others: [], lists: new Map() };
  items.forEach((p, i) => {
    const m = problemElement(p);
    if (!m) return index!.others.push(i);
    let byElement = index!.lists.get(m.list);
    if (!byElement) index!.lists.set(m.list, (byElement = []));
    (byElement[m.index] ??= []).push(i);
  });
  indexes.set(items, index);
  return index;
}

/** The top list element a path is in (`webhooks[12]…` → webhooks, 12), if any. */
function elementOf(path: string): { list: string; index: number } | undefined {
  const m = /^([^[]*)\[(\d+)\]/.exec(path);
  return m ? { list: m[1]!, index: Number(m[2]) } : undefined;
}

/** elementOf(p.field), once per problem object (problems of unchanged webhooks are kept: 30,000 per keystroke otherwise). */
const elements = new WeakMap<Problem, { list: string; index: number } | null>();
function problemElement(p: Problem): { list: string; index: number } | undefined {
  let e = elements.get(p);
  if (e === undefined) elements.set(p, (e = elementOf(p.field) ?? null));
  return e ?? undefined;
}
