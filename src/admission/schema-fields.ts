/**
 * The typed fields of `object`/`oldObject` at a path, for the CEL editor's completion and hover:
 * the schemas the type checker uses (typesToCheck: the kinds a policy's matchConstraints
 * resolve to; built-in kinds from the release's schema asset, custom resources from the
 * workspace's CustomResourceDefinitions), walked along a field path. Several matched kinds are
 * merged, each field saying which kinds have it. `undefined` when no schema is known (no
 * resolvable kind, a CRD without schema): the editor then completes as before.
 */
import { schemaAsset, type SchemaAsset } from '../cel';
import { isObject, list, obj, str } from '../base/json';
import { parsePath } from '../base/path';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from '../base/releases';
import { crdSchemas, typesToCheck, type CheckedKind, type TypeCheckOptions } from './typecheck';

/** A path segment for a list's element or a map's value (`containers[0]`, `labels['app']`). */
export const ELEMENT = '[]';
/** A path segment for a list's element only: a one-variable macro's variable (over a map it is the key, a string). */
export const LIST_ELEMENT = '[*]';

/** One kind's schema: `definitions` resolves its `$ref`s ("#/definitions/NAME"). */
export interface SchemaRoot {
  /** `apps/v1 Deployment` */
  kind: string;
  schema: unknown;
  definitions: Readonly<Record<string, unknown>>;
}

export interface SchemaField {
  name: string;
  /** `integer`, `[]Container`, `map[string]string` (types of several kinds joined by ` | `). */
  type: string;
  /** The kinds that have the field. */
  kinds: string[];
}

export interface SchemaFieldsAt {
  /** The kinds whose schema reaches the path. */
  kinds: string[];
  /** The type of the path itself, per kind. */
  types: { kind: string; type: string }[];
  /** The fields of the value at the path, by name. */
  fields: SchemaField[];
}

