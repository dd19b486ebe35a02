/** What every form control needs besides its own field: the document, its problems, and whether it is editable. */
import { createContext, useContext } from 'react';
import type { Problem } from '../store';

export interface FormContextValue {
  docId: string;
  /** Problems by field path (exact path string). */
  problems: ReadonlyMap<string, readonly Problem[]>;
  readOnly: boolean;
}

export const FormContext = createContext<FormContextValue>({ docId: '', problems: new Map(), readOnly: true });

/** What a control of one field gets: the field, its path, its value and how to change it. */
export interface ControlProps<F> {
  field: F;
  path: string;
  value: unknown;
  onChange(value: unknown): void;
}

export const useForm = () => useContext(FormContext);

/** Group problems by their field path. */
export function problemsByPath(problems: readonly Problem[]): Map<string, Problem[]> {
  const map = new Map<string, Problem[]>();
  for (const p of problems) {
    const list = map.get(p.field);
    if (list) list.push(p);
    else map.set(p.field, [p]);
  }
  return map;
}
