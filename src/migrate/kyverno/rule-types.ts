/** What a legacy rule's converter reads and answers (the entries of RULE_CONVERTERS, rules.ts). */
import type { Obj } from '../../base/json';
import type { Discovery } from '../../admission/discovery';
import type { ResourceInfo } from '../../k8s/resources';
import type { ConvertOptions, RuleStatus } from '../types';

/** Everything a rule converter reads. */
export interface RuleContext {
  /** The whole ClusterPolicy/Policy. */
  policy: Obj;
  rule: Obj;
  /** The rule's index in spec.rules. */
  index: number;
  /** The name of the ValidatingAdmissionPolicy Kyverno's generator gives it: `cpol-<policy>` for a one-rule policy, `cpol-<policy>-<rule>` otherwise. */
  policyName: string;
  options: ConvertOptions;
  /** The resources the target release serves (built-ins and the workspace's CRDs), for kinds → resources. */
  discovery: Pick<Discovery, 'minor'> & { served: readonly ResourceInfo[] };
}

export interface RuleConversion {
  status: RuleStatus;
  reason?: string;
  /** The produced objects (a policy before its binding). */
  objects: Obj[];
}

export type RuleConverter = (ctx: RuleContext) => RuleConversion;
