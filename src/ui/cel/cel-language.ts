/**
 * The 'cel' language in Monaco, as the CEL editor needs it: Monarch tokens, brackets,
 * completion (the context's variables, `request.` and other declared object fields, functions
 * and macros from `declarations`, and `object.` / `oldObject.` / `params.` / `namespaceObject.`
 * fields from the current test input), and hover (the checked type under the cursor from
 * `typeAt`, plus the docs of a function or macro).
 *
 * Written here because src/monaco/cel-language.ts (registerCelLanguage) was not delivered when
 * the editor was built; each editor model registers its context, options and inputs below.
 */
import { monaco } from '../../monaco/setup';
import { declarations, typeAt, type CelCompileOptionsExt, type CelContext, type CelDeclarations, type CelInputs } from '../../cel';

export interface CelModelInfo {
  context: CelContext;
  options: CelCompileOptionsExt;
  /** The current test inputs (for field completion of object / oldObject / params / namespaceObject). */
  inputs(): CelInputs | undefined;
}

const infos = new Map<string, CelModelInfo>();

export function setModelInfo(model: monaco.editor.ITextModel, info: CelModelInfo): void {
  infos.set(model.uri.toString(), info);
}

export function deleteModelInfo(model: monaco.editor.ITextModel): void {
  infos.delete(model.uri.toString());
}

// ---------------------------------------------------------------------------
// Declarations, cached per context and options

const declCache = new Map<string, Promise<CelDeclarations>>();

export function declarationsFor(context: CelContext, options: CelCompileOptionsExt): Promise<CelDeclarations> {
  const key = `${context}\u0000${JSON.stringify(options)}`;
  let p = declCache.get(key);
  if (!p) {
    p = declarations(context, options).then((d) => {
      if (!d.ok) declCache.delete(key); // the engine was not ready: ask again next time
      return d;
    });
    if (declCache.size > 50) declCache.clear();
    declCache.set(key, p);
  }
  return p;
}

// ---------------------------------------------------------------------------
// Helpers

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** UTF-16 offset → code-point offset (the engine counts code points). */
export function codePointOffset(text: string, utf16: number): number {
  let n = 0;
  for (let i = 0; i < utf16 && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
    n++;
  }
  return n;
}

/** Code-point offset → UTF-16 offset. */
export function utf16Offset(text: string, cp: number): number {
  let i = 0;
  for (let n = 0; n < cp && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return i;
}

const KEYWORDS = ['true', 'false', 'null', 'in'];

/** The chain of identifiers before a trailing `.`, e.g. `object.metadata.` → ['object', 'metadata']. */
export function memberChain(before: string): { chain: string[]; prefix: string } | undefined {
  const m = /((?:[A-Za-z_][A-Za-z0-9_]*\??\s*\.\s*)+)([A-Za-z_][A-Za-z0-9_]*)?$/.exec(before);
  if (!m) return undefined;
  // Not a member of something that is not an identifier chain (e.g. `foo().`, `x[0].`).
  const start = m.index;
  if (start > 0 && /[\])A-Za-z0-9_'"]/.test(before[start - 1])) return undefined;
  const chain = m[1]
    .split('.')
    .map((s) => s.trim().replace(/\?$/, ''))
    .filter(Boolean);
  return { chain, prefix: m[2] ?? '' };
}

/** The declared type of a chain (`request.userInfo` → `kubernetes.UserInfo`), if every step is declared. */
export function chainType(d: CelDeclarations, chain: readonly string[]): string | undefined {
  // Variable names may contain dots (`authorizer.requestResource`): longest match first.
  for (let n = chain.length; n >= 1; n--) {
    const name = chain.slice(0, n).join('.');
    const v = d.variables.find((x) => x.name === name);
    if (!v) continue;
    let type: string | undefined = v.type;
    for (const step of chain.slice(n)) {
      type = d.types[type]?.find((f) => f.name === step)?.type;
      if (!type) return undefined;
    }
    return type;
  }
  return undefined;
}

/** The test input value at a chain (`object.metadata` → the input object's metadata). */
export function inputAt(inputs: CelInputs | undefined, chain: readonly string[]): unknown {
  if (!inputs) return undefined;
  const roots: Record<string, unknown> = {
    object: inputs.object,
    oldObject: inputs.oldObject,
    params: inputs.params,
    namespaceObject: inputs.namespaceObject,
    request: inputs.request,
  };
  let v: unknown = roots[chain[0]];
  for (const step of chain.slice(1)) {
    if (!isRecord(v)) return undefined;
    v = v[step];
  }
  return v;
}

const typeOfValue = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'list' : isRecord(v) ? 'map' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'double') : typeof v === 'boolean' ? 'bool' : 'string';

