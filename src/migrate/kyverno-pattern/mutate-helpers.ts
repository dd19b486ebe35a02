/**
 * Test support for the mutate converter: a converted mutate rule's policy and binding run through
 * the Workbench's admission chain (the MutatingAdmissionPolicy evaluation Simulate uses) and the
 * same request through Kyverno's engine (tools/kyverno-oracle, `patched`); the two resulting
 * objects compared as the apiserver would store them (decoded into the kind's Go type).
 */
import { simulatePrepared, type PreparedChain } from '../../admission';
import type { Obj } from '../../base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../../base/releases';
import { BUILTIN_RESOURCES } from '../../k8s/resources';
import { watchedCel } from '../../cel/test-helpers';
import { apiserverObject, loadTypedData } from '../../k8s/typed';
import { autogenControllers, shiftPattern } from './autogen';
import { conditionSites } from './conditions';
import { mutants } from './mutants';
import { dedupeProbes } from './mutate-dedupe';
import { convertPatternRule } from './rule';
import { namespaceIn, withSelectorLabels, worldsOf } from './context-worlds';
import { CHUNK, fresh, simulateInOrder } from './simulate-in-order';
import { TEST_USER, type UserInfo, USERS } from './differential-users';
import { chainOf, cluster, type DifferentialRequest, failedSimulation, gvrOf, matchedResources } from './test-helpers';
import type { RuleStatus } from '../types';

type Rec = Record<string, unknown>;

/** JSON with sorted keys: two objects are the same when their canonical texts are. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Rec)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

const POD_SPECS = [['spec'], ['spec', 'template', 'spec'], ['spec', 'jobTemplate', 'spec', 'template', 'spec']];

/**
 * The part of the apiserver's validation (after admission) the differential needs: every container,
 * volume and env var has a name, every volume mount a path. Kyverno's merge treats elements
 * without one in its own ways; such an object is rejected whatever either side did to it.
 */
function unnamed(object: unknown): boolean {
  return POD_SPECS.some((path) => {
    const spec = path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Rec)[k] : undefined), object) as Rec | undefined;
    if (!spec || typeof spec !== 'object') return false;
    const missing = (list: unknown, key = 'name') =>
      Array.isArray(list) && list.some((e) => !e || typeof e !== 'object' || typeof (e as Rec)[key] !== 'string' || (e as Rec)[key] === '');
    const containers = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((f) => (Array.isArray(spec[f]) ? (spec[f] as Rec[]) : []));
    return (
      ['containers', 'initContainers', 'ephemeralContainers', 'volumes'].some((f) => missing(spec[f])) ||
      containers.some((c) => c && typeof c === 'object' && (missing(c.env) || missing(c.volumeMounts, 'mountPath')))
    );
  });
}

/**
 * A Pod spec (a Pod's or a template's) without containers, or with two containers (of any of the
 * three lists) or two volumes of one name: the apiserver's validation refuses the object whatever
 * admission did to it (and a list map with duplicate keys is merged differently by each engine).
 */
export function invalidPodSpec(object: unknown): boolean {
  const at = (path: string[]) => path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Rec)[k] : undefined), object);
  // a Pod's spec, else the template's of a controller (a Deployment's own spec is not a Pod spec)
  const paths = (object as Rec | undefined)?.kind === 'Pod' ? POD_SPECS.slice(0, 1) : POD_SPECS.slice(1);
  return paths.some((path) => {
    const spec = at(path) as Rec | undefined;
    if (!spec || typeof spec !== 'object') return false;
    const names = (lists: string[]) =>
      lists.flatMap((f) => (Array.isArray(spec[f]) ? (spec[f] as Rec[]) : [])).map((e) => (e && typeof e === 'object' ? e.name : undefined));
    const repeated = (xs: unknown[]) => new Set(xs).size < xs.length;
    return names(['containers']).length === 0 || repeated(names(['containers', 'initContainers', 'ephemeralContainers'])) || repeated(names(['volumes']));
  });
}

/** What the apiserver keeps of a mutated object: decoded into its Go type; a rejection when it cannot be or fails the validation above. */
export function stored(object: unknown): string {
  const d = apiserverObject(object, DEFAULT_KUBERNETES_VERSION);
  return d.problems.length || unnamed(d.object) ? 'rejected' : canonical(d.object);
}

