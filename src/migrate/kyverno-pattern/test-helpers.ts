/**
 * Test support for the pattern converter: reads Kyverno policy folders (policy YAML, its
 * `.kyverno-test/kyverno-test.yaml` and resources) and decides a converted rule on a resource with
 * the Workbench's admission chain (the produced policy and binding, the binding set to Deny so the
 * rule's verdict shows whatever its failure action).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { decideKyverno, type KyvernoRequest } from '../../../tools/kyverno-oracle/oracle';
import { type PreparedChain, prepareChain, type SimResult, simulatePrepared } from '../../admission';
import { watchedCel } from '../../cel/test-helpers';
import type { Obj } from '../../base/json';
import { BUILTIN_RESOURCES, resourceForKind } from '../../k8s/resources';
import { apiserverObject, loadTypedData } from '../../k8s/typed';
import type { RuleStatus } from '../types';
import { shiftPattern } from './autogen';
import { conditionSites } from './conditions';
import { namespaceIn, type World, withSelectorLabels, worldsOf } from './context-worlds';
import { kyvernoAction, overrideNamespaceSites, producedAction } from './differential-actions';
import { namedUsers, subjectUsers, TEST_USER, type UserInfo, USERS } from './differential-users';

import { foreachSites } from './foreach-sites';
import { mutants } from './mutants';
import { CRONJOB_METADATA_SITE, POD_SECURITY_SITES } from './pod-security-mutants';
import { reachingResources } from './reach';
import { convertPatternRule } from './rule';
import { CHUNK, fresh, simulateInOrder } from './simulate-in-order';

export interface KyvernoTestResult {
  policy: string;
  rule: string;
  resources: string[];
  kind?: string;
  result: string;
}

export interface KyvernoFolder {
  dir: string;
  policies: Obj[];
  resources: Obj[];
  results: KyvernoTestResult[];
  /** The kyverno-test values file's values, by policy and rule name (`policy/rule`). */
  values: Record<string, Record<string, unknown>>;
}

const loadYaml = (file: string): Obj[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as unknown)
    .filter((d): d is Obj => !!d && typeof d === 'object' && !Array.isArray(d));

/** Every folder under `root` that holds a ClusterPolicy/Policy, with its kyverno-test (if any). */
export function readKyvernoFolders(root: string): KyvernoFolder[] {
  const out: KyvernoFolder[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir).sort();
    const policies = entries
      .filter((e) => /\.ya?ml$/.test(e) && statSync(join(dir, e)).isFile())
      .flatMap((e) => loadYaml(join(dir, e)))
      .filter((d) => /^kyverno\.io\//.test(String(d.apiVersion)) && (d.kind === 'ClusterPolicy' || d.kind === 'Policy'));
    if (policies.length) {
      const folder: KyvernoFolder = { dir, policies, resources: [], results: [], values: {} };
      const testFile = join(dir, '.kyverno-test', 'kyverno-test.yaml');
      try {
        const test = loadYaml(testFile)[0] ?? {};
        for (const r of (test.resources as string[] | undefined) ?? []) {
          try {
            folder.resources.push(...loadYaml(join(dirname(testFile), r)).filter((d) => d.kind && d.apiVersion));
          } catch {
            // a resource file the test names but the folder lacks: the test's other resources still count
          }
        }
        if (typeof test.variables === 'string') {
          try {
            const values = loadYaml(join(dirname(testFile), test.variables))[0] ?? {};
            for (const p of (values.policies as Obj[] | undefined) ?? [])
              for (const r of (p.rules as Obj[] | undefined) ?? []) folder.values[`${String(p.name)}/${String(r.name)}`] = (r.values as Obj | undefined) ?? {};
          } catch {
            // a values file the test names but the folder lacks: the rule is measured without its values
          }
        }
        for (const r of (test.results as Obj[] | undefined) ?? []) {
          const names = (r.resources as string[] | undefined) ?? (r.resource ? [String(r.resource)] : []);
          folder.results.push({
            policy: String(r.policy),
            rule: String(r.rule),
            resources: names,
            kind: r.kind as string | undefined,
            result: String(r.result),
          });
        }
      } catch {
        // no kyverno-test: the policy is still converted and measured
      }
      out.push(folder);
    }
    for (const e of entries) if (e !== '.kyverno-test' && statSync(join(dir, e)).isDirectory()) walk(join(dir, e));
  };
  walk(root);
  return out;
}