const CEL_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function functionDoc(d: CelDeclarations, name: string): string | undefined {
  const f = d.functions.find((x) => x.name === name);
  const macros = d.macros.filter((x) => x.name === name);
  if (!f && !macros.length) return undefined;
  const parts: string[] = [];
  if (macros.length) {
    parts.push(`**${name}** (macro)`);
    const doc = macros.find((x) => x.doc)?.doc;
    if (doc) parts.push(doc);
    const ex = macros.flatMap((x) => x.examples ?? []).slice(0, 3);
    if (ex.length) parts.push('```\n' + ex.join('\n') + '\n```');
  }
  if (f) {
    if (!macros.length) parts.push(`**${name}**`);
    if (f.doc) parts.push(f.doc);
    const sigs = f.overloads.map((o) => o.signature).slice(0, 8);
    if (sigs.length) parts.push('```\n' + sigs.join('\n') + (f.overloads.length > 8 ? `\n… ${f.overloads.length - 8} more` : '') + '\n```');
    const ex = f.overloads.flatMap((o) => o.examples ?? []).slice(0, 3);
    if (ex.length) parts.push('```\n' + ex.join('\n') + '\n```');
  }
  return parts.join('\n\n');
}

// ---------------------------------------------------------------------------
// Registration

let registered = false;

