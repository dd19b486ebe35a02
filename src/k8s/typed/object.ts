/**
 * The object as the kube-apiserver hands it to admission: `apiserverObject` is the one function
 * every path that gives CEL (or a webhook) an object goes through. A built-in kind is decoded
 * into its Go type of the release (k8s.io/api), defaulted by the release's defaulters and
 * written as runtime.DefaultUnstructuredConverter.ToUnstructured writes it — what CEL sees: a
 * field without omitempty is always there (a nil list, map or pointer as `null`, a struct as an
 * object, a scalar as its zero value: a Role's `rules: null` stays null), an omitempty one only
 * when not empty, unknown fields dropped, Quantities, times and IntOrStrings in their canonical
 * form. Any other kind (custom resources) is the JSON as sent but for its metadata (ObjectMeta as above).
 *
 * What the Go types look like, and the defaults that apply to an absent field, are generated data
 * per release (`data/<release>.json`, from the release's own k8s.io modules:
 * tools/typecheck-oracle `types`); the defaults that depend on other fields are conditional.ts.
 * Decode errors (a string where the type wants a number, …), on which the apiserver would refuse
 * the request before admission, are returned as problems; the value is then kept as given.
 */
import type { KubernetesVersion } from '../../base/releases';
import { applyConditional, hasConditional } from './conditional';
import { canonicalQuantity } from './quantity';
import { formatMicroTime, formatTime, parseDuration } from './time';
import { typedRelease, type TypeRef, type TypedRelease } from './data';
import { isAdmitted, kindOfObject, markAdmitted, type ApiserverObject, type GroupVersionKind } from './kinds';

type Obj = Record<string, unknown>;

/** Whether the release has `kind` built in (its objects are decoded into a Go type). */
export function isBuiltInKind(gvk: GroupVersionKind, release: KubernetesVersion): boolean {
  return typedRelease(release).kinds.has(`${gvk.group ?? ''}/${gvk.version}/${gvk.kind}`);
}

/**
 * `object` as the apiserver of `release` hands it to admission for a request on `gvk` (the
 * request's kind; the object's own apiVersion/kind when absent). `null`/`undefined` stay as they are.
 * `from`: the object `object` was made from by a patch, as this function returned it for the same
 * release and kind; the parts the patch left as they were (the same objects) are taken as they
 * are, since decoding a decoded object gives it back, and their problems are not looked for again.
 */
export function apiserverObject(
  object: unknown,
  release: KubernetesVersion,
  gvk: GroupVersionKind | undefined = kindOfObject(object),
  from?: unknown,
): ApiserverObject {
  if (isAdmitted(object)) return { object, typed: true, problems: [] };
  const data = typedRelease(release);
  const key = gvk ? `${gvk.group ?? ''}/${gvk.version}/${gvk.kind}` : '';
  const root = data.kinds.get(key);
  if (object === null || object === undefined || typeof object !== 'object' || Array.isArray(object)) return { object, typed: !!root, problems: [] };
  if (!root) {
    // a custom resource: the JSON as sent, but for its metadata, which the apiextensions-apiserver
    // coerces through ObjectMeta (schemaobjectmeta.Coerce: `labels: {}` is gone there too)
    const out = cloneJson(object) as Obj;
    if (isObject(out.metadata) && data.structs.has(OBJECT_META)) {
      const w = new Walker(data, key);
      out.metadata = w.struct(out.metadata, OBJECT_META, 'metadata');
      markAdmitted(out);
      return { object: out, typed: false, problems: w.problems };
    }
    markAdmitted(out);
    return { object: out, typed: false, problems: [] };
  }
  const w = new Walker(data, key);
  const decoded = w.struct(object as Obj, root, '', isAdmitted(from) && isObject(from) ? from : undefined);
  // the top level in Go order (apiVersion, kind, metadata, spec, status): the decoded fields follow the absent struct's otherwise
  const out: Obj = {};
  for (const f of data.structs.get(root) ?? []) if (f.name in decoded) out[f.name] = decoded[f.name];
  markAdmitted(out);
  return { object: out, typed: true, problems: w.problems };
}