/** A ClusterPolicy `p` in Enforce holding one rule (the unit tests' policy). */
export const enforcePolicy = (rule: Obj): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: { validationFailureAction: 'Enforce', rules: [rule] },
});

/** The request's resource for an object: the built-in table, else the kind's plural in its group. */
export function gvrOf(object: Obj): { group: string; version: string; resource: string; kind: string } {
  const [group, version] = String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/') : ['', String(object.apiVersion)];
  const kind = String(object.kind);
  const known = BUILTIN_RESOURCES.find((r) => r.kind === kind && r.group === group && r.version === version);
  return { group, version, kind, resource: known?.resource ?? resourceForKind(kind) };
}

export interface VapVerdict {
  /** `invalid`: the request was rejected before the policy (an object the apiserver would not decode); `error`: the policy's CEL failed. */
  verdict: 'allow' | 'deny' | 'error' | 'invalid';
  admitted: unknown;
  /** The policy applied (matched, its match conditions held): the request reached the rule. */
  reached: boolean;
  /** The produced policies that applied (a rule whose action differs by Namespace has one per action). */
  policies?: string[];
  message?: string;
}

/** The admission chain of the produced objects, the binding's actions set to Deny (the rule's verdict, whatever its failure action). */
export const chainOf = (produced: readonly Obj[]): PreparedChain =>
  prepareChain(produced.map((o) => (o.kind === 'ValidatingAdmissionPolicyBinding' ? { ...o, spec: { ...(o.spec as Obj), validationActions: ['Deny'] } } : o)));

/** The chain's verdicts on `objects` for a rule of an Enforce policy the converter must call exact. */
export async function exactVerdicts(rule: Obj, objects: readonly Obj[]): Promise<string[]> {
  const c = convertPatternRule(enforcePolicy(rule), rule);
  if (c.status !== 'exact') throw new Error(`not exact: ${c.status} ${c.reason ?? ''}`);
  const chain = chainOf(c.objects);
  const out: string[] = [];
  for (const o of objects) out.push((await vapVerdict(chain, o)).verdict);
  return out;
}

/** Throws when the engine (watchedCel) or the simulation failed: a differential's request is never dropped or decided by a failure. */
export function failedSimulation(r: SimResult, cel: { failure?: string }): void {
  if (cel.failure) throw new Error(`the CEL engine failed: ${cel.failure}`);
  // a simulation that ran sets deniedBy whenever it does not allow
  if (!r.allowed && !r.deniedBy) throw new Error(r.notes.join('; '));
}

/**
 * What the chain answers for `object` on CREATE (or an UPDATE from `oldObject`, by default the same
 * object), and the object as admission decoded it; `namespace`: the request's Namespace; `userInfo`:
 * who asks (default TEST_USER).
 */
