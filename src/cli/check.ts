/**
 * `check`: every object of the texts through the core's one check pipeline (src/check, as
 * the browser's problems list) — YAML parse (src/yaml), validation at the target release with
 * CEL compiled by the real engine, the request size limits, lints at the same release and
 * caBundle findings, and the type-checking warnings kube-controller-manager would write into
 * each ValidatingAdmissionPolicy's status (type `TypeChecking`, severity warning) — as problems with the file, line and column of the field path. Objects of
 * kinds the Workbench does not check are kept but not checked (only their size), counted as `skipped`.
 */
import type { CelCompiler } from '../cel/types';
import { checkManifestSet, checkWorkspace, isChecked, severityOf } from '../check';
import { typeCheckWorkspace } from '../check/typecheck';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { MANIFEST_SET_HEADLINE } from '../k8s/static-manifests';
import { nameOf, obj, str } from '../base/json';
import { parseDocuments, type ParsedDocument } from '../yaml';
import type { PlatformId } from '../base/platforms';
import type { InputFile } from './inputs';
import type { Problem } from './problem';
import { DEFAULT_FIELD_VALIDATION, duplicateKeyFindings, type FieldValidation } from '../k8s/field-validation';

export interface CheckTextsOptions {
  cel?: CelCompiler;
  kubernetesVersion?: KubernetesVersion;
  /** --platform: its critical namespaces reach the lints (kubernetesVersion is its release). */
  platform?: PlatformId;
  /** The writes' field validation directive (default Strict, as kubectl). */
  fieldValidation?: FieldValidation;
  /** Certificates are judged at this time (default now). */
  now?: Date;
  /** Every admission object is a static manifest (src/check/manifests.ts). */
  static?: boolean;
  manifestBase?: string;
  /** false: no type checking of ValidatingAdmissionPolicies (status.typeChecking). */
  typeCheck?: boolean;
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
  /** With `static`: the set's headline when it does not load (undefined: it loads). */
  manifestHeadline?: string;
}

/** Line and column of a field: the value when the path exists, else the key of its nearest ancestor. */
export function positionIn(doc: ParsedDocument, field: string): { line: number; column: number } {
  const p = doc.positions.positionOf(field);
  const r = p.exact ? p.value : (p.key ?? p.value);
  return { line: r.startLine, column: r.startColumn };
}

export async function checkTexts(files: readonly InputFile[], options: CheckTextsOptions = {}): Promise<CheckResult> {
  const problems: Problem[] = [];
  const parsed: { file: string; doc: ParsedDocument }[] = [];
  let documents = 0;
  for (const f of files) {
    const r = parseDocuments(f.text);
    for (const e of r.errors) {
      problems.push({
        file: f.name,
        line: e.line,
        column: e.column,
        document: e.documentIndex ?? 0,
        kind: '',
        name: '',
        field: e.path ?? '',
        type: 'YAML',
        severity: 'error',
        message: e.message,
      });
    }
    for (const w of r.warnings) {
      problems.push({
        file: f.name,
        line: w.line,
        column: w.column,
        document: w.documentIndex ?? 0,
        kind: '',
        name: '',
        field: w.path ?? '',
        type: 'YAML',
        severity: 'warning',
        message: w.message,
      });
    }
    // Keys given twice: the object holds the last value; the mode says whether the apiserver refuses, warns or keeps quiet.
    // (static manifests: their loader decodes strictly whatever the directive, so a key given twice stays an error)
    const mode = options.static ? 'Strict' : (options.fieldValidation ?? DEFAULT_FIELD_VALIDATION);
    for (const index of new Set(r.duplicateKeys.map((d) => d.documentIndex))) {
      const object = r.documents.find((doc) => doc.documentIndex === index)?.object;
      for (const x of duplicateKeyFindings(
        object,
        r.duplicateKeys.filter((d) => d.documentIndex === index),
        mode,
      )) {
        const d = x.duplicate;
        problems.push({
          file: f.name,
          line: d.line,
          column: d.column,
          document: d.documentIndex ?? 0,
          kind: '',
          name: '',
          field: d.path,
          type: 'YAML',
          severity: x.severity,
          message: x.message,
          hint: x.hint,
        });
      }
    }
    for (const doc of r.documents) parsed.push({ file: f.name, doc });
    documents += r.documents.length;
  }
  const all = parsed.map((p) => p.doc.object);
  const objects: CheckedObject[] = [];
  const results = await checkWorkspace(all, {
    cel: options.cel,
    kubernetesVersion: options.kubernetesVersion,
    platform: options.platform,
    fieldValidation: options.fieldValidation,
    now: options.now,
  });
  const release = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const set = options.static
    ? checkManifestSet(
        all,
        (i) => isChecked(all[i]),
        release,
        (i) => results[i]!.fields,
        () => true,
        options.manifestBase,
      )
    : undefined;
  // The warnings kube-controller-manager would write into each ValidatingAdmissionPolicy's status.typeChecking.
  const typeChecks = options.typeCheck === false ? [] : await typeCheckWorkspace(all, { kubernetesVersion: options.kubernetesVersion });
  for (const [i, { file, doc }] of parsed.entries()) {
    const object = doc.object;
    if (isChecked(object)) objects.push({ file, document: doc, object });
    const base = { file, document: doc.documentIndex, kind: str(obj(object).kind), name: nameOf(object) };
    const { lints } = results[i]!;
    const fields = set?.fields.get(i) ?? results[i]!.fields;
    for (const e of fields) {
      problems.push({
        ...base,
        ...positionIn(doc, e.field),
        field: e.field,
        type: e.type,
        severity: severityOf(e),
        message: e.message,
        ...(e.hint ? { hint: e.hint } : {}),
      });
    }
    for (const t of typeChecks[i] ?? []) {
      problems.push({ ...base, ...positionIn(doc, t.field), field: t.field, type: t.type, severity: 'warning', message: t.message, hint: t.hint });
    }
    for (const l of lints) {
      problems.push({
        ...base,
        ...positionIn(doc, l.field),
        field: l.field,
        type: 'Lint',
        severity: 'finding',
        level: l.severity,
        message: l.message,
        rule: l.id,
        ...(l.hint ? { hint: l.hint } : {}),
      });
    }
  }
  const loads = set?.loads && !problems.some((p) => p.type === 'YAML' && p.severity === 'error');
  return {
    problems,
    objects,
    all,
    documents,
    skipped: documents - objects.length,
    ...(set && !loads ? { manifestHeadline: set.headline ?? MANIFEST_SET_HEADLINE } : {}),
  };
}
