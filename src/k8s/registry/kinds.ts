/** The kinds the Workbench edits, and lookups into their field descriptions. */
import type { PathSegment } from '../../base/path';
import { mutatingAdmissionPolicy, mutatingAdmissionPolicyBinding, validatingAdmissionPolicy, validatingAdmissionPolicyBinding } from './policies';
import type { KubernetesVersion } from '../../base/releases';
import { servingOf } from './served';
import type { Field, KindSpec, Serving } from './types';
import { isObject } from '../../base/json';
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

/** The API groups of the kinds the Workbench edits. */
const GROUPS = new Set(KINDS.map((k) => k.group));

/**
 * Whether an object claims one of our kinds' API group (`admissionregistration.k8s.io/…`), or names
 * one of our kinds with no apiVersion: a typo in its kind or version makes it no kind we edit, and
 * the apiserver refuses it, so it is checked (and refused) rather than kept as another kind.
 */
export function claimsAdmissionKind(object: unknown): boolean {
  if (!isObject(object)) return false;
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string') return typeof kind === 'string' && KINDS.some((k) => k.kind === kind);
  const slash = apiVersion.indexOf('/');
  return slash > 0 && GROUPS.has(apiVersion.slice(0, slash));
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

/**
 * How `release` serves an object's apiVersion: 'served', 'opt-in', or undefined (the release
 * has no such version, or the kind is not one the Workbench edits). For the simulator and
 * lints: an object whose apiVersion is not 'served' is not in a default cluster of that release.
 */
export function servingOfObject(object: unknown, release: KubernetesVersion): Serving | undefined {
  const spec = kindSpecOf(object);
  if (!spec) return undefined;
  return servingOf(spec, String((object as { apiVersion: unknown }).apiVersion).slice(spec.group.length + 1), release);
}
