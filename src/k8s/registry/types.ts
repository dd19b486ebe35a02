/**
 * The field registry: one declarative description per field of every kind the
 * Workbench edits. Forms, hover help, the YAML JSON schema, the decode check
 * (wrong types, unknown fields) and the kubectl-like key order are all derived
 * from it, so a field is described exactly once.
 */
import type { CelContext } from '../../cel/types';
import type { KubernetesVersion } from '../../base/releases';

interface FieldBase {
  /** The key in the parent object, as the API spells it. */
  name: string;
  /** A short label for the form. */
  label: string;
  /** Help in our own words: what it does and what goes wrong. */
  help: string;
  /** The apiserver rejects the object without it. */
  required?: boolean;
  /** The value the apiserver fills in when the field is absent (v1 defaulting). */
  default?: unknown;
  /** Set by the server, never by users: kept on import, hidden from the form, strippable on export. */
  server?: boolean;
  /** Known to the API but not shown in the form (rarely hand-written). */
  hidden?: boolean;
  /** Example text shown in an empty control. */
  placeholder?: string;
  /** Hidden in the form while a sibling field has one of these values (matchExpressions values for Exists). */
  hideIf?: { sibling: string; oneOf: readonly string[] };
}

export interface StringField extends FieldBase {
  type: 'string';
  /** Allowed values (an enum picker). */
  enum?: readonly string[];
  /** Suggested values for free text. */
  suggestions?: readonly string[];
  /** Suggest the names of the workspace's documents of this kind (a binding's policyName). */
  suggestNamesOf?: string;
  /** A CEL expression in this context. */
  cel?: CelContext;
  /** Long text (messages, multi-line values). */
  multiline?: boolean;
  /** Base64-encoded bytes (caBundle). */
  format?: 'byte';
}

export interface IntegerField extends FieldBase {
  type: 'integer';
  minimum?: number;
  maximum?: number;
}

export interface BooleanField extends FieldBase {
  type: 'boolean';
}

/** A list of strings, edited as tokens. */
export interface StringListField extends FieldBase {
  type: 'stringList';
  /** Every allowed value, shown as checkboxes (operations, validationActions). */
  enum?: readonly string[];
  suggestions?: readonly string[];
}

/** A map of string to string (labels, annotations, matchLabels). */
export interface StringMapField extends FieldBase {
  type: 'stringMap';
  keyLabel?: string;
  valueLabel?: string;
}

export interface ObjectField extends FieldBase {
  type: 'object';
  fields: readonly Field[];
  /** Groups of child names of which at most one may be set (clientConfig.url | clientConfig.service). */
  oneOf?: readonly (readonly string[])[];
  /** Free-form object (an arbitrary Kubernetes object): any keys, any values. */
  open?: boolean;
}

export interface ListField extends FieldBase {
  type: 'list';
  /** The description of one element (an object). */
  item: ObjectField;
  /** The element field that names an element in lists and summaries. */
  itemKey?: string;
  /** Order is meaningful (the form shows move up/down). */
  ordered?: boolean;
}

export type Field = StringField | IntegerField | BooleanField | StringListField | StringMapField | ObjectField | ListField;

/** How a release serves an apiVersion: on by default, or present but off until enabled (the release table's type). */
export type { Serving } from '../../base/releases';
import type { Serving } from '../../base/releases';

/** One apiVersion of a kind, and which target releases serve it (registry/served.ts). */
export interface KindVersion {
  /** 'v1', 'v1beta1', 'v1alpha1'. */
  name: string;
  /** By target release; absent: that release does not have this version. */
  releases: Readonly<Partial<Record<KubernetesVersion, Serving>>>;
  /** What turns it on where it is 'opt-in' (kube-apiserver flags). */
  enable?: string;
  /** The Kubernetes release that removed it. */
  removedIn?: string;
  /** Where the facts come from. */
  source: string;
}

/** One editable kind: its type identity and its top-level fields (apiVersion and kind excluded). */
export interface KindSpec {
  group: string;
  /** Every apiVersion the Workbench reads (and edits), with the releases that serve it; the first is the one we write. */
  versions: readonly KindVersion[];
  kind: string;
  /** A one-line description for the "new document" menu. */
  summary: string;
  /** Upstream API reference. */
  docUrl: string;
  fields: readonly Field[];
}
