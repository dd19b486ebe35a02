/**
 * The workspace as Rust, `manifests.rs`: one function per object returning its k8s-openapi
 * value (`k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration { … }`),
 * written from the target release's schema: required fields as they are, the others in
 * `Some(…)`, lists as `vec![…]`, maps as `BTreeMap`s, `caBundle` as a `ByteString` of its
 * bytes, unset fields left to `..Default::default()`. `manifests_json()` serializes them all.
 * A field k8s-openapi's types cannot hold as written (an unknown field, an Int32 out of range,
 * a caBundle that is not base64, a server-set timestamp) refuses the export with its path.
 */
import { isObject, type Obj } from '../../base/json';
import { fromBase64 } from '../../k8s/ca-bundle';
import type { PathSegment } from '../../base/path';
import { type CodeDoc, type CodeExport, codeNames, commentsAt, objectLabel, type Problems, problemsOf, setFields } from './common';
import { type FieldShape, fieldShape, objectShape, type SchemaDefinitions } from './schema';

/** k8s-openapi 0.29's newest feature and the oldest release it covers (its features v1_33 … v1_37). */
const K8S_OPENAPI = { version: '0.29', oldest: 33, newest: 37 };

/** The k8s-openapi feature for a target release: `v1_37`; releases before 1.33 take the oldest it has (admissionregistration v1 is the same there). */
export function k8sOpenapiFeature(kubernetesVersion: string): string {
  const minor = Number(kubernetesVersion.split('.')[1]);
  return `v1_${Math.min(K8S_OPENAPI.newest, Math.max(K8S_OPENAPI.oldest, minor || K8S_OPENAPI.newest))}`;
}

const WEBHOOKS_AND_VAP = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'];
const MAP = ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'];
/**
 * The admissionregistration kinds k8s-openapi 0.29 has per feature (read from its src/v1_3x/api/admissionregistration):
 * it is generated from the OpenAPI a release serves by default, so a version that release does not serve (v1beta1
 * ValidatingAdmissionPolicy from 1.34) has no type, although the apiserver's schema still defines it.
 */
const ADMISSION_TYPES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  v1_33: { v1: WEBHOOKS_AND_VAP, v1beta1: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'], v1alpha1: MAP },
  v1_34: { v1: WEBHOOKS_AND_VAP, v1beta1: MAP, v1alpha1: MAP },
  v1_35: { v1: WEBHOOKS_AND_VAP, v1beta1: MAP, v1alpha1: MAP },
  v1_36: { v1: [...WEBHOOKS_AND_VAP, ...MAP], v1beta1: MAP, v1alpha1: MAP },
  v1_37: { v1: [...WEBHOOKS_AND_VAP, ...MAP], v1beta1: MAP, v1alpha1: MAP },
};

/** Why k8s-openapi has no type for an object of admissionregistration.k8s.io, or undefined when it has one. */
function missingAdmissionType(object: Obj, feature: string): string | undefined {
  const [group, version] = String(object.apiVersion).split('/');
  if (group !== 'admissionregistration.k8s.io' || !version) return undefined;
  if (ADMISSION_TYPES[feature]?.[version]?.includes(String(object.kind))) return undefined;
  return `k8s-openapi ${K8S_OPENAPI.version} (feature ${feature}) has no ${version} ${String(object.kind)}: the release does not serve that version by default`;
}

const RUST_KEYWORDS = new Set(['type', 'continue', 'ref', 'enum', 'match', 'struct', 'override', 'use', 'where', 'loop', 'move', 'mod', 'static']);

/** k8s-openapi's field name: snake_case, a trailing `_` on a Rust keyword (`type_`). */
export const rustField = (k: string): string => {
  const snake = k
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
  return RUST_KEYWORDS.has(snake) ? `${snake}_` : snake;
};

/** `io.k8s.api.admissionregistration.v1.ValidatingWebhook` → `k8s_openapi::api::admissionregistration::v1::ValidatingWebhook`. */
export const rustType = (definition: string): string =>
  `k8s_openapi::${definition
    .replace(/^io\.k8s\./, '')
    .split('.')
    .join('::')}`;

const rustString = (s: string): string => `${JSON.stringify(s).replace(/\\u([0-9a-fA-F]{4})/g, '\\u{$1}')}.into()`;

function byteString(v: unknown, path: PathSegment[], problems: Problems): string {
  const bytes = typeof v === 'string' ? fromBase64(v) : undefined;
  if (!bytes) {
    problems.add(path, 'not base64: a ByteString holds the decoded bytes, and these cannot be decoded');
    return 'Default::default()';
  }
  if (btoa(String.fromCharCode(...bytes)) !== String(v).replace(/\s+/g, ''))
    problems.add(path, 'not canonical base64: its bytes would serialize as another text');
  const text = [...bytes]
    .map((b) =>
      b === 0x22 ? '\\"' : b === 0x5c ? '\\\\' : b === 0x0a ? '\\n' : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
    )
    .join('');
  return `k8s_openapi::ByteString(b"${text}".to_vec())`;
}

/** What writing one object needs throughout: the release's schema, the problems found, the document (its comments). */
interface Writer {
  schemas: SchemaDefinitions;
  problems: Problems;
  doc: CodeDoc;
}