export async function vapVerdict(
  chain: PreparedChain,
  object: Obj,
  operation: 'CREATE' | 'UPDATE' = 'CREATE',
  { namespace, oldObject, userInfo = TEST_USER }: { namespace?: Obj; oldObject?: Obj; userInfo?: UserInfo } = {},
): Promise<VapVerdict> {
  const { group, version, resource, kind } = gvrOf(object);
  const namespaced = BUILTIN_RESOURCES.find((x) => x.kind === kind)?.namespaced !== false;
  // The apiserver sets the request's namespace on the object before admission: Kyverno sees it too.
  if (namespaced && !(object.metadata as Obj | undefined)?.namespace)
    object = { ...object, metadata: { ...((object.metadata as Obj | undefined) ?? {}), namespace: 'default' } };
  // an object the apiserver would not decode (a label that is a number, …) is refused with a 400
  // before admission: neither Kyverno nor the policy ever sees it, so it is not simulated
  await loadTypedData(chain.kubernetesVersion);
  if (apiserverObject(object, chain.kubernetesVersion, { group, version, kind }).problems.length)
    return { verdict: 'invalid', admitted: object, reached: false, message: 'the apiserver would not decode it' };
  const metadata = (object.metadata as Obj | undefined) ?? {};
  const cel = watchedCel();
  const r = await simulatePrepared(
    chain,
    {
      operation,
      ...(operation === 'UPDATE' ? { oldObject: oldObject ?? object } : {}),
      resource: { group, version, resource },
      kind: { group, version, kind },
      name: String(metadata.name ?? ''),
      namespace:
        metadata.namespace === undefined ? (BUILTIN_RESOURCES.find((x) => x.kind === kind)?.namespaced === false ? '' : 'default') : String(metadata.namespace),
      userInfo,
      object,
    },
    namespace ? { namespaces: [namespace] } : {},
    cel,
  );
  failedSimulation(r, cel);
  const admitted = r.admitted ?? object;
  const policies = [...new Set(r.steps.filter((s) => s.kind === 'ValidatingAdmissionPolicy' && s.outcome !== 'skipped').map((s) => s.name))];
  const reached = policies.length > 0;
  if (r.allowed) return { verdict: 'allow', admitted, reached, policies };
  if (r.deniedBy?.kind !== 'ValidatingAdmissionPolicy') return { verdict: 'invalid', admitted, reached: false, message: r.deniedBy?.message };
  const step = r.steps.find((s) => s.kind === 'ValidatingAdmissionPolicy' && s.outcome === 'error-rejected');
  return { verdict: step ? 'error' : 'deny', admitted, reached, policies, message: r.deniedBy?.message };
}

/** One line of the Kyverno oracle's answer (tools/kyverno-oracle); `action`: a validate rule's failure action for the request. */
export interface OracleAnswer {
  results: { policy: string; rule: string; status: string; message?: string; action?: string }[];
  error?: string;
}

/**
 * Kyverno's verdict on a rule: fail or error on the rule or the rules it generated for Pod controllers denies.
 * Pass and skip allow: a skip (not matched, preconditions or a conditional anchor not met) admits the request, as
 * the converted policy's skip or admit does; an imported kyverno-test's `skip` expects the same (admit or skip,
 * src/migrate/kyverno/kyverno-test.ts).
 */
export function kyvernoVerdict(answer: OracleAnswer, rule: string): 'allow' | 'deny' | 'error' {
  if (answer.error) return 'error';
  const mine = answer.results.filter((r) => r.rule === rule || r.rule === `autogen-${rule}` || r.rule === `autogen-cronjob-${rule}`);
  return mine.some((r) => r.status === 'fail' || r.status === 'error') ? 'deny' : 'allow';
}

/** Whether Kyverno evaluated the rule (or a rule it generated from it): it matched and its preconditions held. */
export function kyvernoReached(answer: OracleAnswer, rule: string): boolean {
  return answer.results.some(
    (r) =>
      (r.rule === rule || r.rule === `autogen-${rule}` || r.rule === `autogen-cronjob-${rule}`) &&
      !(r.status === 'skip' && /^preconditions not met/.test(r.message ?? '')),
  );
}

export interface RuleDifferential {
  policy: string;
  rule: string;
  status: RuleStatus;
  /** Requests both sides decided (the apiserver's rejections before admission left out). */
  tried: number;
  /** Distinct objects among them. */
  objects: number;
  /** Distinct objects among them that Kyverno evaluated the rule on (matched, preconditions held). */
  reached: number;
  /** The folder's test resources of the kinds the rule matches (the others are generated: reach.ts). */
  given: number;
  disagreements: {
    resource: unknown;
    operation: string;
    oldResource?: unknown;
    userInfo?: unknown;
    configMaps?: unknown[];
    namespace?: unknown;
    kyverno: string;
    vap: string;
  }[];
}

/** One request of a differential, with the cluster a rule's context reads (its ConfigMaps, its Namespace). */
export interface DifferentialRequest {
  admitted: unknown;
  operation: 'CREATE' | 'UPDATE';
  /** An UPDATE's old object when it is not the object itself (rules that read request.oldObject). */
  oldResource?: Obj;
  /** Who asks, for a rule that matches or excludes by subjects (the same on both sides). */
  userInfo?: UserInfo;
  configMaps?: Obj[];
  namespace?: Obj;
  namespaceLabels?: Record<string, string>;
  /** The request's subresource (a rule matching `Node/status` is reached by requests to it). */
  subresource?: string;
}

