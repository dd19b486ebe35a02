/**
 * Completion for the `cel` language: after a `.`, the fields of the receiver's type, the
 * keys of the sample input, member functions and receiver macros; elsewhere variables,
 * global functions, namespaces, macros and keywords.
 */
import type * as Monaco from 'monaco-editor';
import type { CelDeclarations, CelMacro } from '../cel/types';
import { macroMarkdown, signatureList } from './cel-docs';
import { getCelModelContext, kindsNote, receiverBefore, typedPath, type CelLanguageEngine, type CelModelContext, type MonacoApi } from './cel-model';
import type { SchemaFieldsAt } from '../admission/schema-fields';
import { KEYWORDS } from './cel-tokens';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

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

/** A schema type name (src/admission/schema-fields.ts schemaTypeName) as the CEL type member functions are chosen by; undefined: any. */
function celTypeOfSchema(name: string, hasFields: boolean): string | undefined {
  const scalar: Record<string, string> = {
    string: 'string',
    bytes: 'bytes',
    integer: 'int',
    number: 'double',
    boolean: 'bool',
    duration: 'google.protobuf.Duration',
    timestamp: 'google.protobuf.Timestamp',
  };
  if (scalar[name]) return scalar[name];
  if (name.startsWith('[]')) return 'list(dyn)';
  if (name.startsWith('map[') || name === 'object' || hasFields) return 'map(string, dyn)';
  return undefined; // int-or-string, any, Quantity (no CEL type of its own)
}

const CEL_OF_JSON: Record<string, string> = { map: 'map(string, dyn)', list: 'list(dyn)', int: 'int', double: 'double', string: 'string', bool: 'bool' };

/**
 * The receiver's type for choosing member functions and macros: the declared one, else what the
 * matched kinds' schemas say of the path (one type for all of them), else the kind of the sample
 * input's value there; undefined (any) when none knows. `object.spec.` is then an object, and
 * gets no Quantity or authorizer functions.
 */
function memberReceiverType(declared: string | undefined, typed: SchemaFieldsAt | undefined, sample: unknown): string | undefined {
  if (declared && declared !== 'dyn') return declared;
  const schemaTypes = new Set(typed?.types.map((t) => celTypeOfSchema(t.type, typed.fields.length > 0)));
  if (schemaTypes.size === 1) {
    const [only] = schemaTypes;
    if (only) return only;
  }
  return sample === undefined ? declared : (CEL_OF_JSON[jsonKind(sample)] ?? declared);
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

interface Resolved {
  /** CEL type name, when known. */
  type?: string;
  /** Sample data at this path (dyn roots). */
  sample?: unknown;
  /** True when the path names a function namespace (sets., lists., format.) rather than a value. */
  namespace?: string;
}

/** Resolves a receiver: a dotted path from the declarations and the sample input, else the engine's checker. */
async function resolveReceiver(chain: string, decl: CelDeclarations, mctx: CelModelContext, engine: CelLanguageEngine): Promise<Resolved> {
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

/** The completion provider, asking `getDecl` for the declarations of a model's context. */
export function celCompletionProvider(
  languages: MonacoApi['languages'],
  engine: CelLanguageEngine,
  getDecl: (ctx: CelModelContext) => Promise<CelDeclarations>,
): Monaco.languages.CompletionItemProvider {
  const Kind = languages.CompletionItemKind;
  const Snippet = languages.CompletionItemInsertTextRule.InsertAsSnippet;
  return {
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
        // One entry per name: a typed field (with its declared type) hides the sample input's key
        // of the same name (request.operation is both).
        const listed = new Set<string>();
        // fields of object/oldObject (and params, macro variables over them) typed by the schemas of the kinds the document can match
        const textBefore = model.getValueInRange({
          startLineNumber: 1,
          startColumn: 1,
          endLineNumber: position.lineNumber,
          endColumn: position.column - prefix.length - 1 - chain.length,
        });
        const at = mctx.typedFields ? typedPath(chain, textBefore) : undefined;
        const typed = at ? await mctx.typedFields!(at.root, at.path).catch(() => undefined) : undefined;
        for (const f of typed?.fields ?? []) {
          listed.add(f.name);
          const note = kindsNote(f.kinds, typed!.kinds);
          suggestions.push({
            label: f.name,
            kind: Kind.Field,
            detail: f.kinds.length < typed!.kinds.length ? `${f.type} · ${note}` : f.type,
            documentation: note ? note[0]!.toUpperCase() + note.slice(1) + '.' : undefined,
            insertText: f.name,
            range,
            sortText: '0' + f.name,
          });
        }
        // fields of typed objects (request, namespaceObject, variables, ...)
        const fields = r.type ? decl.types[r.type] : undefined;
        for (const f of fields ?? []) {
          listed.add(f.name);
          suggestions.push({ label: f.name, kind: Kind.Field, detail: f.type, insertText: f.name, range, sortText: '0' + f.name });
        }
        // dotted variable names (authorizer.requestResource)
        for (const v of decl.variables) {
          if (v.name.startsWith(chain + '.') && !v.name.slice(chain.length + 1).includes('.')) {
            const label = v.name.slice(chain.length + 1);
            if (listed.has(label)) continue;
            listed.add(label);
            suggestions.push({ label, kind: Kind.Variable, detail: v.type, insertText: label, range, sortText: '0' + label });
          }
        }
        // keys of the sample input (object/oldObject/params/...)
        if (r.sample && typeof r.sample === 'object' && !Array.isArray(r.sample)) {
          const dotRange = { ...range, startColumn: range.startColumn - 1 };
          for (const [k, v] of Object.entries(r.sample as Record<string, unknown>)) {
            if (listed.has(k)) continue;
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
        // member functions for this receiver type, after the fields
        const receiver = memberReceiverType(r.type, typed, r.sample);
        for (const fn of decl.functions) {
          const overloads = fn.overloads.filter((o) => o.member && typeMatchesReceiver(receiver, o.receiver));
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
        const collection = !receiver || receiver === 'dyn' || /^(list|map)\(/.test(receiver);
        const optional = !receiver || receiver === 'dyn' || receiver.startsWith('optional_type');
        for (const [name, ms] of macrosByName) {
          const recv = ms.filter((m) => m.receiver);
          if (!recv.length) continue;
          const isOpt = name === 'optMap' || name === 'optFlatMap';
          if (isOpt ? !optional : !collection) continue;
          const m = recv[0]!;
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Monaco snippet placeholders, not a template
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
  };
}
