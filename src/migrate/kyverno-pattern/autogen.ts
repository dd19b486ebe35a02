/**
 * Kyverno's auto-generated rules for Pod controllers (kyverno v1.19 pkg/autogen/v1): a Pod rule of
 * a policy that qualifies also runs as `autogen-<rule>` on DaemonSets, Deployments, Jobs,
 * StatefulSets, ReplicaSets and ReplicationControllers with its pattern under `spec.template`, and
 * as `autogen-cronjob-<rule>` on CronJobs under `spec.jobTemplate.spec.template`. The converted
 * policy covers them too, so it decides controllers as Kyverno does.
 */
import type { Obj } from '../../base/json';
import { Unsupported } from './pattern';

type Rec = Record<string, unknown>;

export const POD_CONTROLLERS = ['DaemonSet', 'Deployment', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'CronJob'];

/** The resource of each controller kind, for matchConstraints. */
export const CONTROLLER_RESOURCES: Record<string, { group: string; resource: string }> = {
  DaemonSet: { group: 'apps', resource: 'daemonsets' },
  Deployment: { group: 'apps', resource: 'deployments' },
  Job: { group: 'batch', resource: 'jobs' },
  StatefulSet: { group: 'apps', resource: 'statefulsets' },
  ReplicaSet: { group: 'apps', resource: 'replicasets' },
  ReplicationController: { group: '', resource: 'replicationcontrollers' },
  CronJob: { group: 'batch', resource: 'cronjobs' },
};

const bareKind = (k: string) => k.split('/').filter((p) => !/^[a-z]/.test(p) || p === k)[0] ?? k;

/** The resource descriptions of a match/exclude (flat, any, all). */
function descriptions(m: unknown): Rec[] {
  if (!m || typeof m !== 'object') return [];
  const o = m as Rec;
  const out: Rec[] = [];
  if (o.resources) out.push(o.resources as Rec);
  for (const e of [...((o.any as Rec[]) ?? []), ...((o.all as Rec[]) ?? [])]) out.push((e.resources as Rec) ?? {});
  return out;
}

export const kindsOf = (m: unknown) => descriptions(m).flatMap((d) => ((d.kinds as string[]) ?? []).map(bareKind));

/** CanAutoGen and the annotation: the controllers every Pod rule of `policy` also runs on. */
export function autogenControllers(policy: Obj): string[] {
  const rules = (((policy.spec as Rec | undefined)?.rules as Rec[]) ?? []) as Rec[];
  let needed = false;
  for (const rule of rules) {
    if (rule.generate) return [];
    const mutate = rule.mutate as Rec | undefined;
    if (mutate?.patchesJson6902 || ((mutate?.foreach as Rec[]) ?? []).some((f) => f.patchesJson6902)) return [];
    for (const d of [...descriptions(rule.match), ...descriptions(rule.exclude)]) {
      const kinds = ((d.kinds as string[]) ?? []).map(bareKind);
      if (d.name || (d.names as unknown[] | undefined)?.length || d.selector || d.annotations || (kinds.length > 1 && kinds.includes('Pod'))) return [];
      needed ||= kinds.some((k) => k === 'Pod' || POD_CONTROLLERS.includes(k));
    }
  }
  if (!needed) return [];
  const annotation = ((policy.metadata as Rec | undefined)?.annotations as Rec | undefined)?.['pod-policies.kyverno.io/autogen-controllers'];
  if (annotation === undefined) return POD_CONTROLLERS;
  const list = String(annotation).split(',');
  if (list.includes('none')) return [];
  if (list.includes('all')) return POD_CONTROLLERS;
  const known = list.filter((k) => POD_CONTROLLERS.includes(k));
  if (known.length !== list.length || (known.length === 1 && known[0] === 'CronJob'))
    throw new Unsupported(`the autogen-controllers annotation ${String(annotation)}`);
  return known;
}

/** The controllers this rule is generated for (none when it is not a Pod rule). */
export function ruleControllers(policy: Obj, rule: Rec): string[] {
  const match = kindsOf(rule.match);
  const exclude = kindsOf(rule.exclude);
  if (!match.includes('Pod') || (exclude.length && !exclude.includes('Pod'))) return [];
  return autogenControllers(policy);
}

/** A pattern as the generated rule for `kind` reads it. */
export function shiftPattern(pattern: unknown, kind: string): unknown {
  if (kind === 'CronJob') return { spec: { jobTemplate: { spec: { template: pattern } } } };
  return { spec: { template: pattern } };
}
