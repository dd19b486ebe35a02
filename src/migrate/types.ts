/**
 * What a conversion of another project's policies into native admission says, rule by rule.
 * The names are the peers' own: a Kyverno rule's name, a Gatekeeper template's name.
 */
import type { Obj } from '../base/json';

/**
 * - `exact`: the produced objects decide every request as the source would. Only a converter
 *   whose output for this construct is held to the source project's own engine by a
 *   differential test in `npm test` may say so.
 * - `different`: converted, with a stated difference (`reason`).
 * - `unsupported`: not convertible; `reason` says why (and names the expression or field).
 */
export type RuleStatus = 'exact' | 'different' | 'unsupported';

/** One rule of a source policy. */
export interface SourceRule {
  /** The source document's kind: `ConstraintTemplate`, `K8sRequiredLabels`, `ClusterPolicy`, `ValidatingPolicy`, … */
  kind: string;
  name: string;
  namespace?: string;
  /** The Kyverno rule's name, or the template's name for Gatekeeper. */
  rule: string;
  /**
   * Which one of several source documents of this kind, namespace and name in the input (1 the
   * first, in input order); absent when the input holds one. A library or a GitOps tree may hold
   * two in different folders, a cluster only one.
   */
  occurrence?: number;
}

export interface RuleResult {
  source: SourceRule;
  status: RuleStatus;
  /** Why a rule is `different` or `unsupported`; for `exact`, absent. */
  reason?: string;
  /** `kind/name` of every object produced for this rule (empty when unsupported). */
  produced: string[];
  /** The input holds other source documents of this kind and name: what that means, and how they were kept apart. */
  duplicate?: string;
}

export interface ConvertOptions {
  /** The target release (a row of src/base/releases.ts). */
  kubernetesVersion: string;
  /** Preview what Gatekeeper itself generates (`as-gatekeeper`), or policies that need no Gatekeeper left in the cluster. */
  gatekeeper: 'as-gatekeeper' | 'standalone';
}

export interface Conversion {
  /** The produced objects, in a stable order: each policy before its bindings and params. */
  objects: Obj[];
  /** One entry per source rule: none is dropped silently. */
  rules: RuleResult[];
}

/**
 * One source project's converter. It reads the whole set (a Gatekeeper constraint needs its
 * template) and answers for the documents it owns.
 */
export interface Converter {
  /** The source project, as its users name it: `Gatekeeper`, `Kyverno`. */
  name: string;
  /** Whether this converter reads `object` (by apiVersion group and kind). */
  owns(object: Obj): boolean;
  convert(objects: readonly Obj[], options: ConvertOptions): Conversion;
}
