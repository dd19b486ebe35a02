/**
 * The YAML texts of a test input: each text is parsed once (a small cache by text), '' is
 * absent, a parse error keeps the value absent and says where.
 */
import { parseDocuments } from '../yaml';

export interface ParsedText {
  /** undefined when the text is empty or does not parse. */
  value: unknown;
  error?: { message: string; line: number; column: number };
}

const cache = new Map<string, ParsedText>();
const CACHE_SIZE = 300;

/** One object of a YAML (or JSON) text. A second document is reported; the first is used. */
export function parseInputText(text: string): ParsedText {
  const hit = cache.get(text);
  if (hit) return hit;
  let r: ParsedText;
  if (!text.trim()) r = { value: undefined };
  else {
    const { documents, errors } = parseDocuments(text, { unwrapLists: false });
    if (errors.length) r = { value: undefined, error: { message: errors[0].message, line: errors[0].line, column: errors[0].column } };
    else if (documents.length > 1)
      r = { value: documents[0].object, error: { message: `${documents.length} documents: only the first is used`, line: 1, column: 1 } };
    else r = { value: documents[0]?.object };
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(text, r);
  return r;
}
