/**
 * serializeDocuments / serializeJSON: JSON-like values → text that parseDocuments reads back to
 * the same values (block style; a string quoted only where a plain scalar would read back as
 * something else). The style and the round-trip guarantee: README.md ("Serialize").
 */
import { plainChangesType } from './resolve';
import type { SerializeOptions } from './types';

const NEEDS_ESCAPE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff"\\]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NOT_PRINTABLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string can be written plain (unquoted) in block context. */
const ASCII_PRINTABLE = /^[\x20-\x7e]*$/;

export function isPlainSafe(s: string): boolean {
  if (s === '') return false;
  if (ASCII_PRINTABLE.test(s)) {
    // common case: nothing to escape
  } else if (NOT_PRINTABLE.test(s) || s.includes('\n') || s.includes('\t') || s.includes('\r')) {
    return false;
  }
  const first = s[0]!;
  const last = s[s.length - 1]!;
  if (first === ' ' || last === ' ') return false;
  if ('[]{},#&*!|>\'"%@`'.includes(first)) return false;
  if ((first === '-' || first === '?' || first === ':') && (s.length === 1 || s[1] === ' ')) return false;
  if (s.startsWith('---') || s.startsWith('...')) return false;
  if (s.includes(': ') || s.includes(' #') || last === ':') return false;
  return !plainChangesType(s);
}

function escapeChar(c: string): string {
  switch (c) {
    case '"':
      return '\\"';
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\t':
      return '\\t';
    case '\r':
      return '\\r';
    case '\0':
      return '\\0';
    default:
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
}

const ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source + '|\\t|\\n|\\r', 'g');

export function doubleQuote(s: string): string {
  return `"${s.replace(ESCAPE_ALL, escapeChar)}"`;
}

/** Short strings (keys, enum values) repeat a lot: remember how each is written. */
const scalarCache = new Map<string, string>();

function scalarString(s: string): string {
  if (s.length > 64) return isPlainSafe(s) ? s : doubleQuote(s);
  let t = scalarCache.get(s);
  if (t === undefined) {
    t = isPlainSafe(s) ? s : doubleQuote(s);
    if (scalarCache.size > 10_000) scalarCache.clear();
    scalarCache.set(s, t);
  }
  return t;
}

/** Literal block (`|`) for a multi-line string, or undefined when one cannot carry it exactly. */
export function literalBlock(s: string, indent: string): string | undefined {
  if (!s.includes('\n') || NOT_PRINTABLE.test(s) || s.includes('\r')) return undefined;
  const lines = s.split('\n');
  // Whitespace-only lines are ambiguous with indentation: keep them quoted.
  for (const l of lines) if (l.length > 0 && /^[ \t]+$/.test(l)) return undefined;
  let trailing = 0;
  while (trailing < lines.length && lines[lines.length - 1 - trailing] === '') trailing++;
  if (trailing === lines.length) return undefined; // only newlines
  const body = lines.slice(0, lines.length - trailing);
  // trailing counts the empty strings after the last '\n's: 0 → no final newline.
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const firstContent = body.find((l) => l.length > 0) ?? '';
  const indicator = firstContent.startsWith(' ') ? '2' : '';
  let out = `|${indicator}${chomp}\n`;
  for (const l of body) out += l === '' ? '\n' : `${indent}${l}\n`;
  for (let k = 1; k < trailing; k++) out += '\n';
  return out;
}

/**
 * The text written so far. Appending to one string (V8 keeps it as a rope, flattened once
 * when read) costs about a third less than pushing the ~100,000 pieces of a large document
 * to an array and joining them (measured on the 1,000-webhook bench file).
 */
interface Out {
  text: string;
}

interface Ctx {
  indentSequences: boolean;
  ancestors: Set<object>;
}

type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json };

/** Normalize a value as JSON.stringify would (see the file comment). `undefined` means "leave out". */
function normalize(v: unknown, ctx: Ctx): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'object':
      if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
      if (ctx.ancestors.has(v)) return null;
      return v;
    default:
      return undefined;
  }
}

function numberText(n: number): string {
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    // Written as an integer it would read back as an exact (bigint) integer: keep it a float.
    return n.toExponential();
  }
  return String(n);
}

export function scalarText(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'bigint') return v.toString();
  return scalarString(v as string);
}

function isCollection(v: unknown): v is object {
  return v !== null && typeof v === 'object';
}

function entriesOf(obj: Record<string, unknown>, ctx: Ctx): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const k of Object.keys(obj)) {
    const n = normalize(obj[k], ctx);
    if (n !== undefined) out.push([k, n]);
  }
  return out;
}

function writeEntries(entries: Array<[string, unknown]>, indent: string, first: string, ctx: Ctx, out: Out): void {
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i]!;
    const prefix = i === 0 ? first : indent;
    const t = scalarString(k);
    // YAML limits implicit keys to 1024 characters: longer ones use the explicit `? key` form.
    const head = t.length > 1000 ? `${prefix}? ${t}\n${indent}:` : `${prefix}${t}:`;
    writeValue(v, indent, head, ctx, out, false);
  }
}

