/**
 * Planning one edit of applyEdits (./edit.ts): its path located in the current tree, and the
 * splices that make it (./edit-splice.ts), or the smaller edits it expands into, or nothing to
 * do. Design: ./README.md (Edit).
 */
import type { PathSegment } from '../base/path';
import { formatPath } from '../base/path-format';
import { deepEqual, isObject } from '../base/json';
import type { PosNode } from './pos-tree';
import { editsBetween, indexwise } from './edit-diff';
import { Writer } from './edit-splice';
import { freshStep, settle, type Loaded } from './edit-tree';
import { Refused, type Edit, type EditOptions, type Splice, type Step } from './edit-types';
import { getAt, moveAt, nest } from './edit-verify';

export type Plan =
  | { kind: 'noop' }
  | { kind: 'expand'; edits: Edit[] }
  /** `scope`: a later edit under it waits for these splices; `newEntryIn`: the map a new key goes into. */
  | { kind: 'ops'; splices: Omit<Splice, 'seq' | 'depth'>[]; scope: PathSegment[]; newEntryIn?: PathSegment[] };

function walk(root: PosNode, path: readonly PathSegment[]): { steps: Step[]; alias: boolean } {
  const steps: Step[] = [{ node: root }];
  for (const seg of path) {
    const node = steps[steps.length - 1]!.node;
    if (node.kind === 'map' && node.entries) {
      const key = String(seg);
      const entry = node.entries.find((e) => e.key === key);
      if (!entry) break;
      steps.push({ node: entry.node, entry });
    } else if (node.kind === 'seq' && node.items) {
      const idx = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
      const item = idx >= 0 ? node.items[idx] : undefined;
      if (!item) break;
      steps.push({ node: item });
    } else {
      return { steps, alias: node.kind === 'alias' };
    }
  }
  return { steps, alias: false };
}

export function planEdit(cur: Loaded, expected: unknown, path: PathSegment[], value: unknown, options: EditOptions): Plan {
  const { steps, alias } = walk(cur.root, path);
  const depth = steps.length - 1;
  const at = formatPath(path) || 'the document';
  if (alias) {
    settle(cur);
    throw new Refused(
      `${at} is inside an alias (${cur.text.slice(steps[depth]!.node.start, steps[depth]!.node.end)}): an edit there would change the anchor's other uses too. Edit the anchored node, or replace the alias with its own value.`,
    );
  }
  const w = new Writer(cur.text, cur.root, options);
  if (depth === path.length) {
    const step = steps[depth]!;
    if (value === undefined) {
      settle(cur);
      if (depth === 0) throw new Refused('The document itself cannot be deleted');
      return { kind: 'ops', splices: [w.remove(steps, path[depth - 1]!)], scope: path.slice(0, -1) };
    }
    const current = getAt(expected, path);
    if (deepEqual(current, value)) return { kind: 'noop' };
    const node = step.node;
    const sameKind = (Array.isArray(current) && Array.isArray(value) && node.kind === 'seq') || (isObject(current) && isObject(value) && node.kind === 'map');
    if (sameKind) return { kind: 'expand', edits: editsBetween(current, value, path) };
    if (node.kind === 'scalar' && (value === null || typeof value !== 'object') && node.end > node.start) {
      // The keystroke: only this node's offsets are read, so the tree need not be settled.
      return { kind: 'ops', splices: w.replaceScalar([...steps.slice(0, -1), freshStep(cur, step)], value, current), scope: path };
    }
    settle(cur);
    return { kind: 'ops', splices: [w.replace(steps, value)], scope: path };
  }
  if (value === undefined) return { kind: 'noop' };
  settle(cur);
  const container = steps[depth]!;
  const seg = path[depth]!;
  const node = container.node;
  if (node.kind === 'map') {
    return {
      kind: 'ops',
      splices: [w.insertEntry(steps, path.slice(0, depth), String(seg), nest(path.slice(depth + 1), value, at))],
      scope: path.slice(0, depth + 1),
      newEntryIn: path.slice(0, depth),
    };
  }
  if (node.kind === 'seq') {
    const idx = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
    if (idx !== node.items!.length) throw new Refused(`${at}: index ${String(seg)} is beyond the end of the list (${node.items!.length} items)`);
    return { kind: 'ops', splices: [w.appendItem(steps, nest(path.slice(depth + 1), value, at))], scope: path.slice(0, depth) };
  }
  // A scalar (null, `rules:`) or alias where a map or list is wanted: replace it.
  return { kind: 'ops', splices: [w.replace(steps, nest(path.slice(depth), value, at))], scope: path.slice(0, depth) };
}

/** A new list item before the item at `path` (or at the end). */
export function planInsert(cur: Loaded, path: PathSegment[], value: unknown): Plan {
  settle(cur);
  const listPath = path.slice(0, -1);
  const { steps, alias } = walk(cur.root, listPath);
  const at = formatPath(path);
  const list = steps[steps.length - 1]!.node;
  if (alias || steps.length - 1 !== listPath.length || list.kind !== 'seq') throw new Refused(`${at}: there is no list to insert into`);
  const idx = Number(path[path.length - 1]);
  const w = new Writer(cur.text, cur.root, {});
  const splice = idx >= list.items!.length ? w.appendItem(steps, value) : w.insertItem(steps, idx, value);
  return { kind: 'ops', splices: [splice], scope: listPath };
}

/** A block list item moved with its lines (comments above it included); elsewhere the items are diffed one by one. */
export function planMove(cur: Loaded, expected: unknown, path: PathSegment[], to: number): Plan {
  settle(cur);
  const listPath = path.slice(0, -1);
  const from = Number(path[path.length - 1]);
  const { steps, alias } = walk(cur.root, listPath);
  const list = steps[steps.length - 1]!.node;
  const w = new Writer(cur.text, cur.root, {});
  const cut = !alias && steps.length - 1 === listPath.length && list.kind === 'seq' && !list.flow ? w.moveItem(steps, from, to) : undefined;
  if (cut) return { kind: 'ops', splices: cut, scope: listPath };
  const before = getAt(expected, listPath) as unknown[];
  return { kind: 'expand', edits: indexwise(before, moveAt(before, [from], to) as unknown[], listPath) };
}
