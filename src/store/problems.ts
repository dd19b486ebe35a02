/**
 * Problems of a document, derived (never stored): the YAML parse error, then
 * decode and validation errors of the last good object. Memoised per object,
 * so a keystroke re-validates only the document that changed.
 */
import { kindSpecOf, validate, type FieldError } from '../k8s';
import type { CelCompiler } from '../cel/types';
import type { WorkspaceDoc } from './documents';

let compiler: CelCompiler | undefined;
let cache = new WeakMap<object, FieldError[]>();

/** Use this CEL compiler from now on (all cached results are dropped). */
export function setCelCompiler(c: CelCompiler | undefined): void {
  compiler = c;
  invalidateProblems();
}

/** Drop memoised results (the CEL compiler learned something new). */
export function invalidateProblems(): void {
  cache = new WeakMap();
}

/** Validation problems of an object (no parse errors). */
export function objectProblems(object: unknown): FieldError[] {
  if (typeof object !== 'object' || object === null) return [];
  const hit = cache.get(object);
  if (hit) return hit;
  const problems = kindSpecOf(object) ? validate(object, { cel: compiler }) : [];
  cache.set(object, problems);
  return problems;
}

export interface DocProblems {
  /** The text does not parse (the form shows the last good version). */
  parse?: { message: string; line: number; column: number };
  fields: FieldError[];
  errors: number;
  warnings: number;
}

export function docProblems(doc: WorkspaceDoc): DocProblems {
  const fields = objectProblems(doc.object);
  const warnings = fields.filter((p) => p.severity === 'warning').length;
  return { parse: doc.error, fields, errors: fields.length - warnings + (doc.error ? 1 : 0), warnings };
}
