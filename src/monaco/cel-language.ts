/**
 * The `cel` language for Monaco: tokens, brackets and comments, completion, hover, and
 * compile issues as markers. Self-contained: Monaco is passed in (types only imported) and
 * the engine is any object with `declarations` (and optionally `typeAt`), e.g. the
 * `src/cel` module itself.
 *
 * API
 * ---
 *   const disposable = registerCelLanguage(monaco, { declarations, typeAt });   // once
 *
 *   // Every expression model says where its expression lives (the context decides the
 *   // variables, functions and result type) and may offer the current test input, whose
 *   // object/oldObject/params/namespaceObject/request keys are then completed:
 *   const model = monaco.editor.createModel(expr, CEL_LANGUAGE_ID);
 *   setCelModelContext(model, {
 *     context: 'vap-validation',
 *     options: { hasParams: true, variables: policy.spec.variables },
 *     sampleInputs: () => store.getState().currentTestInputs,
 *   });
 *   // (update it whenever the policy's paramKind/variables change; getCelModelContext reads it)
 *
 *   // After compiling (src/cel compile() or a CelCompiler), show the issues:
 *   setCelMarkers(monaco, model, result);            // owner 'cel'; clears on ok
 *   // or celMarkers(monaco, model, result) to get the IMarkerData[] only.
 *
 * A model without a context is treated as 'vap-validation' with no options.
 */
import type * as Monaco from 'monaco-editor';
import type {
  CelCompileOptions,
  CelCompileResult,
  CelContext,
  CelDeclarations,
  CelFunction,
  CelInputs,
  CelMacro,
  CelTypeAt,
} from '../cel/types';

export const CEL_LANGUAGE_ID = 'cel';

type MonacoApi = Pick<typeof Monaco, 'languages' | 'editor' | 'MarkerSeverity'>;
type Model = Monaco.editor.ITextModel;

/** What the language needs from the engine (src/cel's functions have these signatures). */
export interface CelLanguageEngine {
  declarations(context: CelContext, options?: CelCompileOptions): Promise<CelDeclarations>;
  /** The checked type of the sub-expression at a 0-based code-point offset. */
  typeAt?(expression: string, context: CelContext, offset: number, options?: CelCompileOptions): Promise<CelTypeAt>;
}

/** Where a model's expression lives. */
export interface CelModelContext {
  context: CelContext;
  options?: CelCompileOptions & { variableName?: string };
  /** The current test input, for completing keys of object, oldObject, params, namespaceObject and request. */
  sampleInputs?: () => CelInputs | undefined;
}

const modelContexts = new WeakMap<Model, CelModelContext>();

export function setCelModelContext(model: Model, ctx: CelModelContext): void {
  modelContexts.set(model, ctx);
}

export function getCelModelContext(model: Model): CelModelContext {
  return modelContexts.get(model) ?? { context: 'vap-validation' };
}

export function clearCelModelContext(model: Model): void {
  modelContexts.delete(model);
}

// ---------------------------------------------------------------------------
// Tokens

const KEYWORDS = ['true', 'false', 'null', 'in'];
const RESERVED = [
  'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop',
  'package', 'namespace', 'return', 'var', 'void', 'while',
];

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

// ---------------------------------------------------------------------------
// Declarations cache

function declarationsCache(engine: CelLanguageEngine) {
  const cache = new Map<string, Promise<CelDeclarations>>();
  return (ctx: CelModelContext): Promise<CelDeclarations> => {
    const key = `${ctx.context}\u0000${JSON.stringify(ctx.options ?? {})}`;
    let p = cache.get(key);
    if (!p) {
      p = engine.declarations(ctx.context, ctx.options);
      cache.set(key, p);
      if (cache.size > 32) cache.delete(cache.keys().next().value as string);
      void p.then((d) => {
        if (!d.ok) cache.delete(key); // retry later (e.g. the engine was still loading)
      });
    }
    return p;
  };
}