export function ensureCelLanguage(): void {
  if (registered) return;
  registered = true;
  const langs = monaco.languages;
  langs.register({ id: 'cel', extensions: ['.cel'], aliases: ['CEL'] });
  langs.setLanguageConfiguration('cel', {
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
      { open: "'", close: "'" },
      { open: '"', close: '"' },
    ],
  });
  langs.setMonarchTokensProvider('cel', {
    keywords: KEYWORDS,
    variables: ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'authorizer', 'variables'],
    tokenizer: {
      root: [
        [/\/\/.*$/, 'comment'],
        [/[rR]?[bB]?'''/, { token: 'string', next: '@str3s' }],
        [/[rR]?[bB]?"""/, { token: 'string', next: '@str3d' }],
        [/[rR]?[bB]?'([^'\\\n]|\\.)*'/, 'string'],
        [/[rR]?[bB]?"([^"\\\n]|\\.)*"/, 'string'],
        [/0x[0-9a-fA-F]+u?/, 'number'],
        [/\d+\.\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+/, 'number.float'],
        [/\d+u?/, 'number'],
        [/[A-Za-z_][A-Za-z0-9_]*(?=\s*\()/, 'predefined'],
        [/[A-Za-z_][A-Za-z0-9_]*/, { cases: { '@keywords': 'keyword', '@variables': 'variable', '@default': 'identifier' } }],
        [/[{}()[\]]/, '@brackets'],
        [/[=!<>]=?|&&|\|\||[+\-*/%?:]/, 'operator'],
        [/\s+/, 'white'],
      ],
      str3s: [
        [/'''/, { token: 'string', next: '@pop' }],
        [/./, 'string'],
      ],
      str3d: [
        [/"""/, { token: 'string', next: '@pop' }],
        [/./, 'string'],
      ],
    },
  } as monaco.languages.IMonarchLanguage);

  langs.registerCompletionItemProvider('cel', {
    triggerCharacters: ['.'],
    async provideCompletionItems(model, position) {
      const info = infos.get(model.uri.toString());
      if (!info) return { suggestions: [] };
      const d = await declarationsFor(info.context, info.options);
      if (model.isDisposed()) return { suggestions: [] };
      const word = model.getWordUntilPosition(position);
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
      const before = model.getValueInRange(new monaco.Range(1, 1, position.lineNumber, position.column));
      const K = langs.CompletionItemKind;
      const out: monaco.languages.CompletionItem[] = [];
      const seen = new Set<string>();
      const add = (item: Omit<monaco.languages.CompletionItem, 'range'>) => {
        const key = `${String(item.label)}\u0000${item.kind}`;
        if (seen.has(key)) return;
        seen.add(key);
        out.push({ ...item, range });
      };
      const member = memberChain(before);
      if (member) {
        const { chain } = member;
        const type = chainType(d, chain);
        // Declared fields (request., namespaceObject., variables., authorizer.requestResource …).
        if (type && d.types[type]) for (const f of d.types[type]) add({ label: f.name, kind: K.Field, detail: f.type, insertText: f.name, sortText: `0${f.name}` });
        // Variables whose name continues the chain (`authorizer.` → `requestResource`).
        const prefix = `${chain.join('.')}.`;
        for (const v of d.variables)
          if (v.name.startsWith(prefix) && !v.name.slice(prefix.length).includes('.'))
            add({ label: v.name.slice(prefix.length), kind: K.Variable, detail: v.type, insertText: v.name.slice(prefix.length), sortText: `0${v.name}` });
        // Fields of the current test input.
        const value = inputAt(info.inputs(), chain);
        if (isRecord(value))
          for (const [k, v] of Object.entries(value)) {
            if (!CEL_IDENT.test(k)) continue;
            add({
              label: k,
              kind: K.Field,
              detail: `${typeOfValue(v)} · from the test input`,
              documentation: v !== null && typeof v !== 'object' ? `Test input value: ${JSON.stringify(v)}` : undefined,
              insertText: k,
              sortText: `0${k}`,
            });
          }
        // Member functions and receiver macros.
        for (const f of d.functions) {
          const overloads = f.overloads.filter((o) => o.member && (!type || type === 'dyn' || !o.receiver || o.receiver === type || o.receiver.startsWith(type.split('(')[0])));
          if (!overloads.length || !CEL_IDENT.test(f.name)) continue;
          add({
            label: f.name,
            kind: K.Method,
            detail: overloads[0].signature + (overloads.length > 1 ? ` (+${overloads.length - 1})` : ''),
            documentation: f.doc ? { value: f.doc } : undefined,
            insertText: `${f.name}($0)`,
            insertTextRules: langs.CompletionItemInsertTextRule.InsertAsSnippet,
            sortText: `2${f.name}`,
          });
        }
        for (const m of d.macros)
          if (m.receiver)
            add({
              label: m.name,
              kind: K.Keyword,
              detail: `macro (${m.argCount} args)`,
              documentation: m.doc ? { value: m.doc } : undefined,
              insertText: m.argCount === 2 ? `${m.name}(\${1:x}, $0)` : m.argCount === 3 ? `${m.name}(\${1:i}, \${2:v}, $0)` : `${m.name}($0)`,
              insertTextRules: langs.CompletionItemInsertTextRule.InsertAsSnippet,
              sortText: `1${m.name}`,
            });
        return { suggestions: out };
      }
      // A new term: variables, global functions, macros, keywords.
      for (const v of d.variables) {
        const root = v.name.split('.')[0];
        add({ label: root, kind: K.Variable, detail: root === v.name ? v.type : undefined, documentation: v.doc, insertText: root, sortText: `0${root}` });
      }
      for (const f of d.functions) {
        const overloads = f.overloads.filter((o) => !o.member);
        if (!overloads.length || !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(f.name)) continue;
        add({
          label: f.name,
          kind: K.Function,
          detail: overloads[0].signature + (overloads.length > 1 ? ` (+${overloads.length - 1})` : ''),
          documentation: f.doc ? { value: f.doc } : undefined,
          insertText: `${f.name}($0)`,
          insertTextRules: langs.CompletionItemInsertTextRule.InsertAsSnippet,
          sortText: `2${f.name}`,
        });
      }
      for (const m of d.macros)
        if (!m.receiver)
          add({ label: m.name, kind: K.Keyword, detail: 'macro', documentation: m.doc ? { value: m.doc } : undefined, insertText: `${m.name}($0)`, insertTextRules: langs.CompletionItemInsertTextRule.InsertAsSnippet, sortText: `1${m.name}` });
      for (const k of KEYWORDS) add({ label: k, kind: K.Keyword, insertText: k, sortText: `3${k}` });
      return { suggestions: out };
    },
  });

  langs.registerHoverProvider('cel', {
    async provideHover(model, position) {
      const info = infos.get(model.uri.toString());
      if (!info) return null;
      const text = model.getValue();
      const offset = model.getOffsetAt(position);
      const [t, d] = await Promise.all([typeAt(text, info.context, codePointOffset(text, offset), info.options), declarationsFor(info.context, info.options)]);
      if (model.isDisposed()) return null;
      const contents: monaco.IMarkdownString[] = [];
      let range: monaco.IRange | undefined;
      if (t.ok && t.type) {
        contents.push({ value: `\`${t.type}\`${t.detail ? ` — ${t.detail}` : ''}` });
        if (t.start !== undefined && t.end !== undefined) {
          const s = model.getPositionAt(utf16Offset(text, t.start));
          const e = model.getPositionAt(utf16Offset(text, t.end));
          range = new monaco.Range(s.lineNumber, s.column, e.lineNumber, e.column);
        }
      }
      const word = model.getWordAtPosition(position);
      if (word) {
        const doc = functionDoc(d, word.word);
        if (doc) contents.push({ value: doc });
      }
      if (!contents.length) return null;
      return { contents, range };
    },
  });
}
