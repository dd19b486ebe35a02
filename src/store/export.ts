/**
 * Export: the workspace (or one document) as YAML or JSON.
 *
 * By default the YAML is the documents' own texts, as imported or typed and as edits left them
 * (edits are written into the text as the smallest change), each with what stood before it in
 * its file (its `---` line, comment-only documents): a document nobody edited exports
 * byte-identical. Reordering keys (kubectl order), stripping server-populated fields and JSON
 * rewrite the objects, and are explicit choices of the export menu.
 */
import { orderFields, stripServerFields } from '../k8s';
import { serializeDocuments, serializeJSON } from '../yaml';
import { toText, type WorkspaceDoc } from './documents';
import { manifestDirectoryFiles, type ManifestDirLayout } from '../share/manifest-dir';
import { isStaticDoc } from './workspace';

export interface ExportOptions {
  /** Drop status, managedFields, uid, resourceVersion, … and the last-applied annotation. */
  stripServerFields?: boolean;
  /** Write keys in kubectl's order (apiVersion, kind, metadata, …) instead of the documents' own. */
  reorderKeys?: boolean;
  format?: 'yaml' | 'json';
}

export interface ExportResult {
  text: string;
  /** Documents whose current text does not parse: their last good version was exported. */
  stale: WorkspaceDoc[];
}

export function exportDocs(docs: readonly WorkspaceDoc[], options: ExportOptions = {}): ExportResult {
  const usable = docs.filter((d) => d.object !== undefined);
  const stale = docs.filter((d) => d.error);
  const rewrite = options.format === 'json' || options.stripServerFields || options.reorderKeys;
  if (!rewrite) return { text: joinTexts(usable.map((d) => ({ text: d.error ? toText(d.object) : d.text, separator: d.separator }))), stale };
  const objects = usable.map((d) => {
    const o = options.stripServerFields ? stripServerFields(d.object) : d.object;
    return options.reorderKeys ? orderFields(o) : o;
  });
  return { text: options.format === 'json' ? serializeJSON(objects) : serializeDocuments(objects), stale };
}

/** Texts of single documents as one multi-document stream: each after its own separator, or `---`. */
export function joinTexts(parts: readonly { text: string; separator?: string }[]): string {
  let out = '';
  parts.forEach((p, i) => {
    let sep = p.separator ?? '';
    if (i > 0 && !/(?:^|\n)---(?:[ \t\r]|$)/m.test(sep)) sep += '---\n';
    if (out && !out.endsWith('\n')) out += '\n';
    out += sep + p.text;
  });
  return out;
}

/** The static manifest directory of the workspace (the documents marked static, or all when the workspace is): relative path → text. */
export function exportManifestDirectory(docs: readonly WorkspaceDoc[], layout: ManifestDirLayout, state?: { staticManifests: boolean }): Record<string, string> {
  const sources = docs.map((d) => ({ object: d.object, ...(d.error || d.object === undefined ? {} : { text: d.text }) }));
  return manifestDirectoryFiles(sources, (i) => docs[i]!.object !== undefined && isStaticDoc(docs[i]!, state), layout);
}
