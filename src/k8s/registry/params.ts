/**
 * Param objects: what a policy's `paramKind` and a binding's `paramRef` name. They are not
 * admission configuration (never validated or linted here) but the workspace keeps them as
 * documents a user edits: a ConfigMap (the usual param) with a form of its metadata, `data` and
 * `immutable`, and any object of a kind a policy of the workspace names as its `paramKind` (a
 * custom resource) with a form of its metadata, the rest in the YAML.
 */
import { KUBERNETES_VERSIONS } from '../../base/releases';
import { isObject, str } from '../../base/json';
import { metadata } from './common';
import { typeMeta } from './kinds';
import type { KindSpec, ObjectField } from './types';

const SERVED = Object.fromEntries(KUBERNETES_VERSIONS.map((v) => [v, 'served' as const]));

/** ObjectMeta of a namespaced object: the shared description with namespace shown. */
const paramMetadata: ObjectField = {
  ...metadata,
  help: "Standard object metadata. A binding names its param by name (paramRef.name) or by label selector (paramRef.selector), in paramRef.namespace or the request's namespace.",
  fields: metadata.fields.map((f) =>
    f.name === 'namespace'
      ? {
          ...f,
          hidden: false,
          help: 'The namespace of the param. A binding without paramRef.namespace looks in the namespace of the request; a cluster-scoped param kind has none.',
        }
      : f,
  ),
};

export const configMap: KindSpec = {
  group: '',
  versions: [{ name: 'v1', releases: SERVED, source: 'core/v1 ConfigMap' }],
  kind: 'ConfigMap',
  summary: 'Key/value data; the usual param object of an admission policy (paramKind: {apiVersion: v1, kind: ConfigMap}).',
  docUrl: 'https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/config-map-v1/',
  fields: [
    paramMetadata,
    {
      type: 'stringMap',
      name: 'data',
      label: 'Data',
      help: 'The values a policy reads as params.data[\'key\']: keys are letters, digits, "-", "_" and "."; values are strings.',
      keyLabel: 'Key',
      valueLabel: 'Value',
    },
    { type: 'boolean', name: 'immutable', label: 'Immutable', help: 'When true, data cannot be changed after creation (only deleted and created again).' },
  ],
};

/** The apiVersion/kind pairs the workspace's policies name as paramKind. */
function paramKinds(workspace: readonly unknown[]): { apiVersion: string; kind: string }[] {
  return workspace.flatMap((o) => {
    const pk = isObject(o) && isObject(o.spec) && isObject(o.spec.paramKind) ? o.spec.paramKind : undefined;
    return pk ? [{ apiVersion: str(pk.apiVersion), kind: str(pk.kind) }] : [];
  });
}

/**
 * The form description of a param object: a ConfigMap, or an object of a kind a policy of the
 * workspace names as its paramKind; undefined for anything else.
 */
export function paramSpecOf(object: unknown, workspace: readonly unknown[]): KindSpec | undefined {
  const tm = typeMeta(object);
  if (!tm) return undefined;
  if (tm.apiVersion === 'v1' && tm.kind === 'ConfigMap') return configMap;
  if (!paramKinds(workspace).some((k) => k.apiVersion === tm.apiVersion && k.kind === tm.kind)) return undefined;
  const slash = tm.apiVersion.lastIndexOf('/');
  return {
    group: slash < 0 ? '' : tm.apiVersion.slice(0, slash),
    versions: [{ name: tm.apiVersion.slice(slash + 1), releases: SERVED, source: "a policy's paramKind" }],
    kind: tm.kind,
    summary: `A param object (a policy of the workspace names ${tm.kind} as its paramKind). Its metadata is edited here, its other fields in the YAML.`,
    docUrl: 'https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#parameter-resources',
    fields: [paramMetadata],
  };
}
