/**
 * Kyverno's pod-controller autogen: a rule or policy written for Pods is also applied to the
 * controllers that make Pods (Deployment, Job, CronJob …), with `object.spec` read as the pod
 * template's. Kyverno's own VAP generator does not follow it (a ValidatingPolicy with autogen gets
 * no VAP; a ClusterPolicy's VAP covers Pods only), so a bad Deployment would be admitted and only
 * its Pods denied. Here the same rewrite is produced as extra admission policies:
 * - legacy rules: pkg/autogen/v1 (CanAutoGen, generateRuleForControllers, generateCronJobRule,
 *   the CEL replacements of updateFields: plain text replacement, as Kyverno does it);
 * - ValidatingPolicy: pkg/cel/policies/vpol/autogen and pkg/cel/autogen (configs, replacements
 *   that leave `….namespace` alone, CreateMatchConstraints).
 */
import { cloneJson, isObject, obj, objList, str, strList, type Obj } from '../../base/json';
import { translateMatch } from './match';
import { validatingBinding, validatingPolicy } from './objects';
import type { RuleContext } from './rule-types';

const ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';
const POD_CONTROLLERS = ['DaemonSet', 'Deployment', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController'];
const GVK: Record<string, string> = {
  DaemonSet: 'apps/v1/DaemonSet',
  Deployment: 'apps/v1/Deployment',
  Job: 'batch/v1/Job',
  StatefulSet: 'apps/v1/StatefulSet',
  ReplicaSet: 'apps/v1/ReplicaSet',
  ReplicationController: 'v1/ReplicationController',
  CronJob: 'batch/v1/CronJob',
};

const descriptions = (rule: Obj): Obj[] => {
  const m = obj(rule.match);
  const e = isObject(rule.exclude) ? rule.exclude : {};
  return [m, ...objList(m.any), ...objList(m.all), e, ...objList(e.any), ...objList(e.all)].map((f) => obj(f.resources)).filter((d) => Object.keys(d).length);
};
const hasPod = (kinds: string[]) => kinds.some((k) => k === 'Pod' || k.endsWith('/Pod'));

/** pkg/autogen/v1 CanAutoGen for the whole policy: the controllers its Pod rules are applied to (empty: none). */
export function legacyControllers(policy: Obj): string[] {
  const rules = objList(obj(policy.spec).rules);
  let needed = false;
  for (const rule of rules) {
    if (isObject(rule.generate)) return [];
    const mutate = obj(rule.mutate);
    if (mutate.patchesJson6902 || objList(mutate.foreach).some((f) => f.patchesJson6902)) return [];
    for (const d of descriptions(rule)) {
      const kinds = strList(d.kinds);
      if (d.name || strList(d.names).length || d.selector || d.annotations || (kinds.length > 1 && hasPod(kinds))) return [];
      needed ||= kinds.some((k) => ['Pod', ...POD_CONTROLLERS, 'CronJob'].includes(k));
    }
  }
  if (!needed) return [];
  const annotation = obj(obj(policy.metadata).annotations)[ANNOTATION];
  if (typeof annotation === 'string') return annotation === 'none' ? [] : annotation === 'all' ? [...POD_CONTROLLERS, 'CronJob'] : annotation.split(',');
  return [...POD_CONTROLLERS, 'CronJob'];
}

const replaceAll = (text: string, pairs: readonly [string, string][]) => pairs.reduce((t, [a, b]) => t.split(a).join(b), text);
const POD_CEL: [string, string][] = [
  ['object.spec', 'object.spec.template.spec'],
  ['oldObject.spec', 'oldObject.spec.template.spec'],
  ['object.metadata', 'object.spec.template.metadata'],
  ['oldObject.metadata', 'oldObject.spec.template.metadata'],
];
const CRONJOB_CEL: [string, string][] = POD_CEL.map(([a, b]) => [a, b.replace('spec.template', 'spec.jobTemplate.spec.template')]);

/** A rule rewritten for `kinds` (generateRule: kinds replaced where the filter names Pod). */
function ruleFor(rule: Obj, kinds: string[], cel: [string, string][]): Obj {
  const r = cloneJson(rule);
  const gvks = kinds.map((k) => GVK[k] ?? k);
  const retarget = (filters: Obj[]) => filters.forEach((f) => hasPod(strList(obj(f.resources).kinds)) && (obj(f.resources).kinds = gvks));
  const m = obj(r.match);
  if (objList(m.any).length) retarget(objList(m.any));
  else if (objList(m.all).length) retarget(objList(m.all));
  else if (isObject(m.resources)) m.resources.kinds = gvks;
  if (isObject(r.exclude)) {
    const e = r.exclude;
    if (objList(e.any).length) objList(e.any).forEach((f) => (obj(f.resources).kinds = gvks));
    else if (objList(e.all).length) objList(e.all).forEach((f) => (obj(f.resources).kinds = gvks));
    else if (strList(obj(e.resources).kinds).length) obj(e.resources).kinds = gvks;
  }
  return JSON.parse(replaceAll(JSON.stringify(r), cel)) as Obj;
}

/** The autogen policies of a legacy validate.cel rule (produced beside its own VAP), or why there are none. */
export function legacyAutogen(ctx: RuleContext, vap: Obj, binding: Obj): { objects: Obj[]; difference?: string } {
  const { rule } = ctx;
  const matchKinds = descriptions({ match: rule.match }).flatMap((d) => strList(d.kinds));
  const excludeKinds = descriptions({ match: {}, exclude: rule.exclude }).flatMap((d) => strList(d.kinds));
  if (!hasPod(matchKinds) || (excludeKinds.length && !hasPod(excludeKinds))) return { objects: [] };
  const controllers = legacyControllers(ctx.policy);
  if (!controllers.length) return { objects: [] };
  const objects: Obj[] = [];
  const groups: [string, string[], [string, string][]][] = [
    ['autogen', controllers.filter((c) => c !== 'CronJob' && POD_CONTROLLERS.includes(c)).sort(), POD_CEL],
    ['autogen-cronjob', controllers.includes('CronJob') ? ['CronJob'] : [], CRONJOB_CEL],
  ];
  for (const [suffix, kinds, cel] of groups) {
    if (!kinds.length) continue;
    const r = ruleFor(rule, kinds, cel);
    const match = translateMatch(r, ctx.discovery);
    if (match.refused)
      return { objects: [], difference: `Kyverno also applies the rule to ${kinds.join(', ')} (${suffix}-${str(rule.name)}), not converted: ${match.refused}` };
    const cel2 = obj(obj(r.validate).cel);
    const name = `${str(obj(vap.metadata).name)}-${suffix}`;
    const spec = obj(vap.spec);
    objects.push(
      validatingPolicy(name, {
        ...spec,
        matchConstraints: match.matchConstraints,
        variables: cel2.variables,
        validations: cel2.expressions,
        auditAnnotations: cel2.auditAnnotations,
        matchConditions: r.celPreconditions,
      }),
      { ...binding, metadata: { name: `${name}-binding` }, spec: { ...obj(binding.spec), policyName: name } },
    );
  }
  return { objects };
}

// --- ValidatingPolicy / MutatingPolicy (pkg/cel/autogen)

const CONFIGS: Record<string, { group: string; version: string; resource: string; ref: 'defaults' | 'cronjobs' }> = {
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', ref: 'defaults' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', ref: 'defaults' },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', ref: 'defaults' },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', ref: 'defaults' },
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', ref: 'defaults' },
  cronjobs: { group: 'batch', version: 'v1', resource: 'cronjobs', ref: 'cronjobs' },
};
const REPLACEMENTS: Record<'defaults' | 'cronjobs', [string, string][]> = {
  defaults: [
    ['spec', 'spec.template.spec'],
    ['metadata', 'spec.template.metadata'],
  ],
  cronjobs: [
    ['spec', 'spec.jobTemplate.spec.template.spec'],
    ['metadata', 'spec.jobTemplate.spec.template.metadata'],
  ],
};