const OBJECT_META = 'meta/v1.ObjectMeta';
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** One decode: the release's types, the kind's defaults, the problems found. */
class Walker {
  problems: string[] = [];
  /** The fields each written struct got from the data's defaults (conditional.ts reads a child's). */
  private readonly defaulted = new WeakMap<object, ReadonlySet<string>>();
  private readonly inner = (o: unknown): ReadonlySet<string> => (typeof o === 'object' && o !== null ? this.defaulted.get(o) : undefined) ?? NONE;
  private readonly kindDefaults: ReadonlyMap<string, readonly (readonly [string, unknown])[]> | undefined;
  /** This kind's zero forms and defaults tables by struct type (kept across decodes: memo()). */
  private readonly zeros: Map<string, Zero>;
  private readonly tables: Map<string, ReadonlyMap<string, unknown> | undefined>;
  constructor(
    private readonly data: TypedRelease,
    readonly kind: string,
  ) {
    this.kindDefaults = data.kindDefaults.get(kind);
    const m = memo(data, kind);
    this.zeros = m.zeros;
    this.tables = m.tables;
  }

  private problem(path: string, key: string | number | undefined, message: string): void {
    if (this.problems.length < 20) this.problems.push(`${join(path, key) || '(object)'}: ${message}`);
  }

  /**
   * A struct as ToUnstructured writes it: the absent struct's form (zero(): every field decoded
   * from nothing, defaulted, omitempty ones dropped; computed once) with the given fields decoded
   * over it, each defaulted where empty, then the conditional defaults. The given fields are
   * decoded in their order (the problems' order), then written in the zero form's order with the
   * fields it lacks after them: built once, not a copy of the zero form with fields deleted (a
   * deleted property makes an object a slow dictionary for every later read).
   */
  struct(given: Obj, id: string, path: string, from?: Obj): Obj {
    const index = this.data.fieldIndex.get(id);
    if (!index) return {};
    // a field a patch left as it was (apiserverObject's `from`), taken as it is; not under a struct
    // with conditional defaults, which read its fields' defaulted fields (inner) and change them in place
    const same = from && !hasConditional(id) ? from : undefined;
    const z = this.zeroOf(id, path);
    // the zero form's defaulted fields, copied only when a given field changes them
    let defaulted = z.d;
    let own = false;
    const defaults = this.defaultsOf(id);
    const keys: string[] = [];
    const values: unknown[] = [];
    for (const k in given) {
      const f = index.get(k);
      if (!f || !Object.hasOwn(given, k)) continue; // an unknown field: dropped (the apiserver warns)
      const v = given[k];
      let value = same && typeof v === 'object' && v !== null && same[k] === v ? v : this.value(v, f.type, path, k, from?.[k]);
      const d = defaults && emptyForDefault(value, f.type) ? defaults.get(k) : undefined;
      if (d !== undefined) {
        value = cloneJson(d);
        if (!defaulted?.has(k)) {
          defaulted = own ? (defaulted as Set<string>).add(k) : new Set(defaulted).add(k);
          own = true;
        }
      } else if (defaulted?.has(k)) {
        if (!own) defaulted = new Set(defaulted);
        own = true;
        (defaulted as Set<string>).delete(k);
      }
      keys.push(k);
      values.push((f.omitempty && isEmpty(value, f.type)) || (f.omitzero && isZero(value, f.type)) ? DROPPED : value);
    }
    let out: Obj = {};
    for (const k in z.o) {
      const i = keys.indexOf(k);
      if (i < 0) out[k] = cloneJson(z.o[k]);
      else if (values[i] !== DROPPED) out[k] = values[i];
    }
    for (let i = 0; i < keys.length; i++) if (values[i] !== DROPPED && !Object.hasOwn(z.o, keys[i]!)) out[keys[i]!] = values[i];
    if (hasConditional(id)) {
      applyConditional(id, out, defaulted ?? NONE, this.inner);
      const empty = (k: string) => {
        const f = index.get(k);
        return !!f && ((f.omitempty && isEmpty(out[k], f.type)) || (f.omitzero && isZero(out[k], f.type)));
      };
      if (Object.keys(out).some(empty)) {
        const kept: Obj = {};
        for (const k of Object.keys(out)) if (!empty(k)) kept[k] = out[k];
        out = kept;
      }
    }
    if (defaulted?.size) this.defaulted.set(out, defaulted);
    return out;
  }

