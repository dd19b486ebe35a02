/** Export: the workspace (or one document) as YAML or JSON, in kubectl-like key order. */
import { orderFields, stripServerFields } from '../k8s';
import { serializeDocuments, serializeJSON } from '../yaml';
import type { WorkspaceDoc } from './documents';

export interface ExportOptions {
  /** Drop status, managedFields, uid, resourceVersion, … and the last-applied annotation. */
  stripServerFields?: boolean;
  format?: 'yaml' | 'json';
}

export interface ExportResult {
  text: string;
  /** Documents whose current text does not parse: their last good version was exported. */
  stale: WorkspaceDoc[];
}

export function exportDocs(docs: readonly WorkspaceDoc[], options: ExportOptions = {}): ExportResult {
  const usable = docs.filter((d) => d.object !== undefined);
  const objects = usable.map((d) => orderFields(options.stripServerFields ? stripServerFields(d.object) : d.object));
  const text =
    options.format === 'json' ? serializeJSON(objects) : serializeDocuments(objects);
  return { text, stale: docs.filter((d) => d.error) };
}