const kindLabel = (k: CheckedKind): string => `${k.group ? `${k.group}/` : ''}${k.version} ${k.kind}`;
const refName = (ref: string): string => ref.replace(/^#\/definitions\//, '');

/** Follows `$ref` (and a lone `allOf: [{$ref}]`) to the schema it names. */
function resolve(s: unknown, defs: SchemaRoot['definitions']): Record<string, unknown> | undefined {
  for (let i = 0; i < 64 && isObject(s); i++) {
    const ref = str(s.$ref) || (Array.isArray(s.allOf) && s.allOf.length === 1 ? str(obj(s.allOf[0]).$ref) : '');
    if (!ref) return s;
    s = defs[refName(ref)];
  }
  return isObject(s) ? s : undefined;
}

const isIntOrString = (s: Record<string, unknown>): boolean => s.format === 'int-or-string' || s['x-kubernetes-int-or-string'] === true;
const STRING_FORMATS: Record<string, string> = { byte: 'bytes', duration: 'duration', date: 'timestamp', 'date-time': 'timestamp' };

/**
 * Whether the apiserver gives the schema a CEL type (k8s.io/apiserver pkg/cel/common SchemaDeclType
 * is not nil): a schema without a type (Quantity), a list of such or a map of such has none, and
 * a field of that schema is dropped from its object (`c.resources.limits` is an undefined field).
 */
export function hasDeclType(s: unknown, defs: SchemaRoot['definitions']): boolean {
  const r = resolve(s, defs);
  if (!r) return false;
  if (isIntOrString(r)) return true;
  switch (r.type) {
    case 'array':
      return r.items !== undefined && hasDeclType(r.items, defs);
    case 'object':
      return isObject(r.additionalProperties) ? hasDeclType(r.additionalProperties, defs) : true;
    case 'string':
    case 'boolean':
    case 'number':
    case 'integer':
      return true;
    default:
      return false;
  }
}

/** The schema's type as the editor shows it: `integer`, `[]Container`, `map[string]string`, `ObjectMeta`, `timestamp`. */
export function schemaTypeName(s: unknown, defs: SchemaRoot['definitions']): string {
  if (!isObject(s)) return 'any';
  const ref = str(s.$ref) || (Array.isArray(s.allOf) && s.allOf.length === 1 ? str(obj(s.allOf[0]).$ref) : '');
  if (ref) {
    const target = resolve(s, defs);
    const short = refName(ref).split('.').pop()!;
    // objects and types without a plain type (Quantity, IntOrString) by name, others by their type
    if (!target || target.properties || !target.type || (target.type === 'object' && !target.additionalProperties)) return short;
    return schemaTypeName(target, defs);
  }
  if (isIntOrString(s)) return 'int-or-string';
  switch (s.type) {
    case 'array':
      return `[]${schemaTypeName(s.items, defs)}`;
    case 'object':
      if (!s.properties && isObject(s.additionalProperties)) return `map[string]${schemaTypeName(s.additionalProperties, defs)}`;
      return 'object';
    case 'string':
      return STRING_FORMATS[str(s.format)] ?? 'string';
    case undefined:
      return s.properties ? 'object' : 'any';
    default:
      return str(s.type) || 'any';
  }
}

const STRING = { type: 'string' };
const typeIs = (s: unknown, t: string, defs: SchemaRoot['definitions']): boolean => resolve(s, defs)?.type === t;

/**
 * A resource's root (and an embedded resource): `kind`, `apiVersion` and `metadata` with `name` and
 * `generateName` are always there; unless the schema has them all, metadata is only those two
 * (k8s.io/apiserver pkg/cel/common WithTypeAndObjectMeta: a CRD's object.metadata.labels is undefined).
 */
function withTypeAndObjectMeta(s: Record<string, unknown>, defs: SchemaRoot['definitions']): Record<string, unknown> {
  const props = obj(s.properties);
  const meta = resolve(props.metadata, defs);
  const metaProps = obj(meta?.properties);
  if (
    typeIs(props.kind, 'string', defs) &&
    typeIs(props.apiVersion, 'string', defs) &&
    meta?.type === 'object' &&
    typeIs(metaProps.name, 'string', defs) &&
    typeIs(metaProps.generateName, 'string', defs)
  )
    return s;
  return { ...s, properties: { ...props, kind: STRING, apiVersion: STRING, metadata: { type: 'object', properties: { name: STRING, generateName: STRING } } } };
}

/** The object schema of a node: references followed, a resource root's metadata as the apiserver sees it. */
function nodeAt(s: unknown, defs: SchemaRoot['definitions'], root: boolean): Record<string, unknown> | undefined {
  const r = resolve(s, defs);
  return r && (root || r['x-kubernetes-embedded-resource'] === true) ? withTypeAndObjectMeta(r, defs) : r;
}

/** One step down: a property by name, or a list's element / map's value; undefined where the apiserver has no type. */
function step(s: Record<string, unknown>, seg: string, defs: SchemaRoot['definitions']): unknown {
  let next: unknown;
  if (seg === ELEMENT) next = s.type === 'array' ? s.items : isObject(s.additionalProperties) ? s.additionalProperties : undefined;
  else if (seg === LIST_ELEMENT) next = s.type === 'array' ? s.items : undefined;
  else if (Object.hasOwn(obj(s.properties), seg)) next = obj(s.properties)[seg];
  return next !== undefined && hasDeclType(next, defs) ? next : undefined;
}

/**
 * The fields at `path` (field names and ELEMENT) below each root, merged, as the apiserver's type
 * checker sees them (fields without a CEL type left out); undefined when no root reaches the path.
 */
export function schemaFieldsAt(roots: readonly SchemaRoot[], path: readonly string[]): SchemaFieldsAt | undefined {
  const out: SchemaFieldsAt = { kinds: [], types: [], fields: [] };
  const byName = new Map<string, { types: string[]; kinds: string[] }>();
  for (const root of roots) {
    const defs = root.definitions;
    let cur: unknown = root.schema;
    let here = nodeAt(cur, defs, true);
    for (const seg of path) {
      cur = here ? step(here, seg, defs) : undefined;
      if (cur === undefined) break;
      here = nodeAt(cur, defs, false);
    }
    if (cur === undefined) continue;
    out.kinds.push(root.kind);
    out.types.push({ kind: root.kind, type: schemaTypeName(cur, defs) });
    for (const [name, f] of Object.entries(obj(here?.properties))) {
      if (!hasDeclType(f, defs)) continue;
      const e = byName.get(name) ?? { types: [], kinds: [] };
      const t = schemaTypeName(f, defs);
      if (!e.types.includes(t)) e.types.push(t);
      e.kinds.push(root.kind);
      byName.set(name, e);
    }
  }
  if (!out.kinds.length) return undefined;
  out.fields = [...byName].map(([name, e]) => ({ name, type: e.types.join(' | '), kinds: e.kinds })).sort((a, b) => (a.name < b.name ? -1 : 1));
  return out;
}

const OBJECT_META = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };

