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
  if (s.items !== items) store.setState({ items, byPath: nextProblemsByPath(s.items, s.byPath, items) });
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
 * previous items and their grouping: only the paths whose problems are not the same objects in
 * the same order are grouped again (a keystroke at 10,000 webhooks touches a few of 30,000
 * problems; the store keeps the others' identity). Equal to `problemsByPath(items, previousByPath)`
 * (property-tested).
 */
export function nextProblemsByPath(previousItems: readonly Problem[], previous: ProblemsByPath, items: readonly Problem[]): ProblemsByPath {
  const counts = new Map<string, number>();
  const touched = new Set<string>();
  for (const p of items) {
    const k = counts.get(p.field) ?? 0;
    counts.set(p.field, k + 1);
    if (previous.get(p.field)?.[k] !== p) touched.add(p.field);
  }
  if (touched.size > previous.size / 4 || previousItems.length !== sumOf(previous)) return problemsByPath(items, previous);
  for (const [path, list] of previous) if (counts.get(path) !== list.length) touched.add(path);
  if (!touched.size) return previous;
  const next = new Map(previous);
  const regrouped = new Map<string, Problem[]>();
  for (const p of items) {
    if (!touched.has(p.field)) continue;
    const list = regrouped.get(p.field);
    if (list) list.push(p);
    else regrouped.set(p.field, [p]);
  }
  for (const path of touched) {
    const list = regrouped.get(path);
    const before = previous.get(path);
    if (!list) next.delete(path);
    else next.set(path, before && sameProblems(before, list) ? before : list);
  }
  return next;
}

function sumOf(byPath: ProblemsByPath): number {
  let n = 0;
  for (const list of byPath.values()) n += list.length;
  return n;
}