export interface MutateOutcome {
  /** `invalid`: rejected before the policy (an object the apiserver would not decode). */
  outcome: 'invalid' | 'error' | string;
  admitted: unknown;
}

/** The chain's result for `object` on CREATE (or an UPDATE from the same object); `namespaces`: the Namespace objects the chain reads (namespaceSelector, `namespaceObject`). */
export async function workbenchMutation(
  chain: PreparedChain,
  object: Obj,
  operation: 'CREATE' | 'UPDATE',
  namespaces?: unknown[],
  subResource?: string,
  userInfo: UserInfo = TEST_USER,
): Promise<MutateOutcome> {
  const { group, version, resource, kind } = gvrOf(object);
  const namespaced = BUILTIN_RESOURCES.find((x) => x.kind === kind)?.namespaced !== false;
  if (namespaced && !(object.metadata as Obj | undefined)?.namespace)
    object = { ...object, metadata: { ...((object.metadata as Obj | undefined) ?? {}), namespace: 'default' } };
  // an object the apiserver would not decode never reaches admission (a 400 before it): not simulated
  await loadTypedData(DEFAULT_KUBERNETES_VERSION);
  if (apiserverObject(object, DEFAULT_KUBERNETES_VERSION).problems.length) return { outcome: 'invalid', admitted: object };
  const metadata = (object.metadata as Obj | undefined) ?? {};
  const cel = watchedCel();
  const r = await simulatePrepared(
    chain,
    {
      operation,
      ...(operation === 'UPDATE' ? { oldObject: object } : {}),
      resource: { group, version, resource },
      ...(subResource ? { subResource } : {}),
      kind: { group, version, kind },
      name: String(metadata.name ?? ''),
      namespace: namespaced ? String(metadata.namespace ?? 'default') : '',
      userInfo,
      object,
    },
    namespaces ? { namespaces } : {},
    cel,
  );
  const admitted = r.admitted ?? object;
  failedSimulation(r, cel);
  if (r.allowed) return { outcome: stored(r.object), admitted };
  if (r.deniedBy?.kind !== 'MutatingAdmissionPolicy') return { outcome: 'invalid', admitted };
  return { outcome: 'error', admitted };
}

/** One line of the Kyverno oracle's answer with the patched resource. */
export interface MutateAnswer {
  results: { rule: string; status: string; message?: string }[];
  patched?: unknown;
  error?: string;
}

/** Kyverno's result: an error of the rule (or its autogen rules) blocks the request; else the patched object. */
export function kyvernoMutation(answer: MutateAnswer, rule: string, resource: unknown): string {
  if (answer.error) return 'error';
  const mine = answer.results.filter((r) => r.rule === rule || r.rule === `autogen-${rule}` || r.rule === `autogen-cronjob-${rule}`);
  if (mine.some((r) => r.status === 'error' || r.status === 'fail')) return 'error';
  return stored(answer.patched ?? resource);
}

/**
 * The policy with `rule` alone, its autogen as the whole policy's (Kyverno decides autogen from
 * every rule: a patchesJson6902 elsewhere turns it off).
 */
export function alone(policy: Obj, rule: Rec): Obj {
  const controllers = autogenControllers(policy);
  const metadata = (policy.metadata as Rec | undefined) ?? {};
  const annotations = {
    ...((metadata.annotations as Rec | undefined) ?? {}),
    'pod-policies.kyverno.io/autogen-controllers': controllers.length ? controllers.join(',') : 'none',
  };
  return { ...policy, metadata: { ...metadata, annotations }, spec: { ...(policy.spec as Rec), rules: [rule] } };
}

/** A patch with its variables' texts as a plain word (a mutant holding `{{ … }}` would be substituted again by Kyverno). */
const plainTexts = (p: unknown): unknown =>
  typeof p === 'string' && p.includes('{{')
    ? 'x'
    : Array.isArray(p)
      ? p.map(plainTexts)
      : p && typeof p === 'object'
        ? Object.fromEntries(Object.entries(p).map(([k, v]) => [k.replace(/\{\{[^}]*\}\}/g, 'x'), plainTexts(v)]))
        : p;