// ---------------------------------------------------------------------------
// Helpers

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The receiver expression before a trailing '.', scanning back over identifiers, dots, and balanced () [] groups. */
export function receiverBefore(text: string): string {
  let i = text.length;
  let depth = 0;
  let inString: string | undefined;
  while (i > 0) {
    const ch = text[i - 1]!;
    if (inString) {
      if (ch === inString && text[i - 2] !== '\\') inString = undefined;
      i--;
      continue;
    }
    if (depth > 0) {
      if (ch === ')' || ch === ']') depth++;
      else if (ch === '(' || ch === '[') depth--;
      else if (ch === "'" || ch === '"') inString = ch;
      i--;
      continue;
    }
    if (/[A-Za-z0-9_.]/.test(ch)) {
      i--;
      continue;
    }
    if (ch === ')' || ch === ']') {
      depth = 1;
      i--;
      continue;
    }
    if (ch === "'" || ch === '"') {
      // a string literal receiver: 'abc'.
      const open = text.lastIndexOf(ch, i - 2);
      if (open < 0) break;
      i = open;
      while (i > 0 && /[bBrR]/.test(text[i - 1]!)) i--;
      continue;
    }
    if (ch === '?' && text[i - 2] === '.') {
      i--; // optional selection a.?b
      continue;
    }
    break;
  }
  return text.slice(i).replace(/^\.+/, '');
}

/** Converts a 1-based code-point column on a line to Monaco's 1-based UTF-16 column. */
export function codePointColumnToUtf16(line: string, column: number): number {
  let utf16 = 0;
  let cp = 1;
  for (const ch of line) {
    if (cp >= column) break;
    utf16 += ch.length;
    cp++;
  }
  return utf16 + 1 + Math.max(0, column - cp);
}