  /** The kind's defaults table of a struct, by field. */
  private defaultsOf(id: string): ReadonlyMap<string, unknown> | undefined {
    if (this.tables.has(id)) return this.tables.get(id);
    const table = this.kindDefaults?.get(id) ?? this.data.defaults.get(id);
    const m = table && new Map(table);
    this.tables.set(id, m);
    return m;
  }

  /** An absent struct, as every field decoded from nothing, defaulted, then written (Go order); once per kind and type. */
  private zeroOf(id: string, path: string): Zero {
    const hit = this.zeros.get(id);
    if (hit) return hit;
    const fields = this.data.structs.get(id) ?? [];
    const defaults = this.defaultsOf(id);
    const all: Obj = {};
    let defaulted: Set<string> | undefined;
    for (const f of fields) {
      let value = this.value(undefined, f.type, path, f.name);
      const d = defaults ? defaults.get(f.name) : undefined;
      if (d !== undefined) {
        value = cloneJson(d);
        (defaulted ??= new Set()).add(f.name);
      }
      all[f.name] = value;
    }
    if (hasConditional(id)) applyConditional(id, all, defaulted ?? NONE, this.inner);
    const o: Obj = {};
    for (const f of fields) {
      const v = all[f.name];
      if (v === undefined || (f.omitempty && isEmpty(v, f.type)) || (f.omitzero && isZero(v, f.type))) continue;
      o[f.name] = v;
    }
    const z = { o, d: defaulted };
    this.zeros.set(id, z);
    return z;
  }

  /**
   * A JSON value decoded into `t` and written back (absent = the Go zero value); `key` under `path`
   * names it in problems; `from`: the decoded value it was patched from (struct's).
   */
  value(v: unknown, t: TypeRef, path: string, key?: string | number, from?: unknown): unknown {
    switch (t.k) {
      case 'string':
        if (v === undefined || v === null) return '';
        if (typeof v !== 'string') this.problem(path, key, `cannot decode ${typeName(v)} into a string`);
        return v;
      case 'bool':
        if (v === undefined || v === null) return false;
        if (typeof v !== 'boolean') this.problem(path, key, `cannot decode ${typeName(v)} into a bool`);
        return v;
      case 'int':
      case 'uint':
        if (v === undefined || v === null) return 0;
        if (typeof v !== 'number' || !Number.isInteger(v) || (t.k === 'uint' && v < 0))
          this.problem(path, key, `cannot decode ${JSON.stringify(v)} into an integer`);
        return v;
      case 'float':
        if (v === undefined || v === null) return 0;
        if (typeof v !== 'number') this.problem(path, key, `cannot decode ${typeName(v)} into a number`);
        return v;
      case 'ptr':
        return v === undefined || v === null ? null : this.value(v, t.of, path, key, from);
      case 'slice': {
        if (v === undefined || v === null) return null;
        if (!Array.isArray(v)) {
          this.problem(path, key, `cannot decode ${typeName(v)} into a list`);
          return cloneJson(v);
        }
        const here = join(path, key);
        const out: unknown[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) out[i] = this.value(v[i], t.of, here, i);
        return out;
      }
      case 'map': {
        if (v === undefined || v === null) return null;
        if (typeof v !== 'object' || Array.isArray(v)) {
          this.problem(path, key, `cannot decode ${typeName(v)} into a map`);
          return cloneJson(v);
        }
        const here = join(path, key);
        const out: Obj = {};
        const quantities = t.of.k === 'special' && t.of.s === '@quantity' && t.resourceList;
        for (const k in v as Obj) {
          if (!Object.hasOwn(v, k)) continue;
          const x = this.value((v as Obj)[k], t.of, here, JSON.stringify(k));
          // SetDefaults_ResourceList: every resource quantity rounded up to milli
          out[k] = quantities ? roundUpMilli(x as string) : x;
        }
        return out;
      }
      case 'struct':
        if (v === undefined || v === null) return this.zero(t.id, path, key);
        if (typeof v !== 'object' || Array.isArray(v)) {
          this.problem(path, key, `cannot decode ${typeName(v)} into an object`);
          return this.zero(t.id, path, key);
        }
        return this.struct(v as Obj, t.id, join(path, key), isObject(from) ? from : undefined);
      case 'special':
        return this.special(v, t.s, path, key);
    }
  }

