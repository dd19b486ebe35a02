/**
 * The workspace as Pkl: one module per object and `manifests.pkl`, which renders them all as a
 * Kubernetes List (`pkl eval -f yaml manifests.pkl | kubectl apply -f -`).
 *
 * - Typed (default): each module amends pkl-k8s's template of its kind
 *   (`package://pkg.pkl-lang.org/pkl-k8s/k8s@1.5.0#/api/<group>/<version>/<Kind>.pkl`), in its
 *   idiom: `metadata { … }`, `webhooks { new { … } }`, `labels { ["app"] = "x" }`, only the
 *   fields that are set. The template fixes apiVersion and kind; a field the kind does not have
 *   cannot be written there and refuses the export.
 * - Self-contained: no package, plain Pkl objects (`new Listing`, `new Mapping`), for teams
 *   without pkl-k8s; every field is written as it is. This form is what the tests evaluate with
 *   the real `pkl`, offline (pkl-k8s is on no package registry).
 * Comments sit on the fields they sat on in the YAML.
 */
import { isObject, type Obj } from '../../base/json';
import { MAP_FIELD_NAMES } from '../../base/path-format';
import type { PathSegment } from '../../base/path';
import { type CodeDoc, type CodeExport, type CodeFile, codeNames, commentsAt, objectLabel, type Problems, problemsOf, setFields } from './common';
import { type FieldShape, fieldShape, objectShape, type SchemaDefinitions } from './schema';

export const PKL_K8S_PACKAGE = 'package://pkg.pkl-lang.org/pkl-k8s/k8s@1.5.0';

export interface PklOptions {
  /** Plain Pkl objects, no pkl-k8s. */
  selfContained: boolean;
  /** The target release's schema (src/cel schemaAsset): which fields are maps, lists and structs. */
  schemas: SchemaDefinitions;
}

const KEYWORDS = new Set(
  'abstract amends as case class const delete else extends external false fixed for function hidden if import in is let local module new nothing null open out outer override protected read record super switch this throw trace true typealias unknown vararg when'.split(
    ' ',
  ),
);

/** A property name: bare when it is an identifier, else in backticks (Pkl's quoted identifiers). */
const propertyName = (k: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) && !KEYWORDS.has(k) ? k : `\`${k}\``);

const escapePkl = (s: string): string =>
  s.replace(/[\\"\u0000-\u001f\u007f]/g, (c) =>
    c === '\\' ? '\\\\' : c === '"' ? '\\"' : c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : `\\u{${c.charCodeAt(0).toString(16)}}`,
  );

/** A string literal: `"…"`, or a `"""` block for text of several lines (CEL), which keeps them as written. */
function stringLiteral(s: string, indent: string): string {
  if (!s.includes('\n') || s.includes('\r')) return `"${escapePkl(s)}"`;
  const inner = `${indent}  `;
  const lines = s.split('\n').map((l) => escapePkl(l).replace(/\\"/g, '"').replace(/"""/g, '""\\"'));
  return `"""\n${lines.map((l) => (l ? inner + l : '')).join('\n')}\n${inner}"""`;
}

interface Writer {
  doc: CodeDoc;
  typed: boolean;
  schemas: SchemaDefinitions;
  problems: Problems;
}

const comments = (w: Writer, path: readonly PathSegment[], indent: string): string =>
  commentsAt(w.doc, path)
    .map((c) => `${indent}//${c ? ` ${c}` : ''}\n`)
    .join('');

/** Whether a value at `path` is a map (Mapping): its schema says so, or, untyped, it is labels-like or has keys Pkl's objects cannot take as written. */
function isMap(shape: FieldShape | undefined, key: PathSegment | undefined, v: Obj): boolean {
  if (shape) return shape.kind === 'map';
  return (typeof key === 'string' && MAP_FIELD_NAMES.has(key)) || Object.keys(v).some((k) => k.includes('`'));
}

const PKL_TYPES = { string: 'String', boolean: 'Boolean', integer: 'Int', number: 'Float' } as const;
const PKL_CONTAINERS = { map: 'a Mapping', list: 'a Listing', struct: 'an object' } as const;

/**
 * Why pkl-k8s's typed template cannot hold a scalar here, or undefined. The apiserver refuses
 * such a value as well (a YAML 1.1 `y` label read as true cannot go in a string field), so there
 * is no text to write in its place: the export is refused, as Rust's is.
 */
function pklTypeMismatch(v: unknown, shape: FieldShape | undefined): string | undefined {
  if (!shape || shape.kind === 'any' || v === null || v === undefined) return undefined;
  const value = typeof v === 'string' ? `the string ${JSON.stringify(v)}` : `the ${typeof v} ${String(v)}`;
  if (shape.kind !== 'scalar') return `pkl-k8s's type here is ${PKL_CONTAINERS[shape.kind]}, and the value is ${value}`;
  if (typeof v === (shape.type === 'integer' ? 'number' : shape.type)) return undefined;
  const type = shape.format === 'int32' ? 'Int32' : PKL_TYPES[shape.type];
  const quote =
    typeof v === 'boolean' && shape.type === 'string' ? ': quote it in the YAML if it is text (y, yes, on, off … unquoted are booleans to Kubernetes)' : '';
  return `pkl-k8s's type here is ${type}, and the value is ${value}${quote}`;
}

function scalar(w: Writer, v: unknown, shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  const mismatch = w.typed ? pklTypeMismatch(v, shape) : undefined;
  if (mismatch) w.problems.add(path, mismatch);
  if (typeof v === 'string') return stringLiteral(v, indent);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) w.problems.add(path, `${v} is not a number Pkl can write`);
    if (shape?.kind === 'scalar' && shape.format === 'int32' && (v < -(2 ** 31) || v >= 2 ** 31 || !Number.isInteger(v)))
      w.problems.add(path, `${v} is not an Int32, which this field is`);
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) w.problems.add(path, `${v} is beyond the integers read exactly here (2^53)`);
    return Number.isInteger(v) ? String(v) : String(v).includes('.') || String(v).includes('e') ? String(v) : `${v}.0`;
  }
  return String(v);
}

