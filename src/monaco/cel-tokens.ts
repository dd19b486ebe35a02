/** Tokens, brackets and comments of the `cel` language (Monarch). */
import type * as Monaco from 'monaco-editor';
import { CEL_KEYWORDS, CEL_RESERVED } from '../cel/reserved';

export const KEYWORDS: readonly string[] = CEL_KEYWORDS;
const RESERVED: readonly string[] = CEL_RESERVED;

export const celMonarch: Monaco.languages.IMonarchLanguage = {
  defaultToken: 'invalid',
  keywords: KEYWORDS,
  reserved: RESERVED,
  typeKeywords: ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn'],
  operators: ['==', '!=', '<=', '>=', '<', '>', '&&', '||', '!', '+', '-', '*', '/', '%', '?', ':'],
  symbols: /[=><!~?:&|+\-*/%^]+/,
  escapes: /\\(?:[abfnrtv\\"'`?]|[0-7]{3}|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})/,
  tokenizer: {
    root: [
      [/\/\/.*$/, 'comment'],
      // raw and bytes string prefixes
      [/[rR][bB]?(""")/, { token: 'string.quote', next: '@rawTripleDouble' }],
      [/[rR][bB]?(''')/, { token: 'string.quote', next: '@rawTripleSingle' }],
      [/[rR][bB]?"/, { token: 'string.quote', next: '@rawDouble' }],
      [/[rR][bB]?'/, { token: 'string.quote', next: '@rawSingle' }],
      [/[bB][rR]?(?=["'])/, 'string.quote'],
      [/"""/, { token: 'string.quote', next: '@tripleDouble' }],
      [/'''/, { token: 'string.quote', next: '@tripleSingle' }],
      [/"/, { token: 'string.quote', next: '@double' }],
      [/'/, { token: 'string.quote', next: '@single' }],
      [/0[xX][0-9a-fA-F]+[uU]?/, 'number.hex'],
      [/\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+/, 'number.float'],
      [/\d+[uU]/, 'number'],
      [/\d+/, 'number'],
      [
        /[A-Za-z_][A-Za-z0-9_]*/,
        {
          cases: {
            '@keywords': 'keyword',
            '@reserved': 'invalid',
            '@typeKeywords': 'type',
            '@default': 'identifier',
          },
        },
      ],
      [/[{}()[\]]/, '@brackets'],
      [/[,.]/, 'delimiter'],
      [/@symbols/, { cases: { '@operators': 'operator', '@default': '' } }],
      [/\s+/, 'white'],
    ],
    double: [
      [/[^\\"]+/, 'string'],
      [/@escapes/, 'string.escape'],
      [/\\./, 'string.escape.invalid'],
      [/"/, { token: 'string.quote', next: '@pop' }],
    ],
    single: [
      [/[^\\']+/, 'string'],
      [/@escapes/, 'string.escape'],
      [/\\./, 'string.escape.invalid'],
      [/'/, { token: 'string.quote', next: '@pop' }],
    ],
    tripleDouble: [
      [/"""/, { token: 'string.quote', next: '@pop' }],
      [/@escapes/, 'string.escape'],
      [/[^\\"]+|"/, 'string'],
    ],
    tripleSingle: [
      [/'''/, { token: 'string.quote', next: '@pop' }],
      [/@escapes/, 'string.escape'],
      [/[^\\']+|'/, 'string'],
    ],
    rawDouble: [
      [/[^"]+/, 'string'],
      [/"/, { token: 'string.quote', next: '@pop' }],
    ],
    rawSingle: [
      [/[^']+/, 'string'],
      [/'/, { token: 'string.quote', next: '@pop' }],
    ],
    rawTripleDouble: [
      [/"""/, { token: 'string.quote', next: '@pop' }],
      [/[^"]+|"/, 'string'],
    ],
    rawTripleSingle: [
      [/'''/, { token: 'string.quote', next: '@pop' }],
      [/[^']+|'/, 'string'],
    ],
  },
} as Monaco.languages.IMonarchLanguage;

export const celLanguageConfiguration: Monaco.languages.LanguageConfiguration = {
  comments: { lineComment: '//' },
  brackets: [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ],
  autoClosingPairs: [
    { open: '(', close: ')' },
    { open: '[', close: ']' },
    { open: '{', close: '}' },
    { open: "'", close: "'", notIn: ['string'] },
    { open: '"', close: '"', notIn: ['string'] },
  ],
  surroundingPairs: [
    { open: '(', close: ')' },
    { open: '[', close: ']' },
    { open: '{', close: '}' },
    { open: "'", close: "'" },
    { open: '"', close: '"' },
  ],
  wordPattern: /[A-Za-z_][A-Za-z0-9_]*/,
};