function typeMatchesReceiver(receiverType: string | undefined, overloadReceiver: string | undefined): boolean {
  if (!overloadReceiver) return false;
  if (!receiverType || receiverType === 'dyn') return true;
  if (overloadReceiver === receiverType) return true;
  if (/^[A-Z]$/.test(overloadReceiver) || overloadReceiver === 'dyn') return true; // type parameter
  const head = (t: string) => t.replace(/\(.*$/, '');
  return head(overloadReceiver) === head(receiverType) && /\(/.test(overloadReceiver);
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'object') return 'map';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** Walks a sample value along a dotted path (`object.spec.template`); undefined when it leaves the data. */
function walkSample(root: unknown, segments: string[]): unknown {
  let cur = root;
  for (const s of segments) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function signatureList(fn: CelFunction, member?: boolean): string {
  return fn.overloads
    .filter((o) => member === undefined || o.member === member)
    .map((o) => o.signature)
    .join('\n');
}

function functionMarkdown(fn: CelFunction, member?: boolean): string {
  const parts = ['```\n' + signatureList(fn, member) + '\n```'];
  if (fn.doc) parts.push(fn.doc);
  const examples = fn.overloads.flatMap((o) => o.examples ?? []);
  if (examples.length) parts.push('Examples:\n```\n' + examples.slice(0, 6).join('\n') + '\n```');
  return parts.join('\n\n');
}

function macroMarkdown(m: CelMacro[]): string {
  const first = m[0]!;
  const sigs = m.map((x) => `${x.receiver ? 'e.' : ''}${x.name}(${Array.from({ length: x.argCount }, (_, i) => ['x', 'y', 'expr', 'expr2'][i] ?? `a${i}`).join(', ')})`);
  const parts = ['```\n' + sigs.join('\n') + '\n```', `macro${first.doc ? ': ' + first.doc : ''}`];
  const ex = m.flatMap((x) => x.examples ?? []);
  if (ex.length) parts.push('Examples:\n```\n' + ex.slice(0, 6).join('\n') + '\n```');
  return parts.join('\n\n');
}

interface Resolved {
  /** CEL type name, when known. */
  type?: string;
  /** Sample data at this path (dyn roots). */
  sample?: unknown;
  /** True when the path names a function namespace (sets., lists., format.) rather than a value. */
  namespace?: string;
}

/** Resolves a receiver: a dotted path from the declarations and the sample input, else the engine's checker. */
async function resolveReceiver(
  chain: string,
  decl: CelDeclarations,
  mctx: CelModelContext,
  engine: CelLanguageEngine,
): Promise<Resolved> {
  if (/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(chain)) {
    const segments = chain.split('.');
    // longest declared variable name that prefixes the chain (authorizer.requestResource)
    for (let n = segments.length; n >= 1; n--) {
      const name = segments.slice(0, n).join('.');
      const v = decl.variables.find((x) => x.name === name);
      if (!v) continue;
      let type: string | undefined = v.type;
      const rest = segments.slice(n);
      const inputs = mctx.sampleInputs?.();
      let sample: unknown = inputs ? (inputs as Record<string, unknown>)[segments[0]!] : undefined;
      if (sample !== undefined) sample = walkSample(sample, rest);
      for (const seg of rest) {
        const fields: { name: string; type: string }[] | undefined = type ? decl.types[type] : undefined;
        const next: string | undefined = fields ? fields.find((f) => f.name === seg)?.type : type === 'dyn' ? 'dyn' : undefined;
        type = next;
        if (!type) break;
      }
      return { type, sample };
    }
    const ns = decl.functions.some((f) => f.name.startsWith(chain + '.'));
    if (ns) return { namespace: chain };
  }
  if (engine.typeAt && chain.length > 0) {
    const t = await engine.typeAt(chain, mctx.context, Math.max(0, [...chain].length - 1), mctx.options);
    if (t.ok && t.end === [...chain].length) return { type: t.type };
    // the whole chain: type the receiver by compiling it as is
    if (t.ok) return { type: t.type };
  }
  return {};
}

// ---------------------------------------------------------------------------
// Registration

export function registerCelLanguage(monaco: MonacoApi, engine: CelLanguageEngine): Monaco.IDisposable {
  const { languages } = monaco;
  const disposables: Monaco.IDisposable[] = [];
  if (!languages.getLanguages().some((l) => l.id === CEL_LANGUAGE_ID)) {
    languages.register({ id: CEL_LANGUAGE_ID, aliases: ['CEL', 'cel'], extensions: ['.cel'] });
  }
  disposables.push(languages.setMonarchTokensProvider(CEL_LANGUAGE_ID, celMonarch));
  disposables.push(languages.setLanguageConfiguration(CEL_LANGUAGE_ID, celLanguageConfiguration));
  const getDecl = declarationsCache(engine);
  const Kind = languages.CompletionItemKind;
  const Snippet = languages.CompletionItemInsertTextRule.InsertAsSnippet;

  disposables.push(
    languages.registerCompletionItemProvider(CEL_LANGUAGE_ID, {
      triggerCharacters: ['.'],
      async provideCompletionItems(model, position) {
        const mctx = getCelModelContext(model);
        const decl = await getDecl(mctx);
        if (!decl.ok) return { suggestions: [] };
        const before = model.getValueInRange({
          startLineNumber: 1,
          startColumn: 1,
          endLineNumber: position.lineNumber,
          endColumn: position.column,
        });
        const prefix = /[A-Za-z_][A-Za-z0-9_]*$/.exec(before)?.[0] ?? '';
        const range = {
          startLineNumber: position.lineNumber,
          startColumn: position.column - prefix.length,
          endLineNumber: position.lineNumber,
          endColumn: position.column,
        };
        const beforeWord = before.slice(0, before.length - prefix.length);
        const suggestions: Monaco.languages.CompletionItem[] = [];
        const macrosByName = new Map<string, CelMacro[]>();
        for (const m of decl.macros) macrosByName.set(m.name, [...(macrosByName.get(m.name) ?? []), m]);

        if (beforeWord.endsWith('.') && !beforeWord.endsWith('..')) {
          const chain = receiverBefore(beforeWord.slice(0, -1));
          const r = await resolveReceiver(chain, decl, mctx, engine);
          if (r.namespace) {
            for (const fn of decl.functions) {
              if (!fn.name.startsWith(r.namespace + '.')) continue;
              const rest = fn.name.slice(r.namespace.length + 1);
              if (rest.includes('.')) continue;
              suggestions.push({
                label: rest,
                kind: Kind.Function,
                detail: signatureList(fn, false),
                documentation: fn.doc,
                insertText: `${rest}($0)`,
                insertTextRules: Snippet,
                range,
              });
            }
            return { suggestions };
          }
          // fields of typed objects (request, namespaceObject, variables, ...)
          const fields = r.type ? decl.types[r.type] : undefined;
          for (const f of fields ?? []) {
            suggestions.push({ label: f.name, kind: Kind.Field, detail: f.type, insertText: f.name, range, sortText: '0' + f.name });
          }
          // dotted variable names (authorizer.requestResource)
          for (const v of decl.variables) {
            if (v.name.startsWith(chain + '.') && !v.name.slice(chain.length + 1).includes('.')) {
              const label = v.name.slice(chain.length + 1);
              suggestions.push({ label, kind: Kind.Variable, detail: v.type, insertText: label, range, sortText: '0' + label });
            }
          }
          // keys of the sample input (object/oldObject/params/...)
          if (r.sample && typeof r.sample === 'object' && !Array.isArray(r.sample)) {
            const dotRange = { ...range, startColumn: range.startColumn - 1 };
            for (const [k, v] of Object.entries(r.sample as Record<string, unknown>)) {
              if (IDENT.test(k) && !KEYWORDS.includes(k)) {
                suggestions.push({ label: k, kind: Kind.Property, detail: jsonKind(v), insertText: k, range, sortText: '0' + k });
              } else {
                const quoted = `['${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
                suggestions.push({
                  label: quoted,
                  filterText: '.' + k,
                  kind: Kind.Property,
                  detail: jsonKind(v),
                  insertText: quoted,
                  range: dotRange,
                  sortText: '0' + k,
                });
              }
            }
          }
          // member functions for this receiver type
          for (const fn of decl.functions) {
            const overloads = fn.overloads.filter((o) => o.member && typeMatchesReceiver(r.type, o.receiver));
            if (!overloads.length) continue;
            suggestions.push({
              label: fn.name,
              kind: Kind.Method,
              detail: overloads.map((o) => o.signature).join('\n'),
              documentation: fn.doc ? { value: fn.doc } : undefined,
              insertText: `${fn.name}($0)`,
              insertTextRules: Snippet,
              range,
              sortText: '1' + fn.name,
            });
          }
          // receiver macros
          const collection = !r.type || r.type === 'dyn' || /^(list|map)\(/.test(r.type);
          const optional = !r.type || r.type === 'dyn' || r.type.startsWith('optional_type');
          for (const [name, ms] of macrosByName) {
            const recv = ms.filter((m) => m.receiver);
            if (!recv.length) continue;
            const isOpt = name === 'optMap' || name === 'optFlatMap';
            if (isOpt ? !optional : !collection) continue;
            const m = recv[0]!;
            const args = m.argCount === 3 ? '${1:i}, ${2:v}, $0' : m.argCount === 2 ? '${1:x}, $0' : '$0';
            suggestions.push({
              label: name,
              kind: Kind.Keyword,
              detail: 'macro',
              documentation: { value: macroMarkdown(recv) },
              insertText: `${name}(${args})`,
              insertTextRules: Snippet,
              range,
              sortText: '2' + name,
            });
          }
          return { suggestions };
        }

        // top level: variables, global functions and macros, keywords
        const seen = new Set<string>();
        for (const v of decl.variables) {
          const head = v.name.split('.')[0]!;
          if (seen.has(head)) continue;
          seen.add(head);
          suggestions.push({ label: head, kind: Kind.Variable, detail: v.name === head ? v.type : undefined, insertText: head, range, sortText: '0' + head });
        }
        const namespaces = new Set<string>();
        for (const fn of decl.functions) {
          const globals = fn.overloads.filter((o) => !o.member);
          if (!globals.length) continue;
          if (fn.name.includes('.')) {
            const ns = fn.name.split('.')[0]!;
            if (!namespaces.has(ns) && !seen.has(ns)) {
              namespaces.add(ns);
              suggestions.push({ label: ns, kind: Kind.Module, insertText: ns, range, sortText: '1' + ns });
            }
            continue;
          }
          suggestions.push({
            label: fn.name,
            kind: Kind.Function,
            detail: globals.map((o) => o.signature).join('\n'),
            documentation: fn.doc ? { value: fn.doc } : undefined,
            insertText: `${fn.name}($0)`,
            insertTextRules: Snippet,
            range,
            sortText: '1' + fn.name,
          });
        }
        for (const [name, ms] of macrosByName) {
          const global = ms.filter((m) => !m.receiver);
          if (!global.length) continue;
          suggestions.push({
            label: name,
            kind: Kind.Keyword,
            detail: 'macro',
            documentation: { value: macroMarkdown(global) },
            insertText: `${name}($0)`,
            insertTextRules: Snippet,
            range,
            sortText: '1' + name,
          });
        }
        for (const k of ['true', 'false', 'null']) {
          suggestions.push({ label: k, kind: Kind.Keyword, insertText: k, range, sortText: '3' + k });
        }
        return { suggestions };
      },
    }),
  );

  disposables.push(
    languages.registerHoverProvider(CEL_LANGUAGE_ID, {
      async provideHover(model, position) {
        const word = model.getWordAtPosition(position);
        if (!word) return null;
        const mctx = getCelModelContext(model);
        const decl = await getDecl(mctx);
        if (!decl.ok) return null;
        const line = model.getLineContent(position.lineNumber);
        const member = line.slice(0, word.startColumn - 1).trimEnd().endsWith('.');
        const after = line.slice(word.endColumn - 1).trimStart();
        const isCall = after.startsWith('(');
        const contents: Monaco.IMarkdownString[] = [];
        const range = {
          startLineNumber: position.lineNumber,
          startColumn: word.startColumn,
          endLineNumber: position.lineNumber,
          endColumn: word.endColumn,
        };
        // the checked type of the sub-expression under the cursor
        if (engine.typeAt) {
          const text = model.getValue();
          const offsetUtf16 = model.getOffsetAt(position);
          const offset = [...text.slice(0, offsetUtf16)].length;
          const t = await engine.typeAt(text, mctx.context, offset, mctx.options);
          if (t.ok && t.type) contents.push({ value: '`' + word.word + '`: `' + t.type + '`' });
        }
        if (isCall) {
          // namespaced functions: sets.contains -> the text before the word
          const nsMatch = /([A-Za-z_][A-Za-z0-9_]*)\.\s*$/.exec(line.slice(0, word.startColumn - 1));
          const qualified = nsMatch ? `${nsMatch[1]}.${word.word}` : undefined;
          const fn =
            (qualified && decl.functions.find((f) => f.name === qualified)) || decl.functions.find((f) => f.name === word.word);
          const macros = decl.macros.filter((m) => m.name === word.word && m.receiver === member);
          if (fn && (fn.name === qualified || fn.overloads.some((o) => o.member === member))) {
            contents.push({ value: functionMarkdown(fn, fn.name === qualified ? false : member) });
          } else if (macros.length) {
            contents.push({ value: macroMarkdown(macros) });
          }
        } else if (!member) {
          const v = decl.variables.find((x) => x.name === word.word);
          if (v && !contents.length) contents.push({ value: '`' + v.name + '`: `' + v.type + '`' });
        }
        return contents.length ? { contents, range } : null;
      },
    }),
  );

  return { dispose: () => disposables.splice(0).forEach((d) => d.dispose()) };
}

// ---------------------------------------------------------------------------
// Markers

const WHOLE_EXPRESSION = /^(must evaluate to|program instantiation failed|unexpected)/;

/**
 * Compile issues as Monaco markers. Positions are the engine's (1-based line, 1-based
 * code-point column) converted to UTF-16 columns; a marker spans the token at its column.
 * Issues without a position (result type, program instantiation) span the whole model.
 * `offset` shifts the markers when the expression is embedded in a larger model.
 */
export function celMarkers(
  monaco: Pick<typeof Monaco, 'MarkerSeverity'>,
  model: Model,
  result: CelCompileResult | undefined,
  offset: { line: number; column: number } = { line: 0, column: 0 },
): Monaco.editor.IMarkerData[] {
  if (!result || result.ok) return [];
  const lineCount = model.getLineCount();
  const markers: Monaco.editor.IMarkerData[] = [];
  const issues = result.issues.length ? result.issues : [{ message: result.message ?? 'invalid expression', line: 1, column: 1 }];
  for (const issue of issues) {
    if (WHOLE_EXPRESSION.test(issue.message) && offset.line === 0) {
      markers.push({
        severity: monaco.MarkerSeverity.Error,
        message: issue.message,
        source: 'CEL',
        startLineNumber: 1,
        startColumn: 1,
        endLineNumber: lineCount,
        endColumn: model.getLineMaxColumn(lineCount),
      });
      continue;
    }
    const lineNumber = Math.min(Math.max(1, issue.line + offset.line), lineCount);
    const text = model.getLineContent(lineNumber);
    const columnShift = issue.line === 1 ? offset.column : 0;
    const start = Math.min(codePointColumnToUtf16(text, issue.column) + columnShift, text.length + 1);
    let end = start;
    while (end <= text.length && /[A-Za-z0-9_]/.test(text[end - 1]!)) end++;
    if (end === start) end = Math.min(start + 1, text.length + 1);
    markers.push({
      severity: monaco.MarkerSeverity.Error,
      message: issue.message,
      source: 'CEL',
      startLineNumber: lineNumber,
      startColumn: start,
      endLineNumber: lineNumber,
      endColumn: end === start ? start + 1 : end,
    });
  }
  return markers;
}

/** Sets (or clears, when ok/undefined) the `cel` markers of a model. */
export function setCelMarkers(
  monaco: Pick<typeof Monaco, 'MarkerSeverity' | 'editor'>,
  model: Model,
  result: CelCompileResult | undefined,
  owner = 'cel',
): void {
  monaco.editor.setModelMarkers(model, owner, celMarkers(monaco, model, result));
}
