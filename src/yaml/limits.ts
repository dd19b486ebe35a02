/**
 * Limits on hostile input. Checked before any work that could be slow.
 */

/** Longest text parsed, in characters (UTF-16 code units). Larger texts are refused with an error. */
export const MAX_TEXT_LENGTH = 10 * 1024 * 1024;

/** Deepest nesting of mappings and sequences in a document. */
export const MAX_DEPTH = 100;

/**
 * Most values an alias (`*name`) may bring into one document, counted as the
 * nodes it expands to, summed over all aliases. Stops "billion laughs".
 */
export const MAX_ALIAS_EXPANSION = 10_000;

/**
 * Most `---`-separated documents in one text. Each document costs js-yaml a
 * fixed few microseconds, so a 10 MB text of empty documents would take many
 * seconds; no admission configuration comes near this.
 */
export const MAX_DOCUMENTS = 10_000;

/** Most errors (and, separately, warnings) listed for one document; one more line says the rest were left out. */
export const MAX_PROBLEMS_PER_DOCUMENT = 100;