/** What Kyverno is given of a world: the ConfigMaps (none when missing), the Namespace and its labels. */
export const cluster = (world: World, namespace: Obj | undefined): Pick<DifferentialRequest, 'configMaps' | 'namespace' | 'namespaceLabels'> => ({
  configMaps: world.configMap ? [world.configMap] : [],
  ...(namespace ? { namespace, namespaceLabels: (namespace.metadata as Obj).labels as Record<string, string> } : {}),
});

/** The resources a converted policy of `kind` matches (its resourceRules' plurals), to pick the seeds worth mutating. */
export const matchedResources = (produced: readonly Obj[], kind = 'ValidatingAdmissionPolicy'): Set<string> =>
  new Set(
    produced
      .filter((o) => o.kind === kind)
      .flatMap((o) => (((o.spec as Obj).matchConstraints as Obj).resourceRules as Obj[]).flatMap((r) => r.resources as string[])),
  );

/**
 * The differential of one rule: its test resources and `count` mutants, decided by the converted
 * policy (the Workbench's admission) and by Kyverno (`decide`: policy and objects in, one answer a
 * resource out), compared. Kyverno is given the object as admission decoded it, as in a cluster.
 */
export async function differential(
  policy: Obj,
  rule: Obj,
  folderResources: readonly Obj[],
  count: number,
  decide: (policy: Obj, requests: DifferentialRequest[]) => Promise<OracleAnswer[]>,
  values: Record<string, unknown> = {},
): Promise<RuleDifferential> {
  const c = convertPatternRule(policy, rule);
  const name = String(rule.name);
  const out: RuleDifferential = {
    policy: String((policy.metadata as Obj).name),
    rule: name,
    status: c.status,
    tried: 0,
    objects: 0,
    reached: 0,
    given: 0,
    disagreements: [],
  };
  if (c.status === 'unsupported') return out;
  const plurals = matchedResources(c.objects);
  const matched = (r: Obj) => plurals.has('*') || plurals.has(gvrOf(r).resource);
  const given = folderResources.filter(matched);
  out.given = given.length;
  // the test resources, then objects built from the rule (its kinds, match, pattern and conditions)
  const seeds = [...given, ...reachingResources(policy, rule).filter(matched)];
  const v = rule.validate as Obj;
  // what the rule reads, as patterns rooted at the object (a foreach's element patterns under its list's elements)
  const base =
    v.pattern !== undefined
      ? [v.pattern]
      : Array.isArray(v.anyPattern)
        ? v.anyPattern
        : v.foreach !== undefined
          ? foreachSites(v.foreach)
          : v.podSecurity !== undefined
            ? [POD_SECURITY_SITES]
            : [];
  // fields the conditions (deny and preconditions) read
  // fields the context variables' queries read, as conditions on them
  const variables = ((rule.context as Obj[] | undefined) ?? []).flatMap((e) => {
    const q = (e.variable as Obj | undefined)?.jmesPath;
    return typeof q === 'string' ? [{ key: `{{ ${q} }}`, operator: 'Equals', value: '' }] : [];
  });
  const read = [...base, ...conditionSites((v.deny as Obj | undefined)?.conditions), ...conditionSites(rule.preconditions), ...conditionSites(variables)];
  const patterns = [...read, ...read.map((p) => shiftPattern(p, 'Deployment')), ...read.map((p) => shiftPattern(p, 'CronJob'))];
  if (v.podSecurity !== undefined) patterns.push(CRONJOB_METADATA_SITE);
  // the Namespaces the failure action overrides name, hit and missed (the action is compared below)
  patterns.push(...overrideNamespaceSites(policy, rule));
  // a rule with context: each request in one of several clusters (its ConfigMap, its Namespace's labels), the same on both
  // sides; a rule with a namespaceSelector: clusters whose Namespace has the labels it asks, in three of four
  const worlds = withSelectorLabels(rule, worldsOf(rule, c.objects, seeds, values));
  // a rule that reads only its context (or nothing of the object) still meets distinct objects: their labels vary
  if (worlds || read.length === 0) patterns.push({ metadata: { labels: { app: '?*', team: '?*' } } });
  const chains = (worlds ?? [undefined]).map((w) => chainOf([...c.objects, ...(w?.configMap ? [w.configMap] : [])]));
  const decided = new Map<string, DifferentialRequest & { vap: string; action?: string }>();
  const objects = new Set<string>();
  const reaching = new Set<string>();
  const seen = new Set<string>();
  // a rule that reads request.oldObject: two requests in three are UPDATEs, one of them from an
  // object decided before of the same kind (stored, so as admission decoded it) renamed as the new one
  const readsOld = JSON.stringify(rule).includes('request.oldObject');
  const previous = new Map<string, Obj>();
  // a rule that matches or excludes by subjects: requests from users each subject names, and from one it does not;
  // a rule that reads request.userInfo: several users, some in groups named as the objects are (a rule may compare them)
  const users = subjectUsers(rule);
  if (!users.length && JSON.stringify(rule).includes('request.userInfo')) users.push(...USERS, ...namedUsers(seeds));
  const oldFor = (r: Obj): Obj | undefined => {
    const p = previous.get(`${String(r.apiVersion)}/${String(r.kind)}`);
    if (!p) return undefined;
    const m = (r.metadata as Obj | undefined) ?? {};
    return { ...p, metadata: { ...((p.metadata as Obj | undefined) ?? {}), name: m.name, namespace: m.namespace } };
  };
  // Mutants until `count` distinct objects (as admission decoded them) reach the policy; some are objects the apiserver would not decode.
  // a margin over `count`: Kyverno's own count of the objects that reach the rule can fall a little short of the CEL side's
  let target = count + Math.ceil(count / 10);
  let round = 1;
  let asked = 0;
  const reached = new Set<string>();
  // Kyverno's count of the objects reaching the rule can fall short of the CEL side's (a foreach
  // entry without elements, …): up to three passes, each asking for more by the ratio seen
  for (let pass = 1; pass <= 3; pass++) {
    for (; round <= 24 * pass && (objects.size < count + given.length || reaching.size < target); round++) {
      const batch = round === 1 ? [...seeds, ...mutants(seeds, patterns, count, round)] : mutants(seeds, patterns, count, round * 7919);
      // the requests of a batch simulated several at a time; one at a time when a request's old
      // object is the verdict before it
      await simulateInOrder(
        fresh(batch, seen),
        readsOld ? 1 : CHUNK,
        async ([i, r]) => {
          // every third request an UPDATE (from the same object): operation conditions are held on both sides
          const operation: 'CREATE' | 'UPDATE' = i % 3 === 2 || (readsOld && i % 3 === 1) ? 'UPDATE' : 'CREATE';
          const old = readsOld && i % 3 === 1 ? oldFor(r) : undefined;
          const w = i % chains.length;
          const world = worlds?.[w];
          const ns = (r.metadata as Obj | undefined)?.namespace;
          const nsName = ns === undefined ? (BUILTIN_RESOURCES.find((x) => x.kind === r.kind)?.namespaced === false ? undefined : 'default') : String(ns);
          const namespace = world && nsName ? namespaceIn(world, nsName) : undefined;
          const userInfo = users.length ? users[Math.floor(i / 3) % users.length] : undefined;
          const verdict = await vapVerdict(chains[w], r, operation, { namespace, oldObject: old, userInfo });
          return { r, operation, old, w, world, namespace, userInfo, verdict };
        },
        ({ r, operation, old, w, world, namespace, userInfo, verdict }) => {
          if (verdict.verdict === 'invalid') return;
          const admitted = JSON.stringify(verdict.admitted);
          if (readsOld) previous.set(`${String(r.apiVersion)}/${String(r.kind)}`, verdict.admitted as Obj);
          objects.add(admitted);
          if (verdict.reached) reaching.add(admitted);
          decided.set(JSON.stringify([admitted, operation, w, old ?? null, userInfo ?? null]), {
            admitted: verdict.admitted,
            operation,
            ...(old ? { oldResource: old } : {}),
            ...(userInfo ? { userInfo } : {}),
            ...(world ? cluster(world, namespace) : {}),
            vap: verdict.verdict === 'error' ? 'deny' : verdict.verdict,
            ...(verdict.reached ? { action: producedAction(c.objects, verdict.policies ?? []) } : {}),
          });
        },
      );
    }
    // the requests not yet asked
    const unique = [...decided.values()].slice(asked);
    asked += unique.length;
    const answers = await decide(policy, unique);
    unique.forEach((d, i) => {
      const reaches = kyvernoReached(answers[i], name);
      if (reaches) reached.add(JSON.stringify(d.admitted));
      out.tried++;
      // where both reach the rule, the action a failure gets (Enforce: denied; Audit) must be the same too
      const action = reaches && d.action ? kyvernoAction(answers[i], name) : undefined;
      const kyverno = `${kyvernoVerdict(answers[i], name)}${action ? `, action ${action}` : ''}`;
      const vap = `${d.vap}${action ? `, action ${d.action}` : ''}`;
      if (kyverno !== vap)
        out.disagreements.push({
          resource: d.admitted,
          operation: d.operation,
          ...(d.oldResource ? { oldResource: d.oldResource } : {}),
          ...(d.userInfo ? { userInfo: d.userInfo } : {}),
          ...(d.configMaps ? { configMaps: d.configMaps, namespace: d.namespace } : {}),
          kyverno: answers[i].error ? `error: ${answers[i].error}` : kyverno,
          vap,
        });
    });
    if (reached.size >= count || reached.size === 0) break;
    target = Math.ceil((reaching.size * (count + Math.ceil(count / 10))) / reached.size);
  }
  out.objects = objects.size;
  out.reached = reached.size;
  out.disagreements.sort((a, b) => JSON.stringify(a.resource).length - JSON.stringify(b.resource).length);
  return out;
}

