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
