/**
 * What the CEL language features share: the engine they ask, where each model's
 * expression lives (its context, compile options and sample input), and the
 * declarations of a context, cached.
 */
import type * as Monaco from 'monaco-editor';
import type { SchemaFieldsAt, TypedRoot } from '../admission/schema-fields';
import type { CelCompileOptions, CelContext, CelDeclarations, CelInputs, CelTypeAt } from '../cel/types';

export type MonacoApi = Pick<typeof Monaco, 'languages' | 'editor' | 'MarkerSeverity'>;
export type Model = Monaco.editor.ITextModel;

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
  /**
   * The typed fields of `object`/`oldObject` or `params` at a field path (names, OBJECT_ELEMENT for
   * a list's element or a map's value, LIST_ELEMENT for a list's element only) from the schemas of
   * the kinds the document can match (its paramKind for params); undefined when no schema is known
   * (completion and hover then go by the sample input and the engine).
   */
  typedFields?: (root: TypedRoot, path: readonly string[]) => Promise<SchemaFieldsAt | undefined>;
}

/** The path segment of a list's element or a map's value (src/admission/schema-fields.ts ELEMENT). */
export const OBJECT_ELEMENT = '[]';
/** The path segment of a list's element only (src/admission/schema-fields.ts LIST_ELEMENT). */
export const LIST_ELEMENT = '[*]';

export type { TypedRoot };

const ROOTS: Record<string, TypedRoot> = { object: 'object', oldObject: 'object', params: 'params' };
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;
const SEGMENT = /\.\??([A-Za-z_][A-Za-z0-9_]*)|\[\??(?:[^[\]'"]|'[^']*'|"[^"]*")*\]/y;

/** A chain's field path after its root identifier; undefined where it is not plain selections and indexes. */
function segments(chain: string, from: number): string[] | undefined {
  const path: string[] = [];
  SEGMENT.lastIndex = from;
  while (SEGMENT.lastIndex < chain.length) {
    const s = SEGMENT.exec(chain);
    if (!s) return undefined;
    path.push(s[1] ?? OBJECT_ELEMENT);
  }
  return path;
}

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

/** The macros whose variables range over a receiver's elements; those taking two variables bind (index or key, element or value). */
const ONE_VARIABLE = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter']);
const TWO_VARIABLES = new Set(['all', 'exists', 'exists_one', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);

/** A macro variable in scope: its name and the path it stands for (the receiver's path plus an element step). */
interface MacroScope {
  name: string;
  receiver: string;
  element: string;
}

/**
 * The macro variables in scope at the end of `before` (the expression's text up to the chain),
 * outermost first: `object.spec.containers.all(c, c.` → c ranges over `object.spec.containers`.
 * Strings are skipped; a call that is already closed binds nothing.
 */
export function macroScopes(before: string): MacroScope[] {
  const open: number[] = [];
  let quote: string | undefined;
  for (let i = 0; i < before.length; i++) {
    const ch = before[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') open.push(i);
    else if ((ch === ')' || ch === ']' || ch === '}') && open.length) open.pop();
  }
  const out: MacroScope[] = [];
  for (const at of open) {
    if (before[at] !== '(') continue;
    const head = before.slice(0, at);
    const macro = /\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(head);
    const name = macro?.[1];
    if (!macro || !name || !(ONE_VARIABLE.has(name) || TWO_VARIABLES.has(name))) continue;
    const vars = /^\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,(?:\s*([A-Za-z_][A-Za-z0-9_]*)\s*,)?/.exec(before.slice(at));
    if (!vars) continue;
    const receiver = receiverBefore(head.slice(0, macro.index));
    // two variables: the second is the element (a list's) or the value (a map's); one: a list's element
    if (vars[2] && TWO_VARIABLES.has(name)) out.push({ name: vars[2], receiver, element: OBJECT_ELEMENT });
    else if (ONE_VARIABLE.has(name)) out.push({ name: vars[1]!, receiver, element: LIST_ELEMENT });
  }
  return out;
}

/**
 * A receiver chain as a typed root and field path: `object.spec.containers[0].ports` → object
 * ['spec', 'containers', '[]', 'ports']; `params.data` → params ['data']; a macro variable stands
 * for its receiver's element (`c.image` inside `object.spec.containers.all(c, …)` → object
 * ['spec', 'containers', '[*]', 'image']). `before` is the expression's text before the chain
 * (for the macros around it). Undefined for anything else (calls, other roots).
 */
export function typedPath(chain: string, before = ''): { root: TypedRoot; path: string[] } | undefined {
  let scopes = macroScopes(before);
  let suffix: string[] = [];
  for (let depth = 0; depth < 16; depth++) {
    const name = IDENT.exec(chain)?.[0];
    if (!name) return undefined;
    const rest = segments(chain, name.length);
    if (!rest) return undefined;
    // the innermost binding of the name wins; its receiver sees only the scopes outside it
    const k = scopes.map((s) => s.name).lastIndexOf(name);
    if (k >= 0) {
      suffix = [scopes[k]!.element, ...rest, ...suffix];
      chain = scopes[k]!.receiver;
      scopes = scopes.slice(0, k);
      continue;
    }
    const root = ROOTS[name];
    return root ? { root, path: [...rest, ...suffix] } : undefined;
  }
  return undefined;
}

/** Which of the matched kinds have a field, in words (empty when there is one kind, or every kind has it). */
export function kindsNote(fieldKinds: readonly string[], allKinds: readonly string[]): string {
  if (allKinds.length < 2) return '';
  if (fieldKinds.length === allKinds.length) return `in every matched kind (${allKinds.join(', ')})`;
  return `only in ${fieldKinds.join(', ')} (not ${allKinds.filter((k) => !fieldKinds.includes(k)).join(', ')})`;
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

/** The declarations of a model's context (cached per context and options; failures are retried). */
export function declarationsCache(engine: CelLanguageEngine) {
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
