/**
 * What the apiserver's decoder checks before validation, driven by the registry:
 * JSON types (a string where an integer belongs fails the whole request with HTTP 400)
 * and unknown fields (by the write's field validation directive: an error for kubectl's Strict, a
 * warning for Warn, nothing for Ignore; ../field-validation.ts).
 * null is accepted anywhere: it decodes to the field's zero value.
 */
import type { FieldError } from '../errors';
import { asWarning, invalid } from '../errors';
import { fieldPath, type FieldPath } from '../../base/path';
import { kindSpecOf } from './kinds';
import type { Field } from './types';
import { isObject } from '../../base/json';
import { isUnknownField, strictDecodingError, type FieldValidation } from '../field-validation';

const INT32 = 2 ** 31;

const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

const typeError = (path: FieldPath, value: unknown, expected: string): FieldError =>
  invalid(path, value, `must be ${expected} (the decoder cannot unmarshal ${jsonType(value)} into ${expected}, so the apiserver rejects the whole object)`);

/** Go decodes a JSON array of numbers 0–255 into []byte too (caBundle: []), not only base64 text. */
const isByteArray = (v: unknown): boolean =>
  Array.isArray(v) && v.every((b) => b === null || (typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255));

/** Field descriptions by name, built once per fields array (decoding runs on every keystroke). */
const byNameCache = new WeakMap<readonly Field[], Map<string, Field>>();
function byName(fields: readonly Field[]): Map<string, Field> {
  let m = byNameCache.get(fields);
  if (!m) byNameCache.set(fields, (m = new Map(fields.map((f) => [f.name, f]))));
  return m;
}

/** Paths are built only when there is something to report: `at()` renders the current position. */
type At = () => FieldPath;

function decodeField(value: unknown, field: Field, at: At, out: FieldError[]): void {
  if (value === null || value === undefined) return;
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string' && !(field.format === 'byte' && isByteArray(value))) out.push(typeError(at(), value, 'a string'));
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) out.push(typeError(at(), value, 'an integer'));
      else if (value < -INT32 || value >= INT32) out.push(invalid(at(), value, 'must fit in a 32-bit integer'));
      return;
    case 'boolean':
      if (typeof value !== 'boolean') out.push(typeError(at(), value, 'a boolean'));
      return;
    case 'stringList':
      if (!Array.isArray(value)) out.push(typeError(at(), value, 'a list of strings'));
      else value.forEach((v, i) => typeof v !== 'string' && v !== null && out.push(typeError(at().index(i), v, 'a string')));
      return;
    case 'stringMap':
      if (!isObject(value)) out.push(typeError(at(), value, 'a map of strings'));
      else for (const [k, v] of Object.entries(value)) if (typeof v !== 'string' && v !== null) out.push(withQuoteHint(typeError(at().key(k), v, 'a string')));
      return;
    case 'object':
      if (!isObject(value)) out.push(typeError(at(), value, 'an object'));
      else if (!field.open) decodeFields(value, field.fields, at, out);
      return;
    case 'list':
      if (!Array.isArray(value)) out.push(typeError(at(), value, 'a list'));
      else {
        const clean = cleanElementsOf(field.item);
        for (let i = 0; i < value.length; i++) {
          const v = value[i];
          if (clean && isObject(v) && clean.has(v)) continue;
          const before = out.length;
          decodeField(v, field.item, () => at().index(i), out);
          if (clean && isObject(v) && out.length === before) clean.add(v);
        }
      }
      return;
  }
}

/**
 * List elements (objects) the decoder found nothing in, by element description: objects are
 * immutable, so an unchanged element of 10,000 is not walked again (its errors would carry its
 * index, so only clean ones are remembered).
 */
const cleanElements = new WeakMap<Field, WeakSet<object>>();
function cleanElementsOf(item: Field): WeakSet<object> | undefined {
  if (item.type !== 'object') return undefined;
  let set = cleanElements.get(item);
  if (!set) cleanElements.set(item, (set = new WeakSet()));
  return set;
}

/** A bare `true` or `8080` in a label map is the classic mistake: say so. */
function withQuoteHint(e: FieldError): FieldError {
  return { ...e, hint: 'Quote the value in YAML ("true", "8080"): label and annotation values are strings.' };
}

function decodeFields(value: Record<string, unknown>, fields: readonly Field[], at: At, out: FieldError[]): void {
  const known = byName(fields);
  for (const k in value) {
    const v = value[k];
    const f = known.get(k);
    if (!f) {
      const p = at().child(k);
      out.push({
        ...asWarning(invalid(p, v, '')),
        message: `unknown field "${String(p)}"`,
        hint: 'With fieldValidation=Warn the apiserver drops unknown fields with this warning. Check the spelling and the indentation.',
      });
      continue;
    }
    decodeField(v, f, () => at().child(k), out);
  }
}

/**
 * Decoder errors for an object of a kind the Workbench edits ([] for other kinds), unknown fields
 * as the field validation directive makes them (default Warn: the apiserver's own default).
 */