  /** An absent struct (a copy of zeroOf's, its defaulted fields remembered for conditional.ts). */
  private zero(id: string, path: string, key: string | number | undefined): Obj {
    const z = this.zeroOf(id, join(path, key));
    const out = cloneJson(z.o) as Obj;
    if (z.d) this.defaulted.set(out, z.d);
    return out;
  }

  private special(v: unknown, s: string, path: string, key: string | number | undefined): unknown {
    switch (s) {
      case '@any':
      case '@raw':
      case '@fieldsv1':
      case '@json':
        return v === undefined ? null : cloneJson(v);
      case '@bytes':
        if (v === undefined || v === null) return null;
        // encoding/base64's StdEncoding: padded to whole quanta (newlines ignored), '=' only at the end
        if (typeof v !== 'string' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v.replace(/[\r\n]/g, '')))
          this.problem(path, key, 'illegal base64 data');
        return typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v;
      case '@quantity': {
        if (v === undefined || v === null) return '0';
        if (typeof v !== 'string' && typeof v !== 'number') {
          this.problem(path, key, `cannot decode ${typeName(v)} into a quantity`);
          return v;
        }
        const q = canonicalQuantity(String(v));
        if (!q.ok) this.problem(path, key, q.error);
        return q.ok ? q.value : v;
      }
      case '@intstr':
        if (v === undefined || v === null) return 0;
        if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v)))
          this.problem(path, key, `cannot decode ${JSON.stringify(v)} into an int or a string`);
        return v;
      case '@time':
      case '@microtime': {
        if (v === undefined || v === null) return null;
        const r = typeof v === 'string' ? (s === '@time' ? formatTime(v) : formatMicroTime(v)) : undefined;
        if (r === undefined) this.problem(path, key, `cannot parse ${JSON.stringify(v)} as a time (RFC 3339)`);
        return r ?? v;
      }
      case '@duration': {
        const r = typeof v === 'string' ? parseDuration(v) : undefined;
        if (r === undefined) this.problem(path, key, `cannot parse ${JSON.stringify(v)} as a duration`);
        return r ?? v;
      }
    }
    return v;
  }
}

const NONE: ReadonlySet<string> = new Set();
/** A given field that is written as absent (omitempty and empty). */
const DROPPED = Symbol('dropped');

/** The written form of an absent struct, and the fields its defaults gave (Walker.zeroOf). */
interface Zero {
  o: Obj;
  d: ReadonlySet<string> | undefined;
}

/** Per release data and kind, by struct type: zero forms and defaults tables as maps (a kind's own defaults differ). */
const MEMO = new WeakMap<TypedRelease, Map<string, { zeros: Map<string, Zero>; tables: Map<string, ReadonlyMap<string, unknown> | undefined> }>>();
function memo(data: TypedRelease, kind: string) {
  let byKind = MEMO.get(data);
  if (!byKind) MEMO.set(data, (byKind = new Map()));
  let m = byKind.get(kind);
  if (!m) byKind.set(kind, (m = { zeros: new Map(), tables: new Map() }));
  return m;
}

const join = (path: string, key: string | number | undefined): string =>
  key === undefined ? path : typeof key === 'number' || key.startsWith('"') ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** A copy of a JSON value (loops, no JSON round trip: the decoder copies every object's defaults). */
function cloneJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i]);
    return out;
  }
  const out: Obj = {};
  for (const k in v as Obj) out[k] = cloneJson((v as Obj)[k]);
  return out;
}

