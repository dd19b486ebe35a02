/**
 * What every export as code shares: the documents given, the problems that refuse an export,
 * and the names the exported code gives each object.
 */
import { isObject, kindOf, nameOf, type Obj } from '../../base/json';
import type { PathSegment } from '../../base/path';
import { formatPath } from '../../base/path-format';
import type { FieldComments } from '../../yaml/comments';

/** One object to export, with its author's comments (src/yaml/comments.ts), when it came from YAML. */
export interface CodeDoc {
  object: Obj;
  comments?: FieldComments;
}

export interface CodeFile {
  name: string;
  text: string;
}

/** A field the target language cannot express as written: the export is refused, never silently different. */
export interface CodeProblem {
  /** `Kind/name` of the object. */
  object: string;
  path: string;
  message: string;
}

export interface CodeExport {
  /** The files, or none when `problems` is not empty. */
  files: CodeFile[];
  problems: CodeProblem[];
}

export const objectLabel = (o: Obj): string => `${kindOf(o) || 'object'}/${nameOf(o) || '(no name)'}`;

export interface Problems {
  list: CodeProblem[];
  add(path: readonly PathSegment[], message: string): void;
}

/** Collects the problems of one object while it is written. */
export function problemsOf(object: Obj): Problems {
  const list: CodeProblem[] = [];
  return { list, add: (path, message) => list.push({ object: objectLabel(object), path: formatPath(path) || '(the object)', message }) };
}

/** The comments on a path, as lines for a `//` comment. */
export const commentsAt = (doc: CodeDoc, path: readonly PathSegment[]): readonly string[] => doc.comments?.get(formatPath(path)) ?? [];

/**
 * Names of the objects in code: `validatingWebhookConfiguration_demo_example_com`, unique in the
 * set. Letters of the kind and name only, so every target language takes them as identifiers.
 */
export function codeNames(objects: readonly Obj[]): string[] {
  const seen = new Map<string, number>();
  return objects.map((o) => {
    const kind = kindOf(o) || 'object';
    const base = `${kind[0]!.toLowerCase()}${kind.slice(1)}_${(nameOf(o) || 'unnamed').replace(/[^A-Za-z0-9]+/g, '_')}`.replace(/[^A-Za-z0-9_]/g, '_');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}_${n + 1}` : base;
  });
}

/** A null property is the field left unset (the apiserver drops it): every language here writes it by leaving it out. */
export const setFields = (o: Obj): [string, unknown][] => Object.entries(o).filter(([, v]) => v !== null && v !== undefined);

export const isPlainObject = isObject;