/** What a patch writes and reads, as patterns rooted at the object (for the mutants). */
export function mutateSites(rule: Rec): unknown[] {
  const m = (rule.mutate as Rec | undefined) ?? {};
  const out: unknown[] = [];
  if (m.patchStrategicMerge !== undefined) out.push(plainTexts(m.patchStrategicMerge));
  for (const f of Array.isArray(m.foreach) ? (m.foreach as Rec[]) : []) {
    if (f?.patchStrategicMerge !== undefined) out.push(plainTexts(f.patchStrategicMerge));
    // the lists the entry walks (`request.object.spec.containers`, `request.object.spec.[initContainers, containers][]`)
    const walked = /^\s*request\.object((?:\.[A-Za-z_]\w*)+)(?:\.\[([\w\s,]+)\])?/.exec(String(f?.list ?? ''));
    if (walked) {
      const path = walked[1]!.slice(1).split('.');
      for (const last of walked[2] ? walked[2].split(',').map((x) => [x.trim()]) : [[]])
        out.push([...path, ...last].reduceRight<unknown>((acc, t) => ({ [t]: acc }), [{ name: 'x' }]));
    }
    out.push(...conditionSites(f?.preconditions));
  }
  const texts = [m.patchesJson6902, ...(Array.isArray(m.foreach) ? (m.foreach as Rec[]).map((f) => f?.patchesJson6902) : [])];
  for (const text of texts.filter((t): t is string => typeof t === 'string'))
    for (const line of text.matchAll(/path:\s*["']?([^"'\n]+)/g)) {
      const tokens = line[1].trim().split('/').slice(1);
      // an index, `-` or a foreach's `{{elementIndex}}` is a list element
      out.push(tokens.reduceRight<unknown>((acc, t) => (/^(-|-?[0-9]+|\{\{.*\}\})$/.test(t) ? [acc] : { [t]: acc }), 'x'));
    }
  out.push(...conditionSites(rule.preconditions));
  return [...out, ...out.map((p) => shiftPattern(p, 'Deployment')), ...out.map((p) => shiftPattern(p, 'CronJob'))];
}

export interface MutateDifferential {
  policy: string;
  rule: string;
  status: RuleStatus;
  tried: number;
  objects: number;
  /** Objects the converted policy changed (a rule that changes none was not reached). */
  changed: number;
  disagreements: { resource: unknown; operation: string; namespace?: unknown; configMaps?: unknown[]; kyverno: string; workbench: string }[];
}

const container = { name: 'app', image: 'registry.example/app:1.0' };
const podSpec = { containers: [container] };
const template = { metadata: { labels: { app: 'app' } }, spec: podSpec };
/** Plain objects of the kinds mutate rules most often match: the seeds of a rule whose folder has none of its kinds. */
const PLAIN: readonly Obj[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app', labels: { app: 'app' } }, spec: podSpec },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'app' }, spec: { selector: { matchLabels: { app: 'app' } }, template } },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'app' }, spec: { selector: { matchLabels: { app: 'app' } }, template } },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'app' }, spec: { selector: { matchLabels: { app: 'app' } }, template } },
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'app' }, spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'app' },
    spec: { schedule: '0 1 * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } } },
  },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', labels: { team: 'a' } } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'config' }, data: { key: 'value' } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'app' }, spec: { selector: { app: 'app' }, ports: [{ port: 80 }] } },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } }, status: { capacity: { cpu: '4' } } },
];

/**
 * The differential of one mutate rule: its test resources and `count` mutants, mutated by the
 * converted policy (the Workbench) and by Kyverno (`decide`), the stored objects compared.
 */
