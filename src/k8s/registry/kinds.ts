/** The kinds the Workbench edits, and lookups into their field descriptions. */
import type { PathSegment } from '../path';
import { mutatingAdmissionPolicy, mutatingAdmissionPolicyBinding, validatingAdmissionPolicy, validatingAdmissionPolicyBinding } from './policies';
import type { Field, KindSpec } from './types';
import { isObject } from '../json';
import { mutatingWebhookConfiguration, validatingWebhookConfiguration } from './webhooks';

export const KINDS: readonly KindSpec[] = [
  validatingWebhookConfiguration,
  mutatingWebhookConfiguration,
  validatingAdmissionPolicy,
  validatingAdmissionPolicyBinding,
  mutatingAdmissionPolicy,
  mutatingAdmissionPolicyBinding,
];

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}


/** apiVersion and kind of an object, when both are strings. */
export function typeMeta(object: unknown): TypeMeta | undefined {
  if (!isObject(object)) return undefined;
  const { apiVersion, kind } = object;
  return typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
}

/** The description of an object's kind (any apiVersion the registry knows, served or not), or undefined for kinds the Workbench does not edit. */
export function kindSpecOf(object: unknown): KindSpec | undefined {
  const tm = typeMeta(object);
  if (!tm) return undefined;
  return KINDS.find((k) => k.kind === tm.kind && k.versions.some((v) => `${k.group}/${v.name}` === tm.apiVersion));
}

/** The apiVersion we write for a kind. */
export const apiVersionOf = (spec: KindSpec): string => `${spec.group}/${spec.versions[0]!.name}`;

/** The field description at a path (list indexes step into the element), or undefined. */
export function fieldAt(spec: KindSpec, path: readonly PathSegment[]): Field | undefined {
  let fields: readonly Field[] = spec.fields;
  let field: Field | undefined;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (field?.type === 'list') {
        field = field.item;
        fields = field.fields;
        continue;
      }
      if (field?.type === 'stringList') continue;
      return undefined;
    }
    if (field?.type === 'stringMap') continue;
    field = fields.find((f) => f.name === seg);
    if (!field) return undefined;
    fields = field.type === 'object' ? field.fields : field.type === 'list' ? field.item.fields : [];
  }
  return field;
}
