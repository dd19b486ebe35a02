/**
 * The comments a YAML document's author wrote on its fields, so that a document exported to
 * another language (src/share/code) keeps them where they sat. A field's comments are the
 * comment lines directly above it (no blank line between) and the comment at the end of its
 * line. A comment block belongs to the outermost field that starts on the line below it: the
 * list item `- name: a`, not its first key.
 */
import { formatPath } from '../base/path-format';
import type { PathSegment } from '../base/path';
import type { ParsedDocument } from './types';

/** Path (`webhooks[0].name`; '' for the document) → its comment lines, without `#` and one leading space. */
export type FieldComments = ReadonlyMap<string, readonly string[]>;

const commentText = (line: string): string => line.trim().slice(1).replace(/^ /, '');

/** The comments on the fields of `doc`, one of the documents `parseDocuments(text)` returned. */
export function fieldComments(text: string, doc: ParsedDocument): FieldComments {
  const lines = text.split('\n');
  const out = new Map<string, string[]>();
  const used = new Set<number>(); // 1-based lines already given to a field
  const firstLine = doc.documentSource.startLine;

  const leading = (line: number): string[] => {
    const block: string[] = [];
    for (let l = line - 1; l >= firstLine && !used.has(l); l--) {
      const t = lines[l - 1]?.trim() ?? '';
      if (!t.startsWith('#')) break;
      block.unshift(commentText(t));
      used.add(l);
    }
    return block;
  };
  // A comment after the value on the field's last line: `timeoutSeconds: 5 # why`. Only where
  // the rest of the line is nothing but the comment, so a `#` inside a quoted value is never one.
  const trailing = (line: number, column: number): string[] => {
    if (used.has(-line)) return [];
    const rest = (lines[line - 1] ?? '').slice(column - 1).replace(/^:/, '');
    const m = /^\s+#(.*)$/.exec(rest);
    if (!m) return [];
    used.add(-line);
    return [m[1]!.replace(/^ /, '')];
  };

  const visit = (value: unknown, segments: PathSegment[]): void => {
    if (segments.length) {
      const pos = doc.positions.positionOf(segments);
      if (pos.exact) {
        const start = pos.key?.startLine ?? pos.value.startLine;
        const isScalar = value === null || typeof value !== 'object';
        const comments = [
          ...leading(start),
          // a scalar's comment follows its value; a map's or list's follows its key (`rules: # why`)
          ...(isScalar ? trailing(pos.value.endLine, pos.value.endColumn) : pos.key ? trailing(pos.key.endLine, pos.key.endColumn) : []),
        ];
        if (comments.length) out.set(formatPath(segments), comments);
      }
    }
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, [...segments, i]));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, [...segments, k]);
  };
  const top = leading(doc.source.startLine);
  if (top.length) out.set('', top);
  visit(doc.object, []);
  return out;
}