function writeItems(arr: readonly unknown[], indent: string, first: string, ctx: Ctx, out: Out): void {
  for (let i = 0; i < arr.length; i++) {
    let n = normalize(arr[i], ctx);
    if (n === undefined) n = null;
    writeValue(n, indent, `${i === 0 ? first : indent}-`, ctx, out, true);
  }
}

/**
 * Write `head` (`key:` or `-`, already indented) and the value after it.
 * `indent` is the indentation of the head; children go 2 further.
 */
function writeValue(v: unknown, indent: string, head: string, ctx: Ctx, out: Out, inSequence: boolean): void {
  const child = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.text += `${head} []\n`;
      return;
    }
    ctx.ancestors.add(v);
    if (inSequence) {
      // `- - a`: the nested list starts on the dash line.
      writeItems(v, child, `${head} `, ctx, out);
    } else {
      out.text += `${head}\n`;
      const at = ctx.indentSequences ? child : indent;
      writeItems(v, at, at, ctx, out);
    }
    ctx.ancestors.delete(v);
    return;
  }
  if (isCollection(v)) {
    ctx.ancestors.add(v);
    const entries = entriesOf(v as Record<string, unknown>, ctx);
    if (entries.length === 0) {
      out.text += `${head} {}\n`;
    } else if (inSequence) {
      // `- key: value`: the mapping starts on the dash line.
      writeEntries(entries, child, `${head} `, ctx, out);
    } else {
      out.text += `${head}\n`;
      writeEntries(entries, child, child, ctx, out);
    }
    ctx.ancestors.delete(v);
    return;
  }
  if (typeof v === 'string') {
    const block = literalBlock(v, child);
    if (block !== undefined) {
      out.text += `${head} ${block}`;
      return;
    }
  }
  out.text += `${head} ${scalarText(v)}\n`;
}

function serializeOne(value: unknown, ctx: Ctx): string {
  const v = normalize(value, ctx);
  if (v === undefined) return 'null\n';
  const out: Out = { text: '' };
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]\n';
    ctx.ancestors.add(v);
    writeItems(v, '', '', ctx, out);
    ctx.ancestors.delete(v);
  } else if (isCollection(v)) {
    ctx.ancestors.add(v);
    const entries = entriesOf(v as Record<string, unknown>, ctx);
    if (entries.length > 0) writeEntries(entries, '', '', ctx, out);
    ctx.ancestors.delete(v);
    if (entries.length === 0) return '{}\n';
  } else {
    // A document that is a bare scalar: always on one line.
    return `${typeof v === 'string' ? scalarString(v) : scalarText(v)}\n`;
  }
  return out.text;
}

/**
 * Write values as a multi-document YAML stream (documents separated by
 * `---`). `parseDocuments(serializeDocuments(xs))` gives back `xs` for every
 * list of JSON-like objects (see ./serialize.test.ts).
 */
export function serializeDocuments(objects: readonly unknown[], options: SerializeOptions = {}): string {
  const ctx: Ctx = { indentSequences: options.indentSequences ?? true, ancestors: new Set() };
  return objects.map((o) => serializeOne(o, ctx)).join('---\n');
}

function jsonValue(v: unknown, indent: string, step: string, ctx: Ctx): string {
  const n = normalize(v, ctx);
  if (n === undefined || n === null) return 'null';
  if (typeof n === 'bigint') return n.toString();
  if (typeof n === 'number') return numberText(n);
  if (typeof n === 'string') return jsonString(n);
  if (typeof n !== 'object') return JSON.stringify(n);
  const inner = indent + step;
  const nl = step ? '\n' : '';
  const sep = step ? ': ' : ':';
  ctx.ancestors.add(n);
  let s: string;
  if (Array.isArray(n)) {
    s = n.length === 0 ? '[]' : `[${nl}${n.map((x) => inner + jsonValue(x, inner, step, ctx)).join(`,${nl}`)}${nl}${indent}]`;
  } else {
    const es = entriesOf(n as Record<string, unknown>, ctx);
    s = es.length === 0 ? '{}' : `{${nl}${es.map(([k, x]) => `${inner}${jsonString(k)}${sep}${jsonValue(x, inner, step, ctx)}`).join(`,${nl}`)}${nl}${indent}}`;
  }
  ctx.ancestors.delete(n);
  return s;
}

/** JSON string, with the characters YAML readers refuse raw (BOM, NEL, LS, PS, C1) escaped too. */
function jsonString(s: string): string {
  return JSON.stringify(s).replace(/[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Write objects as JSON: one object as itself, several as a `v1 List` (as
 * `kubectl get -o json` does), which parseDocuments unwraps again.
 */
export function serializeJSON(objects: readonly unknown[], options: { indent?: number } = {}): string {
  const step = ' '.repeat(options.indent ?? 2);
  const ctx: Ctx = { indentSequences: true, ancestors: new Set() };
  const value = objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: [...objects] };
  return `${jsonValue(value, '', step, ctx)}\n`;
}

export type { Json };
