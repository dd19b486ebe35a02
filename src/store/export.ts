/**
 * Export: the workspace (or one document) as YAML or JSON. By default the documents' own texts
 * with their separators and a `kind: List`'s items written back into their List, so an untouched
 * file exports byte-identical; reordering keys, stripping server fields and JSON rewrite the
 * objects. docs/architecture.md ("Documents and text").
 */
// the k8s modules themselves, not its index: the index brings validation and the lints into the first load (src/store/checks.ts)
import { orderFields } from '../k8s/registry/order';
import { stripServerFields } from '../k8s/registry/server-fields';
import { deepEqual } from '../base/json';
import { parseDocuments, serializeDocuments, serializeJSON, writeList } from '../yaml';
import { toText, type WorkspaceDoc } from './documents';

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
  /** Documents whose text never parsed (no object): exported as written, or left out where the export rewrites the objects. */
  unparsed: WorkspaceDoc[];
}

export function exportDocs(docs: readonly WorkspaceDoc[], options: ExportOptions = {}): ExportResult {
  const usable = docs.filter((d) => d.object !== undefined);
  const stale = usable.filter((d) => d.error);
  const unparsed = docs.filter((d) => d.object === undefined);
  const rewrite = options.format === 'json' || options.stripServerFields || options.reorderKeys;
  // a document that never parsed is the user's text and nothing else: written as it is, so an untouched file exports byte-identical
  if (!rewrite) return { text: joinTexts(ownTexts(docs)), stale, unparsed };
  const objects = usable.map((d) => {
    const o = options.stripServerFields ? stripServerFields(d.object) : d.object;
    return options.reorderKeys ? orderFields(o) : o;
  });
  return { text: options.format === 'json' ? serializeJSON(objects) : serializeDocuments(objects), stale, unparsed };
}

/** Each document's own text (its last good version generated while its text does not parse), List items written back into their List. */
function ownTexts(docs: readonly WorkspaceDoc[]): { text: string; separator?: string }[] {
  const own = (d: WorkspaceDoc) => ({ text: d.error && d.object !== undefined ? toText(d.object) : d.text, separator: d.separator });
  const out: { text: string; separator?: string }[] = [];
  for (let i = 0; i < docs.length; ) {
    const slot = docs[i]!.listItem;
    let j = i + 1;
    while (slot && j < docs.length && docs[j]!.listItem?.list === slot.list) j++;
    const run = docs.slice(i, j);
    const list = slot ? listText(run) : undefined;
    if (list !== undefined) out.push({ text: list, separator: run[0]!.separator });
    else out.push(...run.map(own));
    i = j;
  }
  return out;
}

/**
 * Items of one List, in workspace order, written back into it; undefined when that would not
 * read back as exactly these objects (an item's text does not parse, or was edited into
 * something its place in the List cannot hold): then they are exported as documents of their own.
 */
function listText(run: readonly WorkspaceDoc[]): string | undefined {
  if (run.some((d) => d.error || !d.listItem)) return undefined;
  const text = writeList(
    run[0]!.listItem!.frame,
    run.map((d) => ({ ...d.listItem!, text: d.text })),
  );
  const back = parseDocuments(text);
  const same =
    back.errors.length === 0 && back.documents.length === run.length && back.documents.every((b, k) => b.fromList && deepEqual(b.object, run[k]!.object));
  return same ? text : undefined;
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