/** autogen.CanAutoGen: one rule on core v1 pods, no names, no object selector, no exclusions. */
export function celCanAutogen(mc: Obj): boolean {
  const sel = obj(mc.objectSelector);
  if (Object.keys(obj(sel.matchLabels)).length || objList(sel.matchExpressions).length) return false;
  if (objList(mc.excludeResourceRules).length) return false;
  const rules = objList(mc.resourceRules);
  if (rules.length !== 1) return false;
  const r = rules[0]!;
  const one = (v: unknown, want: string) => strList(v).length === 1 && strList(v)[0] === want;
  return !strList(r.resourceNames).length && one(r.apiGroups, '') && one(r.apiVersions, 'v1') && one(r.resources, 'pods');
}

/** Replacement.Apply: `object.<from>` / `oldObject.<from>` → `….<to>`, except before `.namespace`. */
function applyReplacement(text: string, from: string, to: string): string {
  for (const root of ['object.', 'oldObject.']) {
    const f = root + from;
    let out = '';
    let rest = text;
    for (let i = rest.indexOf(f); i >= 0; i = rest.indexOf(f)) {
      const after = rest.slice(i + f.length);
      const isProtected = after.startsWith('.namespace') && !/^[\w]/.test(after.slice('.namespace'.length));
      out += rest.slice(0, i) + (isProtected ? f : root + to);
      rest = after;
    }
    text = out + rest;
  }
  return text;
}

/** The autogen specs of a ValidatingPolicy/MutatingPolicy spec, by config ('defaults', 'cronjobs'), as Kyverno generates them. */
export function celAutogen(spec: Obj): { config: string; spec: Obj }[] {
  const mc = obj(spec.matchConstraints);
  if (!isObject(spec.matchConstraints) || !celCanAutogen(mc)) return [];
  const podControllers = obj(obj(spec.autogen).podControllers);
  const wanted = Array.isArray(podControllers.controllers) ? strList(podControllers.controllers) : Object.keys(CONFIGS);
  const byRef = new Map<string, (typeof CONFIGS)[string][]>();
  for (const c of wanted) {
    const cfg = CONFIGS[c];
    if (cfg) byRef.set(cfg.ref, [...(byRef.get(cfg.ref) ?? []), cfg]);
  }
  const operations = objList(mc.resourceRules)[0]!.operations;
  return [...byRef.keys()].sort().map((ref) => {
    const targets = byRef.get(ref)!;
    const gvs = [...new Set(targets.map((t) => `${t.group}/${t.version}`))].sort();
    const resourceRules = gvs.map((gv) => {
      const [group, version] = gv.split('/');
      return {
        apiGroups: [group],
        apiVersions: [version],
        resources: [...new Set(targets.filter((t) => `${t.group}/${t.version}` === gv).map((t) => t.resource))].sort(),
        operations,
      };
    });
    const generated: Obj = {
      ...cloneJson(spec),
      matchConstraints: { resourceRules, ...(mc.namespaceSelector ? { namespaceSelector: cloneJson(mc.namespaceSelector) } : {}) },
    };
    let text = JSON.stringify(generated);
    for (const [from, to] of REPLACEMENTS[ref as 'defaults' | 'cronjobs']) text = applyReplacement(text, from, to);
    return { config: ref, spec: JSON.parse(text) as Obj };
  });
}