export async function mutateDifferential(
  policy: Obj,
  rule: Obj,
  folderResources: readonly Obj[],
  count: number,
  decide: (policy: Obj, requests: DifferentialRequest[]) => Promise<MutateAnswer[]>,
): Promise<MutateDifferential> {
  const c = convertPatternRule(policy, rule);
  const name = String(rule.name);
  const out: MutateDifferential = {
    policy: String((policy.metadata as Obj).name),
    rule: name,
    status: c.status,
    tried: 0,
    objects: 0,
    changed: 0,
    disagreements: [],
  };
  if (c.status === 'unsupported') return out;
  const matched = matchedResources(c.objects, 'MutatingAdmissionPolicy');
  // a rule on one subresource only (`Node/status`) is reached by UPDATEs of it, the whole object sent
  const subs = new Set([...matched].map((p) => p.split('/')[1]));
  const subresource = subs.size === 1 ? [...subs][0] : undefined;
  const plurals = new Set([...matched].map((p) => p.split('/')[0]!));
  const given = folderResources.filter((r) => plurals.has('*') || plurals.has(gvrOf(r).resource));
  // a rule without test resources of its kinds is tried on a plain object of each kind it matches
  const seeds = given.length ? given : PLAIN.filter((r) => plurals.has(gvrOf(r).resource));
  const patterns = mutateSites(rule);
  // a rule with context or a namespaceSelector: each request in one of several clusters (its ConfigMap, its Namespace's labels), the same on both sides
  const worlds = withSelectorLabels(rule, worldsOf(rule, c.objects, seeds));
  if (worlds) patterns.push({ metadata: { labels: { app: '?*', team: '?*' } } });
  const chains = (worlds ?? [undefined]).map((w) => chainOf([...c.objects, ...(w?.configMap ? [w.configMap] : [])]));
  // a rule reading request.userInfo is asked by several users (texts JSON escapes, no groups), the same on both sides
  const users = JSON.stringify(rule).includes('request.userInfo') ? USERS : [TEST_USER];
  const decided = new Map<string, DifferentialRequest & { workbench: string }>();
  const objects = new Set<string>();
  const changed = new Set<string>();
  const seen = new Set<string>();
  for (let round = 1; round <= 12 && objects.size < count + seeds.length; round++) {
    // the first round also holds every keyed list's duplicates beside an element without a key (mutate-dedupe.ts)
    const batch =
      round === 1 ? [...seeds, ...seeds.flatMap(dedupeProbes), ...mutants(seeds, patterns, count, round)] : mutants(seeds, patterns, count, round * 7919);
    await simulateInOrder(
      fresh(batch, seen),
      CHUNK,
      async ([i, r]) => {
        const operation: 'CREATE' | 'UPDATE' = i % 3 === 2 || subresource ? 'UPDATE' : 'CREATE';
        const w = i % chains.length;
        const world = worlds?.[w];
        const namespaced = BUILTIN_RESOURCES.find((x) => x.kind === r.kind)?.namespaced !== false;
        const namespace = world && namespaced ? namespaceIn(world, String((r.metadata as Obj | undefined)?.namespace ?? 'default')) : undefined;
        const userInfo = users[i % users.length]!;
        const result = await workbenchMutation(chains[w]!, r, operation, namespace ? [namespace] : undefined, subresource, userInfo);
        return { operation, w, world, namespace, userInfo, result };
      },
      ({ operation, w, world, namespace, userInfo, result }) => {
        if (result.outcome === 'invalid') return;
        const admitted = JSON.stringify(result.admitted);
        objects.add(admitted);
        if (result.outcome !== stored(result.admitted)) changed.add(admitted);
        decided.set(JSON.stringify([admitted, operation, w, userInfo]), {
          admitted: result.admitted,
          operation,
          userInfo,
          ...(world ? cluster(world, namespace) : {}),
          ...(subresource ? { subresource } : {}),
          workbench: result.outcome,
        });
      },
    );
  }
  const unique = [...decided.values()];
  out.objects = objects.size;
  out.changed = changed.size;
  const answers = await decide(alone(policy, rule), unique);
  unique.forEach((d, i) => {
    const kyverno = kyvernoMutation(answers[i]!, name, d.admitted);
    out.tried++;
    if (kyverno !== d.workbench)
      out.disagreements.push({
        resource: d.admitted,
        operation: d.operation,
        ...(d.namespace ? { namespace: d.namespace, configMaps: d.configMaps } : {}),
        kyverno: answers[i]!.error ? `error: ${answers[i]!.error}` : kyverno,
        workbench: d.workbench,
      });
  });
  out.disagreements.sort((a, b) => JSON.stringify(a.resource).length - JSON.stringify(b.resource).length);
  return out;
}