/** The value after `=` (or the element of a Listing). */
function expression(w: Writer, v: unknown, shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  if (Array.isArray(v)) return `${w.typed ? 'new' : 'new Listing'} ${listBody(w, v, shape, path, indent)}`;
  if (isObject(v)) {
    const map = isMap(shape, path.at(-1), v);
    return `${w.typed ? 'new' : map ? 'new Mapping' : 'new Dynamic'} ${map ? mapBody(w, v, shape, path, indent) : objectBody(w, v, shape, path, indent)}`;
  }
  return scalar(w, v, shape, path, indent);
}

function listBody(w: Writer, v: unknown[], shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  if (!v.length) return '{}';
  const inner = `${indent}  `;
  const items = shape?.kind === 'list' ? shape.items : undefined;
  return `{\n${v.map((x, i) => `${comments(w, [...path, i], inner)}${inner}${element(w, x, items, [...path, i], inner)}\n`).join('')}${indent}}`;
}

/** A Listing's element: a struct as `new { … }`, in either form (the Listing's type says what it is). */
const element = (w: Writer, v: unknown, shape: FieldShape | undefined, path: PathSegment[], indent: string): string =>
  isObject(v) && !isMap(shape, undefined, v) ? `new ${objectBody(w, v, shape, path, indent)}` : expression(w, v, shape, path, indent);

function mapBody(w: Writer, v: Obj, shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  const fields = setFields(v);
  if (!fields.length) return '{}';
  const inner = `${indent}  `;
  const values = shape?.kind === 'map' ? shape.values : undefined;
  return `{\n${fields.map(([k, x]) => `${comments(w, [...path, k], inner)}${inner}["${escapePkl(k)}"] = ${expression(w, x, values, [...path, k], inner)}\n`).join('')}${indent}}`;
}

function objectBody(w: Writer, v: Obj, shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  const lines = properties(w, v, shape, path, `${indent}  `);
  return lines ? `{\n${lines}${indent}}` : '{}';
}

/** `name = value` / `name { … }` for each set field of a struct (the module's body at the top). */
function properties(w: Writer, v: Obj, shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  return setFields(v)
    .filter(([k]) => !(w.typed && path.length === 0 && (k === 'apiVersion' || k === 'kind')))
    .map(([k, x]) => {
      const p = [...path, k];
      const field = shape?.kind === 'struct' ? fieldShape(w.schemas, shape, k) : undefined;
      if (w.typed && !field)
        w.problems.add(
          p,
          `${k} is not a field of ${shape?.kind === 'struct' ? shape.definition.split('.').pop() : 'this value'}: pkl-k8s's template cannot hold it`,
        );
      const name = propertyName(k);
      // typed: amend the template's (possibly null) value in place; self-contained: objects amend a new Dynamic, the rest are assigned
      const line =
        w.typed && (Array.isArray(x) || isObject(x))
          ? `${name} ${Array.isArray(x) ? listBody(w, x, field, p, indent) : isMap(field, k, x as Obj) ? mapBody(w, x as Obj, field, p, indent) : objectBody(w, x as Obj, field, p, indent)}`
          : isObject(x) && !isMap(field, k, x)
            ? `${name} ${objectBody(w, x, field, p, indent)}`
            : `${name} = ${expression(w, x, field, p, indent)}`;
      return `${comments(w, p, indent)}${indent}${line}\n`;
    })
    .join('');
}

/** The pkl-k8s template of an apiVersion and kind: `api/admissionregistration/v1/ValidatingWebhookConfiguration.pkl`. */
export function pklK8sTemplate(object: Obj): string {
  const [group, version] = String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/') : ['core', String(object.apiVersion)];
  return `${PKL_K8S_PACKAGE}#/api/${group!.split('.')[0]}/${version}/${String(object.kind)}.pkl`;
}

export function exportPkl(docs: readonly CodeDoc[], options: PklOptions): CodeExport {
  const names = codeNames(docs.map((d) => d.object));
  const files: CodeFile[] = [];
  const problems = docs.flatMap((doc, i) => {
    const problems = problemsOf(doc.object);
    const shape = objectShape(options.schemas, doc.object);
    const typed = !options.selfContained;
    if (typed && !shape)
      problems.add([], `${objectLabel(doc.object)} is not a kind of this release's API: pkl-k8s has no template for it (export self-contained)`);
    const w: Writer = { doc, typed, schemas: options.schemas, problems };
    const head = typed ? `amends "${pklK8sTemplate(doc.object)}"\n\n` : '';
    files.push({ name: `${names[i]}.pkl`, text: `${comments(w, [], '')}// ${objectLabel(doc.object)}\n${head}${properties(w, doc.object, shape, [], '')}` });
    return problems.list;
  });
  if (problems.length) return { files: [], problems };
  const manifests = `// Renders every object as a Kubernetes List: pkl eval -f yaml manifests.pkl\napiVersion = "v1"\nkind = "List"\nitems = List(\n${names.map((n) => `  import("${n}.pkl"),\n`).join('')})\n`;
  return { files: [...files, { name: 'manifests.pkl', text: manifests }], problems: [] };
}
