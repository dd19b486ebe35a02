/**
 * The position tree the YAML and JSON constructors build beside the values
 * (./construct.ts, ./json.ts), and their problems at text offsets.
 */
import type { PathSegment } from '../base/path';

/** Where a value is in the text (absolute 0-based offsets, end exclusive). */
export interface PosNode {
  kind: 'scalar' | 'seq' | 'map' | 'alias';
  start: number;
  end: number;
  flow: boolean;
  items?: PosNode[];
  entries?: PosEntry[];
  /**
   * A move of this subtree not yet made in its descendants (its own start and end are made):
   * an edit before it moves it in O(1) (moveTree, ./reparse.ts), and code that goes down the
   * tree takes it one level down first (`opened`). Absent or 0: none.
   */
  pend?: number;
}

/** Roots of trees with moves pending somewhere (code that reads a whole tree settles them first: settleTree). */
const pendingRoots = new WeakSet<PosNode>();

/** Move a subtree by `delta`: its own offsets now, its descendants' when they are read (`opened`). */
export function moveTree(n: PosNode, delta: number): void {
  n.start += delta;
  n.end += delta;
  if (n.items || n.entries) n.pend = (n.pend ?? 0) + delta;
}

/** Mark a tree whose nodes were moved with moveTree. */
export const markPending = (root: PosNode): void => void pendingRoots.add(root);

/** `n` with its pending move made in its children (their own offsets; their descendants' go on pending): call before reading `items` or `entries`. */
export function opened(n: PosNode): PosNode {
  const d = n.pend;
  if (!d) return n;
  if (n.items) for (const it of n.items) moveTree(it, d);
  if (n.entries)
    for (const e of n.entries) {
      e.keyStart += d;
      e.keyEnd += d;
      moveTree(e.node, d);
    }
  n.pend = 0;
  return n;
}

/** Make every pending move of a tree (for code that reads the tree's nodes directly: applyEdits, List items). */
export function settleTree(root: PosNode): PosNode {
  if (!pendingRoots.has(root)) return root;
  const visit = (n: PosNode): void => {
    opened(n);
    if (n.items) for (const it of n.items) visit(it);
    if (n.entries) for (const e of n.entries) visit(e.node);
  };
  visit(root);
  pendingRoots.delete(root);
  return root;
}

export interface PosEntry {
  key: string;
  keyStart: number;
  keyEnd: number;
  node: PosNode;
}

/** A problem at a range of the text (absolute offsets). */
export interface TextProblem {
  message: string;
  start: number;
  end: number;
  path?: PathSegment[];
  /** For a duplicate key: the key. */
  key?: string;
}
