/**
 * The typed fields of `object`/`oldObject` at a path, for the CEL editor's completion and hover:
 * the schemas the type checker uses (typesToCheck: the kinds a policy's matchConstraints
 * resolve to; built-in kinds from the release's schema asset, custom resources from the
 * workspace's CustomResourceDefinitions), walked along a field path. Several matched kinds are
 * merged, each field saying which kinds have it. `undefined` when no schema is known (no
 * resolvable kind, a CRD without schema): the editor then completes as before.
 */
import { schemaAsset, type SchemaAsset } from '../cel';
import { isObject, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { crdSchemas, typesToCheck, type CheckedKind, type TypeCheckOptions } from './typecheck';

/** A path segment for a list's element or a map's value (`containers[0]`, `labels['app']`). */
export const ELEMENT = '[]';

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

/** The schema's type as the editor shows it: `integer`, `[]Container`, `map[string]string`, `ObjectMeta`. */
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
  if (s['x-kubernetes-int-or-string']) return 'int-or-string';
  switch (s.type) {
    case 'array':
      return `[]${schemaTypeName(s.items, defs)}`;
    case 'object':
      if (!s.properties && isObject(s.additionalProperties)) return `map[string]${schemaTypeName(s.additionalProperties, defs)}`;
      return 'object';
    case undefined:
      return s.properties ? 'object' : 'any';
    default:
      return str(s.type) || 'any';
  }
}

/** One step down: a property by name, or a list's element / map's value. */
function step(s: Record<string, unknown>, seg: string): unknown {
  if (seg === ELEMENT) return s.type === 'array' ? s.items : isObject(s.additionalProperties) ? s.additionalProperties : undefined;
  const props = obj(s.properties);
  return Object.prototype.hasOwnProperty.call(props, seg) ? props[seg] : undefined;
}

/** The fields at `path` (field names and ELEMENT) below each root, merged; undefined when no root reaches the path. */
export function schemaFieldsAt(roots: readonly SchemaRoot[], path: readonly string[]): SchemaFieldsAt | undefined {
  const out: SchemaFieldsAt = { kinds: [], types: [], fields: [] };
  const byName = new Map<string, { types: string[]; kinds: string[] }>();
  for (const root of roots) {
    let cur: unknown = root.schema;
    for (const seg of path) {
      const r = resolve(cur, root.definitions);
      cur = r ? step(r, seg) : undefined;
      if (cur === undefined) break;
    }
    if (cur === undefined) continue;
    out.kinds.push(root.kind);
    out.types.push({ kind: root.kind, type: schemaTypeName(cur, root.definitions) });
    const here = resolve(cur, root.definitions);
    for (const [name, f] of Object.entries(obj(here?.properties))) {
      const e = byName.get(name) ?? { types: [], kinds: [] };
      const t = schemaTypeName(f, root.definitions);
      if (!e.types.includes(t)) e.types.push(t);
      e.kinds.push(root.kind);
      byName.set(name, e);
    }
  }
  if (!out.kinds.length) return undefined;
  out.fields = [...byName].map(([name, e]) => ({ name, type: e.types.join(' | '), kinds: e.kinds })).sort((a, b) => (a.name < b.name ? -1 : 1));
  return out;
}

/** The schemas of the kinds a policy types `object` with (built-ins from `asset`, custom resources from the workspace's CRDs). */
export function schemaRoots(kinds: readonly CheckedKind[], asset: SchemaAsset | undefined, workspace: readonly unknown[]): SchemaRoot[] {
  const crds = crdSchemas(workspace);
  const roots: SchemaRoot[] = [];
  for (const k of kinds) {
    const crd = crds.find((c) => c.group === k.group && c.version === k.version && c.kind === k.kind);
    if (crd) {
      roots.push({ kind: kindLabel(k), schema: crd.schema, definitions: {} });
      continue;
    }
    const def = asset?.gvks[`${k.group}/${k.version}/${k.kind}`];
    if (def && asset && isObject(asset.definitions[def])) roots.push({ kind: kindLabel(k), schema: { $ref: `#/definitions/${def}` }, definitions: asset.definitions });
  }
  return roots;
}

/**
 * The fields of `object` (or `oldObject`) at `path` for a policy: the kinds its matchConstraints
 * can match, the release's schema asset loaded on first use. Undefined when no schema is known.
 */
export async function objectFieldsAt(policy: unknown, path: readonly string[], options: TypeCheckOptions = {}): Promise<SchemaFieldsAt | undefined> {
  const version = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const workspace = options.workspace ?? [];
  const kinds = typesToCheck(policy, version, workspace);
  if (!kinds.length) return undefined;
  const crds = crdSchemas(workspace);
  const builtin = kinds.some((k) => !crds.some((c) => c.group === k.group && c.version === k.version && c.kind === k.kind));
  const asset = builtin ? await schemaAsset(version).catch(() => undefined) : undefined;
  return schemaFieldsAt(schemaRoots(kinds, asset, workspace), path);
}