/**
 * What the apiserver's /openapi/v3 serves for a custom resource, as the type checker resolves it
 * (wasm/typecheck.go publishedCRDSchema): apiVersion and kind strings, metadata an ObjectMeta.
 */
function publishedCRDSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return { ...schema, type: schema.type ?? 'object', properties: { ...obj(schema.properties), apiVersion: STRING, kind: STRING, metadata: OBJECT_META } };
}

/** The schemas of the kinds a policy types `object` with (built-ins from `asset`, custom resources from the workspace's CRDs). */
export function schemaRoots(kinds: readonly CheckedKind[], asset: SchemaAsset | undefined, workspace: readonly unknown[]): SchemaRoot[] {
  const crds = crdSchemas(workspace);
  const definitions = asset?.definitions ?? {};
  const roots: SchemaRoot[] = [];
  for (const k of kinds) {
    const crd = crds.find((c) => c.group === k.group && c.version === k.version && c.kind === k.kind);
    const def = asset?.gvks[`${k.group}/${k.version}/${k.kind}`];
    if (crd && isObject(crd.schema)) roots.push({ kind: kindLabel(k), schema: publishedCRDSchema(crd.schema), definitions });
    else if (def && isObject(definitions[def])) roots.push({ kind: kindLabel(k), schema: { $ref: `#/definitions/${def}` }, definitions });
  }
  return roots;
}

/** The variables completion and hover type by schema: `object`/`oldObject` and `params`. */
export type TypedRoot = 'object' | 'params';

const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'];
const WEBHOOK_KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];

/** `apps/v1` → group `apps`, version `v1`; `v1` → the core group. */
function groupVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length > 2 || !parts.every(Boolean)) return undefined;
  return parts.length === 2 ? { group: parts[0]!, version: parts[1]! } : { group: '', version: parts[0]! };
}

/**
 * The kinds `root` is typed with in the expression at `field` of an admission document: for
 * `object`, the kinds a policy's matchConstraints can match (typesToCheck) or, in a webhook's
 * matchCondition, the kinds its rules can match (the apiserver does not type-check webhooks;
 * completion uses the same mapping); for `params`, a policy's paramKind. Empty when none is known.
 */
export function typedRootKinds(doc: unknown, field: string, root: TypedRoot, version: KubernetesVersion, workspace: readonly unknown[]): CheckedKind[] {
  const o = obj(doc);
  if (!str(o.apiVersion).startsWith('admissionregistration.k8s.io/')) return [];
  if (POLICY_KINDS.includes(str(o.kind))) {
    if (root === 'object') return typesToCheck(o, version, workspace);
    const paramKind = obj(obj(o.spec).paramKind);
    const gv = groupVersion(str(paramKind.apiVersion));
    return gv && str(paramKind.kind) ? [{ ...gv, kind: str(paramKind.kind) }] : [];
  }
  if (WEBHOOK_KINDS.includes(str(o.kind)) && root === 'object') {
    const [key, index] = parsePath(field);
    if (key !== 'webhooks' || typeof index !== 'number') return [];
    const rules = list(obj(list(o.webhooks)[index]).rules);
    return typesToCheck({ spec: { matchConstraints: { resourceRules: rules } } }, version, workspace);
  }
  return [];
}

/** The typed fields at `path` below the kinds' schemas (the release's schema asset loaded on first use). */
export async function kindFieldsAt(
  kinds: readonly CheckedKind[],
  path: readonly string[],
  options: TypeCheckOptions = {},
): Promise<SchemaFieldsAt | undefined> {
  if (!kinds.length) return undefined;
  const asset = await schemaAsset(options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION).catch(() => undefined);
  return schemaFieldsAt(schemaRoots(kinds, asset, options.workspace ?? []), path);
}

/**
 * The fields of `object` (or `oldObject`) at `path` for a policy: the kinds its matchConstraints
 * can match, the release's schema asset loaded on first use. Undefined when no schema is known.
 */
export async function objectFieldsAt(policy: unknown, path: readonly string[], options: TypeCheckOptions = {}): Promise<SchemaFieldsAt | undefined> {
  return kindFieldsAt(typesToCheck(policy, options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION, options.workspace ?? []), path, options);
}
