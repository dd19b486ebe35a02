/**
 * `check`: every admission object of the texts through the same core as the browser —
 * YAML parse (src/yaml), validation (src/k8s validate: decode check + the apiserver's rules,
 * CEL compiled by the real engine) and lints (src/k8s/lints) — as problems with the file,
 * line and column of the field path. Objects of other kinds are counted and skipped.
 */
import type { CelCompiler } from '../cel/types';
import { kindSpecOf } from '../k8s/registry';
import { lint } from '../k8s/lints';
import { validate, type ValidateOptions } from '../k8s/validate-all';
import type { KubernetesVersion } from '../base/releases';
import { nameOf, obj, str } from '../base/json';
import { parseDocuments, type ParsedDocument } from '../yaml';
import type { InputFile } from './inputs';
import type { Problem } from './problem';

export interface CheckOptions {
  cel?: CelCompiler;
  kubernetesVersion?: KubernetesVersion;
}

/** A parsed admission object, kept for the cases run. */
export interface CheckedObject {
  file: string;
  document: ParsedDocument;
  object: unknown;
}

export interface CheckResult {
  problems: Problem[];
  /** Admission objects checked. */
  objects: CheckedObject[];
  /** Every object read (admission or not): the workspace for lints and cases. */
  all: unknown[];
  documents: number;
  skipped: number;
}

/** Line and column of a field: the value when the path exists, else the key of its nearest ancestor. */
export function positionIn(doc: ParsedDocument, field: string): { line: number; column: number } {
  const p = doc.positions.positionOf(field);
  const r = p.exact ? p.value : (p.key ?? p.value);
  return { line: r.startLine, column: r.startColumn };
}

export function checkTexts(files: readonly InputFile[], options: CheckOptions = {}): CheckResult {
  const problems: Problem[] = [];
  const parsed: { file: string; doc: ParsedDocument }[] = [];
  let documents = 0;
  for (const f of files) {
    const r = parseDocuments(f.text);
    for (const e of r.errors) {
      problems.push({ file: f.name, line: e.line, column: e.column, document: e.documentIndex ?? 0, kind: '', name: '', field: e.path ?? '', type: 'YAML', severity: 'error', message: e.message });
    }
    for (const w of r.warnings) {
      problems.push({ file: f.name, line: w.line, column: w.column, document: w.documentIndex ?? 0, kind: '', name: '', field: w.path ?? '', type: 'YAML', severity: 'warning', message: w.message });
    }
    for (const doc of r.documents) parsed.push({ file: f.name, doc });
    documents += r.documents.length;
  }
  const all = parsed.map((p) => p.doc.object);
  const objects: CheckedObject[] = [];
  const validateOptions: ValidateOptions = { cel: options.cel, ...(options.kubernetesVersion ? { kubernetesVersion: options.kubernetesVersion } : {}) };
  for (const { file, doc } of parsed) {
    const object = doc.object;
    if (!kindSpecOf(object)) continue;
    objects.push({ file, document: doc, object });
    const base = { file, document: doc.documentIndex, kind: str(obj(object).kind), name: nameOf(object) };
    for (const e of validate(object, validateOptions)) {
      problems.push({ ...base, ...positionIn(doc, e.field), field: e.field, type: e.type, severity: e.severity ?? 'error', message: e.message, ...(e.hint ? { hint: e.hint } : {}) });
    }
    for (const l of lint(object, all)) {
      problems.push({ ...base, ...positionIn(doc, l.field), field: l.field, type: 'Lint', severity: l.severity, message: l.message, rule: l.id, ...(l.hint ? { hint: l.hint } : {}) });
    }
  }
  return { problems, objects, all, documents, skipped: documents - objects.length };
}
