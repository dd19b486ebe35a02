/**
 * Cut a YAML stream into its documents by their `---` / `...` marker lines,
 * so that one broken document cannot take the others down with it.
 *
 * YAML forbids `---` and `...` at column 0 inside any content (block and
 * quoted scalars included), so a marker line always separates documents.
 * A `---` that follows only comments, blank lines and directives opens the
 * document those lines belong to (that is how YAML counts documents too).
 */

export interface Chunk {
  /** Offsets of the chunk in the text, end exclusive. */
  start: number;
  end: number;
}

/** Whether the line at `pos` (ending at `nl`) is `---` or `...` (char code `c`) followed by a space, tab or the end of the line. */
function isMarker(text: string, pos: number, nl: number, c: number): boolean {
  if (text.charCodeAt(pos + 1) !== c || text.charCodeAt(pos + 2) !== c) return false;
  const after = pos + 3;
  if (after > nl) return false;
  if (after === nl) return true;
  const d = text.charCodeAt(after);
  return d === 32 || d === 9 || (d === 13 && after + 1 === nl);
}

/**
 * The documents of a text, in order. Stops early (returning `maxChunks + 1`
 * chunks) when there are more than `maxChunks`.
 */
export function splitDocuments(text: string, maxChunks = Infinity): Chunk[] {
  const chunks: Chunk[] = [];
  let chunkStart = 0;
  let hasContent = false;
  let pos = 0;
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const c = text.charCodeAt(pos);
    if (c === 45 /* - */ && isMarker(text, pos, nl, 45)) {
      if (hasContent) {
        chunks.push({ start: chunkStart, end: pos });
        chunkStart = pos;
        if (chunks.length > maxChunks) return chunks;
      }
      // The `---` line may carry content (`--- {a: 1}`, `--- |`); count it as content.
      hasContent = true;
    } else if (c === 46 /* . */ && isMarker(text, pos, nl, 46)) {
      chunks.push({ start: chunkStart, end: Math.min(nl + 1, text.length) });
      if (chunks.length > maxChunks) return chunks;
      chunkStart = Math.min(nl + 1, text.length);
      hasContent = false;
    } else if (!hasContent && !isBlankOrComment(text, pos, nl)) {
      hasContent = text.charCodeAt(pos) !== 37 /* % directive */;
    }
    if (nl >= text.length) break;
    pos = nl + 1;
  }
  if (chunkStart < text.length || chunks.length === 0) chunks.push({ start: chunkStart, end: text.length });
  return chunks;
}

function isBlankOrComment(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13 || c === 0xfeff) continue;
    return c === 35; /* # */
  }
  return true;
}
