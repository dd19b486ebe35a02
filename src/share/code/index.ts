/**
 * Export as code: the workspace's objects in the language their repository uses (Pkl,
 * Rust with k8s-openapi, Jsonnet), each evaluating back to exactly the object designed here
 * (tested by running the real tools: code.test.ts). A field a language cannot express as
 * written refuses the export with its path; nothing is silently changed.
 */
import type { Obj } from '../../base/json';
import { parseDocuments } from '../../yaml';
import { fieldComments } from '../../yaml/comments';
import type { CodeDoc, CodeExport } from './common';
import { exportJsonnet } from './jsonnet';
import { exportPkl } from './pkl';
import { exportRust } from './rust';
import type { SchemaDefinitions } from './schema';

export type { CodeDoc, CodeExport, CodeFile, CodeProblem } from './common';
export type { SchemaDefinitions } from './schema';
export { exportJsonnet, exportPkl, exportRust };

export const CODE_LANGUAGES = ['pkl', 'rust', 'jsonnet'] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

export interface CodeOptions {
  kubernetesVersion: string;
  /** The target release's schema (src/cel `schemaAsset`): Pkl's templates and Rust's types follow it. */
  schemas: SchemaDefinitions;
  /** Pkl without pkl-k8s. */
  selfContained?: boolean;
}

export function exportAsCode(docs: readonly CodeDoc[], language: CodeLanguage, options: CodeOptions): CodeExport {
  if (language === 'jsonnet') return exportJsonnet(docs);
  if (language === 'pkl') return exportPkl(docs, { selfContained: options.selfContained ?? false, schemas: options.schemas });
  return exportRust(docs, options);
}

/** The objects of a YAML or JSON text with their comments, for export as code. */
export function codeDocsOf(text: string): { docs: CodeDoc[]; errors: string[] } {
  const parsed = parseDocuments(text);
  return {
    docs: parsed.documents.map((d) => ({ object: d.object as Obj, comments: fieldComments(text, d) })),
    errors: parsed.errors.map((e) => `line ${e.line}: ${e.message}`),
  };
}