/** SetDefaults_ResourceList: a canonical quantity rounded up (away from zero) to a multiple of 1m. */
function roundUpMilli(q: string): string {
  const m = /^(-?)(\d+)n$/.exec(q) ?? /^(-?)(\d+)u$/.exec(q);
  if (!m) return q;
  const unit = q.endsWith('n') ? 1_000_000n : 1_000n;
  const n = BigInt(m[2]!);
  const milli = n / unit + (n % unit === 0n ? 0n : 1n);
  const r = canonicalQuantity(`${m[1]}${milli}m`);
  return r.ok ? r.value : q;
}

/** encoding/json's (and the converter's) isEmptyValue on the written value. */
function isEmpty(v: unknown, t: TypeRef): boolean {
  switch (t.k) {
    case 'string':
      return v === '';
    case 'bool':
      return v === false;
    case 'int':
    case 'uint':
    case 'float':
      return v === 0;
    case 'ptr':
      return v === null;
    case 'slice':
    case 'map':
      return v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as Obj).length === 0);
    case 'special':
      return t.s === '@bytes' ? v === null || v === '' : t.s === '@any' ? v === null : false;
    default:
      return false;
  }
}

/** Whether a defaulter fills the field: nil (a pointer, a struct's zero), a zero scalar, an empty list or map (`len(x) == 0`). */
const emptyForDefault = (v: unknown, t: TypeRef): boolean => (t.k === 'slice' || t.k === 'map' ? isEmpty(v, t) : isZero(v, t));

/** reflect.Value.IsZero (and Time.IsZero) on the written value: the Go zero value. */
function isZero(v: unknown, t: TypeRef): boolean {
  switch (t.k) {
    case 'slice':
    case 'map':
    case 'ptr':
      return v === null;
    case 'struct':
      return typeof v === 'object' && v !== null && Object.values(v as Obj).every((x) => x === null || x === '' || x === 0 || x === false);
    case 'special':
      return t.s === '@time' || t.s === '@microtime' || t.s === '@any' || t.s === '@bytes' ? v === null : false;
    default:
      return isEmpty(v, t);
  }
}

/** A struct's shape as text (fields, their json names, types and tags, down to the scalars; struct names without their package), per release. */
const shapes = new Map<TypedRelease, Map<string, string>>();

function shapeOf(t: TypeRef, r: TypedRelease, open: Set<string>): string {
  switch (t.k) {
    case 'ptr':
    case 'slice':
    case 'map':
      return `${t.k}(${shapeOf(t.of, r, open)})`;
    case 'struct': {
      const name = t.id.slice(t.id.lastIndexOf('.') + 1);
      let memo = shapes.get(r);
      if (!memo) shapes.set(r, (memo = new Map()));
      const known = memo.get(t.id);
      if (known !== undefined) return known;
      if (open.has(t.id)) return `@${name}`; // a type within itself (JSONSchemaProps): named, not unrolled
      open.add(t.id);
      const fields = (r.structs.get(t.id) ?? []).map((f) => `${f.name}:${shapeOf(f.type, r, open)}${f.omitempty ? '?' : ''}${f.omitzero ? '0' : ''}`);
      open.delete(t.id);
      const s = `${name}{${fields.join(',')}}`;
      // a shape that named an enclosing type depends on the path it was reached by: not kept
      if (!s.includes('@')) memo.set(t.id, s);
      return s;
    }
    case 'special':
      return t.s;
    default:
      return t.k;
  }
}

/**
 * Whether two built-in kinds of a release have the same Go shape: the same fields, json names,
 * types and tags all the way down (struct names compared without their package). Where they do,
 * the apiserver's conversion from one to the other moves nothing but the apiVersion (the
 * generated conversions copy field by field); where they do not, it moves fields
 * (autoscaling/v1's targetCPUUtilizationPercentage into v2's metrics). False when either is not
 * a built-in kind of the release.
 */
export function sameShape(a: GroupVersionKind, b: GroupVersionKind, release: KubernetesVersion): boolean {
  const r = typedRelease(release);
  const ta = r.kinds.get(`${a.group ?? ''}/${a.version}/${a.kind}`);
  const tb = r.kinds.get(`${b.group ?? ''}/${b.version}/${b.kind}`);
  if (!ta || !tb) return false;
  return shapeOf({ k: 'struct', id: ta }, r, new Set()) === shapeOf({ k: 'struct', id: tb }, r, new Set());
}