/**
 * The differential over a folder of policies (differential.test.ts): every converted rule against
 * Kyverno; the rules called exact that disagree or that too few objects reach. `reportFile`: each
 * rule's status and counts as JSON, written after every rule.
 */
export async function corpusDifferential(root: string, mutants: number, reportFile?: string): Promise<{ exact: number; wrong: string[] }> {
  const decide = async (policy: Obj, requests: DifferentialRequest[]): Promise<OracleAnswer[]> =>
    (await decideKyverno(requests.map(({ admitted, ...r }): KyvernoRequest => ({ policy, resource: admitted, ...r })))) as OracleAnswer[];
  const results: RuleDifferential[] = [];
  const all: { policy: string; rule: string; type: string; status: string; reason?: string }[] = [];
  const report = () => {
    if (!reportFile) return;
    const differential = results.map((r) => ({ ...r, disagreements: r.disagreements.slice(0, 1), count: r.disagreements.length }));
    writeFileSync(reportFile, JSON.stringify({ rules: all, differential }, null, 1));
  };
  for (const folder of readKyvernoFolders(root)) {
    for (const policy of folder.policies) {
      for (const rule of ((policy.spec as Obj).rules as Obj[]) ?? []) {
        const c = convertPatternRule(policy, rule);
        all.push({ policy: String((policy.metadata as Obj).name), rule: String(rule.name), type: c.type, status: c.status, reason: c.reason });
        // mutate rules have their own differential (mutate.differential.test.ts)
        if (c.status === 'unsupported' || c.type === 'mutate') continue;
        results.push(
          await differential(policy, rule, folder.resources, mutants, decide, folder.values[`${String((policy.metadata as Obj).name)}/${String(rule.name)}`]),
        );
        // after every rule: a library run stopped part-way still reports the rules it did
        report();
      }
    }
  }
  report();
  const exact = results.filter((r) => r.status === 'exact');
  const wrong = exact
    // mutants distinct objects decided alike, at least three quarters of them reaching the rule (the
    // library measure, scripts/kyverno-pattern-measure.mjs, asks all mutants to reach it; four
    // foreach and image-tag fixture rules stop at 165–199 here: the generator's objects run out)
    .filter((r) => r.disagreements.length > 0 || r.objects < mutants || r.reached < (mutants * 3) / 4)
    .map(
      (r) =>
        `${r.policy}/${r.rule}: ${r.disagreements.length} of ${r.tried} disagree (${r.objects} objects, ${r.reached} reaching the rule); smallest: ${JSON.stringify(r.disagreements[0] ?? {}).slice(0, 1500)}`,
    );
  return { exact: exact.length, wrong };
}
