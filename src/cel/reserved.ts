/**
 * CEL's keywords and reserved words (the cel-spec's lexical grammar): one list for the
 * identifier check of validation and for the editor's highlighting.
 */

/** Literals and the `in` operator. */
export const CEL_KEYWORDS = ['true', 'false', 'null', 'in'] as const;

/** Reserved for future use: not identifiers, though the grammar gives them no meaning. */
export const CEL_RESERVED = [
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
] as const;
