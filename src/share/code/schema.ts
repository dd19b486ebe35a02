/**
 * The shape of a Kubernetes object's fields, read from a release's schema asset (the OpenAPI
 * definitions of src/cel's type checking, generated from that release's k8s.io/kubernetes):
 * which fields are structs, maps, lists or scalars, which are required, and which definition
 * a struct is. The typed exports (Pkl's templates, Rust's k8s-openapi) need exactly that.
 */
import { isObject, type Obj } from '../../base/json';

/** What src/cel's `schemaAsset(version)` returns: GVK → definition name, and the definitions. */
export interface SchemaDefinitions {
  gvks: Readonly<Record<string, string>>;
  definitions: Readonly<Record<string, unknown>>;
}

export type FieldShape =
  | { kind: 'struct'; definition: string; properties: Readonly<Record<string, unknown>>; required: readonly string[] }
  | { kind: 'map'; values: FieldShape }
  | { kind: 'list'; items: FieldShape }
  | { kind: 'scalar'; type: 'string' | 'integer' | 'number' | 'boolean'; format?: string }
  | { kind: 'any' };

const REF = '#/definitions/';

/** The shape a schema node describes (its `$ref` followed). */
export function shapeOf(schemas: SchemaDefinitions, node: unknown): FieldShape {
  if (!isObject(node)) return { kind: 'any' };
  if (typeof node.$ref === 'string' && node.$ref.startsWith(REF)) return definitionShape(schemas, node.$ref.slice(REF.length));
  if (node.type === 'array') return { kind: 'list', items: shapeOf(schemas, node.items) };
  if (node.type === 'object' && node.additionalProperties !== undefined && !isObject(node.properties))
    return { kind: 'map', values: shapeOf(schemas, node.additionalProperties) };
  if (node.type === 'string' || node.type === 'integer' || node.type === 'number' || node.type === 'boolean')
    return { kind: 'scalar', type: node.type, ...(typeof node.format === 'string' ? { format: node.format } : {}) };
  return { kind: 'any' };
}

/** A definition by name (`io.k8s.api.admissionregistration.v1.ValidatingWebhook`). */
export function definitionShape(schemas: SchemaDefinitions, name: string): FieldShape {
  const def = schemas.definitions[name];
  if (!isObject(def)) return { kind: 'any' };
  if (isObject(def.properties)) {
    const required = Array.isArray(def.required) ? def.required.filter((r): r is string => typeof r === 'string') : [];
    return { kind: 'struct', definition: name, properties: def.properties, required };
  }
  return shapeOf(schemas, def);
}

/** The definition of a whole object, by its apiVersion and kind; undefined when the release does not know the kind. */
export function objectShape(schemas: SchemaDefinitions, object: Obj): FieldShape | undefined {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const gvk = `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}/${String(object.kind)}`;
  const name = schemas.gvks[gvk];
  return name ? definitionShape(schemas, name) : undefined;
}

/** The shape of a struct's field; undefined for a field the struct does not have. */
export function fieldShape(schemas: SchemaDefinitions, struct: FieldShape, key: string): FieldShape | undefined {
  if (struct.kind !== 'struct') return undefined;
  return Object.hasOwn(struct.properties, key) ? shapeOf(schemas, struct.properties[key]) : undefined;
}
