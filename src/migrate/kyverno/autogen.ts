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
import { validatingPolicy } from './objects';
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

/** The controllers a CEL policy's autogen names (Kyverno resolves each: a built-in config, else a custom workload `<resource>.<version>.<group>`). */
function celControllers(spec: Obj): string[] {
  const podControllers = obj(obj(spec.autogen).podControllers);
  return Array.isArray(podControllers.controllers) ? [...new Set(strList(podControllers.controllers))] : Object.keys(CONFIGS);
}

/**
 * The custom workloads a CEL policy's autogen names (`<resource>.<version>.<group>` or a bare
 * resource name): Kyverno finds their pod template when it evaluates (extraction mode); a
 * MutatingPolicy skips them, a ValidatingPolicy validates the template found.
 */
export function celCustomControllers(spec: Obj): string[] {
  return isObject(spec.matchConstraints) && celCanAutogen(obj(spec.matchConstraints)) ? celControllers(spec).filter((c) => !CONFIGS[c]) : [];
}

/**
 * autogen.Autogen's groups (one generated policy per replacements config, 'cronjobs' before
 * 'defaults') with CreateMatchConstraints: the controllers' resource rules with the Pod rule's
 * operations and the source's namespaceSelector (nothing else of its matchConstraints).
 */
function celGroups(spec: Obj): { config: 'defaults' | 'cronjobs'; matchConstraints: Obj }[] {
  const mc = obj(spec.matchConstraints);
  if (!isObject(spec.matchConstraints) || !celCanAutogen(mc)) return [];
  const byRef = new Map<'defaults' | 'cronjobs', (typeof CONFIGS)[string][]>();
  for (const c of celControllers(spec)) {
    const cfg = CONFIGS[c];
    if (cfg) byRef.set(cfg.ref, [...(byRef.get(cfg.ref) ?? []), cfg]);
  }
  const operations = objList(mc.resourceRules)[0]!.operations;
  // CreateMatchConstraints answers nil without operations: the generated policy matches nothing
  if (!strList(operations).length) return [];
  return [...byRef.keys()].sort().map((config) => {
    const targets = byRef.get(config)!;
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
    return { config, matchConstraints: { resourceRules, ...(mc.namespaceSelector ? { namespaceSelector: cloneJson(mc.namespaceSelector) } : {}) } };
  });
}

/** The autogen specs of a ValidatingPolicy spec, by config ('defaults', 'cronjobs'): pkg/cel/policies/vpol/autogen, the whole spec's JSON text replaced. */
export function celAutogen(spec: Obj): { config: string; spec: Obj }[] {
  return celGroups(spec).map(({ config, matchConstraints }) => {
    let text = JSON.stringify({ ...cloneJson(spec), matchConstraints });
    for (const [from, to] of REPLACEMENTS[config]) text = applyReplacement(text, from, to);
    return { config, spec: JSON.parse(text) as Obj };
  });
}

const TEMPLATE_PATHS = {
  defaults: { spec: 'spec.template.spec', metadata: 'spec.template.metadata', wrap: ['Object{spec: Object.spec{template: Object.spec.template{', '}}}'] },
  cronjobs: {
    spec: 'spec.jobTemplate.spec.template.spec',
    metadata: 'spec.jobTemplate.spec.template.metadata',
    wrap: [
      'Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{',
      '}}}}}',
    ],
  },
} as const;

/**
 * pkg/cel/policies/mpol/autogen convertPodToTemplateExpression: `object.spec`, `oldObject.spec`,
 * `Object.spec` and their `metadata.labels` / `metadata.annotations` moved under the template, and a
 * root `Object{…}` wrapped in the controller's template objects (Kyverno's text rewrite, braces
 * counted as it counts them).
 */
export function podToTemplateExpression(expression: string, config: 'defaults' | 'cronjobs'): string {
  const t = TEMPLATE_PATHS[config];
  const out = expression
    .replace(/\b(object|oldObject|Object)\.spec/g, `$1.${t.spec}`)
    .replace(/\b(object|oldObject|Object)\.metadata\.labels/g, `$1.${t.metadata}.labels`)
    .replace(/\b(object|oldObject|Object)\.metadata\.annotations/g, `$1.${t.metadata}.annotations`);
  const trimmed = out.trim();
  if (!trimmed.startsWith('Object')) return out;
  const rest = trimmed.slice('Object'.length).replace(/^[ \t\r\n]+/, '');
  if (!rest.startsWith('{')) return out;
  const content = rest.slice(1);
  let depth = 1;
  let end = 0;
  for (let i = 0; i < content.length; i++) {
    if (content[i] === '{') depth++;
    else if (content[i] === '}' && --depth === 0) {
      end = i;
      break;
    }
  }
  return end > 0 ? t.wrap[0] + content.slice(0, end) + t.wrap[1] + content.slice(end + 1) : out;
}

/**
 * The autogen specs of a MutatingPolicy spec, by config: pkg/cel/policies/mpol/autogen rewrites the
 * matchConditions and the ApplyConfiguration expressions only (variables and JSONPatch
 * expressions are kept as written, as Kyverno keeps them).
 */
export function mpolAutogen(spec: Obj): { config: string; spec: Obj }[] {
  return celGroups(spec).map(({ config, matchConstraints }) => {
    const s = cloneJson(spec);
    s.matchConstraints = matchConstraints;
    for (const c of objList(s.matchConditions)) if (str(c.expression)) c.expression = podToTemplateExpression(str(c.expression), config);
    for (const m of objList(s.mutations)) {
      const ac = obj(m.applyConfiguration);
      if (str(ac.expression)) ac.expression = podToTemplateExpression(str(ac.expression), config);
    }
    return { config, spec: s };
  });
}
