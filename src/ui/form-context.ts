/** What every form control needs besides its own field: the document, its problems, and whether it is editable. */
import { createContext, useContext } from 'react';
import type { FieldError } from '../k8s';

export interface FormContextValue {
  docId: string;
  /** Problems by field path (exact path string). */
  problems: ReadonlyMap<string, readonly FieldError[]>;
  readOnly: boolean;
}

export const FormContext = createContext<FormContextValue>({ docId: '', problems: new Map(), readOnly: true });

export const useForm = () => useContext(FormContext);

/** Group problems by their field path. */
export function problemsByPath(problems: readonly FieldError[]): Map<string, FieldError[]> {
  const map = new Map<string, FieldError[]>();
  for (const p of problems) {
    const list = map.get(p.field);
    if (list) list.push(p);
    else map.set(p.field, [p]);
  }
  return map;
}
