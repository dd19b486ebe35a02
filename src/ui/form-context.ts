/** What every form control needs besides its own field: the document, its problems, and whether it is editable. */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Problem } from '../store';

/** Problems by field path (exact path string). */
export type ProblemsByPath = ReadonlyMap<string, readonly Problem[]>;

/**
 * The problems of the form's document, as a store that keeps its identity for the life of
 * the form: an edit changes what it holds, not the context, so a keystroke re-renders only
 * the controls whose problems changed (useProblemsAt), not every control of the form.
 */
export type FormProblems = StoreApi<{ items: readonly Problem[]; byPath: ProblemsByPath }>;

export const createFormProblems = (items: readonly Problem[] = []): FormProblems => createStore(() => ({ items, byPath: problemsByPath(items) }));

/** Give the form the problems of a new version of its document (paths whose problems read the same keep their arrays). */
export function updateFormProblems(store: FormProblems, items: readonly Problem[]): void {
  const s = store.getState();
  if (s.items !== items) store.setState({ items, byPath: nextProblemsByPath(s.items, s.byPath, items, true) });
}

export interface FormContextValue {
  docId: string;
  problems: FormProblems;
  readOnly: boolean;
}

export const FormContext = createContext<FormContextValue>({ docId: '', problems: createFormProblems(), readOnly: true });

/** What a control of one field gets: the field, its path, its value and how to change it. */
export interface ControlProps<F> {
  field: F;
  path: string;
  value: unknown;
  onChange(value: unknown): void;
}

export const useForm = () => useContext(FormContext);

/** The problems at one field path; the component re-renders only when they change. */
export function useProblemsAt(path: string): readonly Problem[] | undefined {
  return useStore(useForm().problems, (s) => s.byPath.get(path));
}

/**
 * Problems that read the same: what the form and the problems list show of them. Their fixes
 * are compared by title only (a fix is rebuilt with every validation; FixButton applies the
 * current one).
 */
export function sameProblem(a: Problem, b: Problem): boolean {
  return (
    a === b ||
    (a.field === b.field &&
      a.message === b.message &&
      a.hint === b.hint &&
      a.level === b.level &&
      a.label === b.label &&
      a.lint === b.lint &&
      (a.fixes?.length ?? 0) === (b.fixes?.length ?? 0) &&
      (a.fixes ?? []).every((f, i) => f.title === b.fixes![i].title))
  );
}

const sameProblems = (a: readonly Problem[], b: readonly Problem[]) => a.length === b.length && a.every((p, i) => sameProblem(p, b[i]));

/**
 * Group problems by their field path. A path whose problems read the same as in `previous`
 * keeps its previous array, so the controls there are not re-rendered.
 */
export function problemsByPath(problems: readonly Problem[], previous?: ProblemsByPath): Map<string, readonly Problem[]> {
  const groups = new Map<string, Problem[]>();
  for (const p of problems) {
    const list = groups.get(p.field);
    if (list) list.push(p);
    else groups.set(p.field, [p]);
  }
  if (previous)
    for (const [path, list] of groups) {
      const before = previous.get(path);
      if (before && sameProblems(before, list)) groups.set(path, before as Problem[]);
    }
  return groups;
}

/**
 * `problemsByPath(items, previous)` for the next version of a document's problems, given the
 * previous items and their grouping. The store keeps a problem's identity while its cause is
 * unchanged, so the two arrays are mostly the same objects in the same order: they are lined up
 * (a common subsequence, found walking both with a short look-ahead) and only the paths of the
 * problems left over are grouped again (a keystroke at 10,000 webhooks touches a few of 30,000
 * problems). A path with no problem left over has the same problems in the same order in both.
 * `inPlace` updates `previous` itself (the form's store: no copy of 30,000 entries). Equal to
 * `problemsByPath(items, previous)` (property-tested).
 */
export function nextProblemsByPath(previousItems: readonly Problem[], previous: ProblemsByPath, items: readonly Problem[], inPlace = false): ProblemsByPath {
  const touched = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < previousItems.length && j < items.length) {
    if (previousItems[i] === items[j]) {
      i++, j++;
      continue;
    }
    const inserted = ahead(items, j, previousItems[i]!);
    const removed = inserted ? 0 : ahead(previousItems, i, items[j]!);
    if (inserted) for (const end = j + inserted; j < end; j++) touched.add(items[j]!.field);
    else if (removed) for (const end = i + removed; i < end; i++) touched.add(previousItems[i]!.field);
    else touched.add(previousItems[i++]!.field).add(items[j++]!.field);
    if (touched.size > REGROUP_ALL_ABOVE) return problemsByPath(items, previous);
  }
  for (; i < previousItems.length; i++) touched.add(previousItems[i]!.field);
  for (; j < items.length; j++) touched.add(items[j]!.field);
  if (!touched.size) return previous;
  if (touched.size > REGROUP_ALL_ABOVE) return problemsByPath(items, previous);
  const regrouped = new Map<string, Problem[]>();
  for (const p of items) {
    if (!touched.has(p.field)) continue;
    const list = regrouped.get(p.field);
    if (list) list.push(p);
    else regrouped.set(p.field, [p]);
  }
  const next = inPlace ? (previous as Map<string, readonly Problem[]>) : new Map(previous);
  for (const path of touched) {
    const list = regrouped.get(path);
    const before = previous.get(path);
    if (!list) next.delete(path);
    else if (!before || !sameProblems(before, list)) next.set(path, list);
  }
  return next;
}

/** How far ahead of `from` `p` is in `list` (1…LOOK_AHEAD), or 0. */
function ahead(list: readonly Problem[], from: number, p: Problem): number {
  for (let d = 1; d <= LOOK_AHEAD && from + d < list.length; d++) if (list[from + d] === p) return d;
  return 0;
}
const LOOK_AHEAD = 16;

/** Above this many touched paths, grouping everything again is as quick. */
const REGROUP_ALL_ABOVE = 2_000;