export function decodeErrors(object: unknown, fieldValidation: FieldValidation = 'Warn'): FieldError[] {
  const spec = kindSpecOf(object);
  if (!spec || !isObject(object)) return [];
  const out: FieldError[] = [];
  const { apiVersion: _a, kind: _k, ...rest } = object;
  decodeFields(rest, spec.fields, fieldPath, out);
  // The walk's caches do not depend on the mode: the mode only maps its unknown-field answers.
  if (fieldValidation === 'Warn' || !out.some(isUnknownField)) return out;
  if (fieldValidation === 'Ignore') return out.filter((e) => !isUnknownField(e));
  const request = strictDecodingError(object, out);
  return out.map((e) =>
    isUnknownField(e)
      ? {
          ...e,
          severity: 'error',
          hint: `kubectl sends fieldValidation=Strict: the apiserver refuses the object before validating it (HTTP 400: "${request}"). Check the spelling and the indentation.`,
        }
      : e,
  );
}

/**
 * Decoded copies of list elements by element object, per element description: an unchanged
 * element decodes to the very same object again, so what validation memoises per element stays
 * valid. Elements that decode to themselves are remembered apart (selfDecoding): walking them
 * again at every keystroke cost more, at 10,000 webhooks, than a WeakSet entry each.
 */
const elementMemo = new WeakMap<readonly Field[], WeakMap<object, unknown>>();
function elementMemoOf(fields: readonly Field[]): WeakMap<object, unknown> {
  let memo = elementMemo.get(fields);
  if (!memo) elementMemo.set(fields, (memo = new WeakMap()));
  return memo;
}

const nullToEmpty = (v: unknown): unknown => (v === null ? '' : v);

function hasNullValue(map: Record<string, unknown>): boolean {
  for (const k in map) if (map[k] === null && Object.hasOwn(map, k)) return true;
  return false;
}

/** Decodes the value of one field. */
type Decoder = (value: unknown) => unknown;

const decodedStringList: Decoder = (value) => (Array.isArray(value) && value.includes(null) ? value.map(nullToEmpty) : value);

const decodedStringMap: Decoder = (value) =>
  !isObject(value) || !hasNullValue(value) ? value : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullToEmpty(v)]));

/**
 * The decoders of the fields decoding can change (lists of strings, string maps, and the objects
 * and lists that hold them), by fields array, built once: every other field decodes to itself,
 * so it is not walked.
 */
const decodersCache = new WeakMap<readonly Field[], readonly (readonly [string, Decoder])[]>();
function decodersOf(fields: readonly Field[]): readonly (readonly [string, Decoder])[] {
  let m = decodersCache.get(fields);
  if (!m) {
    const built: (readonly [string, Decoder])[] = [];
    for (const f of fields) {
      const d = decoderOf(f);
      if (d) built.push([f.name, d]);
    }
    decodersCache.set(fields, (m = built));
  }
  return m;
}

/** The decoder of a field, or undefined when its values always decode to themselves. */
function decoderOf(field: Field): Decoder | undefined {
  switch (field.type) {
    case 'stringList':
      return decodedStringList;
    case 'stringMap':
      return decodedStringMap;
    case 'object': {
      const fields = field.open ? [] : decodersOf(field.fields);
      return fields.length === 0 ? undefined : (value) => (isObject(value) ? decodedFields(value, fields) : value);
    }
    case 'list': {
      const item = decoderOf(field.item);
      const memo = elementMemoOf(field.item.fields);
      return item && ((value) => (Array.isArray(value) ? decodedList(value, item, memo) : value));
    }
    default:
      return undefined;
  }
}

/** Elements that decode to themselves, per element memo (a list of 10,000 is walked once, then only its new elements). */
const selfDecoding = new WeakMap<WeakMap<object, unknown>, WeakSet<object>>();

function decodedList(list: readonly unknown[], item: Decoder, memo: WeakMap<object, unknown>): readonly unknown[] {
  let out: unknown[] | undefined;
  let same = selfDecoding.get(memo);
  if (!same) selfDecoding.set(memo, (same = new WeakSet()));
  for (let i = 0; i < list.length; i++) {
    const x: unknown = list[i];
    if (!isObject(x) || same.has(x)) continue;
    let d = item(x);
    if (d === x) {
      same.add(x);
      continue;
    }
    const before = memo.get(x);
    if (before === undefined) memo.set(x, d);
    else d = before;
    (out ??= list.slice())[i] = d;
  }
  return out ?? list;
}

function decodedFields(value: Record<string, unknown>, decoders: readonly (readonly [string, Decoder])[]): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < decoders.length; i++) {
    const [name, decode] = decoders[i]!;
    const v = value[name];
    if (v === undefined || v === null) continue;
    const d = decode(v);
    if (d !== v) (out ??= { ...value })[name] = d;
  }
  return out ?? value;
}

/**
 * The object as the apiserver's JSON decoder hands it to defaulting and validation: `null`
 * inside a list of strings or as a map value becomes "" (Go's zero value for a string), which
 * validation then reports as the apiserver does (`operations[1]: Unsupported value: ""`,
 * `resources[1]: Required value`). Copy-on-write: the same object when there is no such null.
 */
export function decoded<T>(object: T): T {
  if (!isObject(object)) return object;
  const hit = objectMemo.get(object);
  if (hit !== undefined) return hit as T;
  const spec = kindSpecOf(object);
  const out = spec ? decodedFields(object, decodersOf(spec.fields)) : object;
  objectMemo.set(object, out);
  return out as T;
}

/** Decoded objects by input object (inputs are immutable: an unchanged document is not walked again). */
const objectMemo = new WeakMap<object, unknown>();