function value(w: Writer, v: unknown, shape: FieldShape | undefined, path: PathSegment[], indent: string): string {
  const { problems } = w;
  const inner = `${indent}    `;
  if (!shape || shape.kind === 'any') {
    problems.add(path, 'k8s-openapi has no type for this field');
    return 'Default::default()';
  }
  if (shape.kind === 'list') {
    if (!Array.isArray(v)) return mismatch(problems, path, 'a list');
    return v.length ? `vec![\n${v.map((x, i) => `${inner}${value(w, x, shape.items, [...path, i], inner)},\n`).join('')}${indent}]` : 'vec![]';
  }
  if (shape.kind === 'map') {
    if (!isObject(v)) return mismatch(problems, path, 'a map');
    const entries = setFields(v).map(([k, x]) => `${inner}(${rustString(k)}, ${value(w, x, shape.values, [...path, k], inner)}),\n`);
    return entries.length ? `std::collections::BTreeMap::from([\n${entries.join('')}${indent}])` : 'std::collections::BTreeMap::new()';
  }
  if (shape.kind === 'struct') {
    if (!isObject(v)) return mismatch(problems, path, 'an object');
    if (shape.definition === 'io.k8s.apimachinery.pkg.apis.meta.v1.Time' || shape.definition.endsWith('.MicroTime'))
      problems.add(path, 'a server-set time: export with server fields stripped');
    return struct(w, v, shape, path, indent);
  }
  if (shape.format === 'byte') return byteString(v, path, problems);
  if (shape.format === 'date-time') {
    problems.add(path, 'a server-set time: export with server fields stripped');
    return 'Default::default()';
  }
  switch (shape.type) {
    case 'string':
      return typeof v === 'string' ? rustString(v) : mismatch(problems, path, 'a string');
    case 'boolean':
      return typeof v === 'boolean' ? String(v) : mismatch(problems, path, 'true or false');
    case 'integer': {
      const [lo, hi] = shape.format === 'int32' ? [-(2 ** 31), 2 ** 31 - 1] : [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) return mismatch(problems, path, `an ${shape.format === 'int32' ? 'i32' : 'i64'}`);
      return String(v);
    }
    default:
      return typeof v === 'number' ? (Number.isInteger(v) ? `${v}.0` : String(v)) : mismatch(problems, path, 'a number');
  }
}

function mismatch(problems: Problems, path: PathSegment[], expected: string): string {
  problems.add(path, `k8s-openapi's type here is ${expected}, and the value is not`);
  return 'Default::default()';
}

function struct(w: Writer, v: Obj, shape: Extract<FieldShape, { kind: 'struct' }>, path: PathSegment[], indent: string): string {
  const { schemas, problems, doc } = w;
  const inner = `${indent}    `;
  const top = path.length === 0;
  const fields = setFields(v)
    .filter(([k]) => !(top && (k === 'apiVersion' || k === 'kind'))) // the Resource trait's constants: serialized from the type
    .map(([k, x]) => {
      const p = [...path, k];
      const field = fieldShape(schemas, shape, k);
      if (!field) {
        problems.add(p, `${k} is not a field of ${shape.definition.split('.').pop()}: k8s-openapi's struct cannot hold it`);
        return '';
      }
      // k8s-openapi: required fields (and a resource's metadata) are plain, the rest Option
      const plain = shape.required.includes(k) || (top && k === 'metadata');
      const code = value(w, x, field, p, inner);
      const comments = commentsAt(doc, p).map((c) => `${inner}//${c ? ` ${c}` : ''}\n`);
      return `${comments.join('')}${inner}${rustField(k)}: ${plain ? code : `Some(${code})`},\n`;
    });
  const all = shape.required.every((k) => Object.hasOwn(v, k) && v[k] !== null);
  return `${rustType(shape.definition)} {\n${fields.join('')}${all && fields.length === Object.keys(shape.properties).length ? '' : `${inner}..Default::default()\n`}${indent}}`;
}

export interface RustOptions {
  kubernetesVersion: string;
  schemas: SchemaDefinitions;
}

export function exportRust(docs: readonly CodeDoc[], options: RustOptions): CodeExport {
  const names = codeNames(docs.map((d) => d.object)).map((n) => n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());
  const feature = k8sOpenapiFeature(options.kubernetesVersion);
  const fns: string[] = [];
  const problems = docs.flatMap((doc, i) => {
    const problems = problemsOf(doc.object);
    const shape = objectShape(options.schemas, doc.object);
    const missing = missingAdmissionType(doc.object, feature);
    if (shape?.kind !== 'struct' || missing) {
      problems.add([], missing ?? `${objectLabel(doc.object)} is not a kind of this release's API: k8s-openapi has no type for it`);
      return problems.list;
    }
    const comments = commentsAt(doc, []).map((c) => `//${c ? ` ${c}` : ''}\n`);
    fns.push(
      `${comments.join('')}/// ${objectLabel(doc.object)}\npub fn ${names[i]}() -> ${rustType(shape.definition)} {\n    ${struct({ schemas: options.schemas, problems, doc }, doc.object, shape, [], '    ')}\n}\n`,
    );
    return problems.list;
  });
  if (problems.length) return { files: [], problems };
  const json = names.map((n) => `        serde_json::to_value(${n}()).expect("a k8s-openapi value serializes"),\n`).join('');
  const text = `//! Generated by Admission Workbench for Kubernetes ${options.kubernetesVersion}.
//! Build against k8s-openapi ${K8S_OPENAPI.version} with the \`${feature}\` feature and serde_json:
//!     k8s-openapi = { version = "${K8S_OPENAPI.version}", features = ["${feature}"] }
//!     serde_json = "1"
#![allow(clippy::all)]

${fns.join('\n')}
/// Every object, as the JSON the apiserver reads.
pub fn manifests_json() -> Vec<serde_json::Value> {
    vec![
${json}    ]
}
`;
  return { files: [{ name: 'manifests.rs', text }], problems: [] };
}
