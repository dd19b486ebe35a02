/**
 * The differential of the Kyverno converter (test support): Kyverno's engine (the oracle) on a
 * source policy and the Workbench (src/policy, the apiserver's CEL) on the produced admission
 * policies decide the same admission requests; verdicts per source rule: fail / pass / skip / error.
 */
import { kindOf, nameOf, namespaceOf, obj, str, type Obj } from '../../src/base/json';
import { DEFAULT_KUBERNETES_VERSION } from '../../src/base/releases';
import { evaluate } from '../../src/cel';
import { isClusterScoped, NAMESPACE_NAME_LABEL, resourceForKind } from '../../src/k8s/resources';
import type { Conversion, RuleResult } from '../../src/migrate';
import { runValidatingPolicy } from '../../src/policy';
import { admittedInput } from '../../src/request/admitted';
import type { TestInput } from '../../src/request/model';
import { mutants } from './mutants';
import { decideKyverno, type KyvernoAnswer } from './oracle';

const cel = { evaluate };
export type Verdict = 'fail' | 'pass' | 'skip' | 'error';

/**
 * The admission decision a verdict makes: Kyverno blocks a request on a failed rule (Enforce) and on
 * a rule error (its default failurePolicy Fail: pkg/webhooks/utils BlockRequest); the apiserver denies
 * on a failed validation (Deny) and on an evaluation error (failurePolicy Fail, the default).
 * Which of the two a denial is (a failed expression or an error) is worded differently by the two
 * engines for the same request (Kyverno's legacy CEL rules report errors as failures).
 */
export const decision = (v: Verdict): 'deny' | 'admit' => (v === 'fail' || v === 'error' ? 'deny' : 'admit');

export const merge = (vs: Verdict[]): Verdict => (vs.includes('error') ? 'error' : vs.includes('fail') ? 'fail' : vs.includes('pass') ? 'pass' : 'skip');

/** Kyverno's verdict for one source rule (a legacy rule with its autogen rules; a CEL policy: all its responses). */
export function kyvernoVerdict(answer: KyvernoAnswer, rule: RuleResult): Verdict {
  if (answer.error) return 'error';
  const legacy = rule.source.kind === 'ClusterPolicy' || rule.source.kind === 'Policy';
  const own = answer.results.filter(
    (r) =>
      !legacy || r.rule === rule.source.rule || `autogen-${rule.source.rule}`.startsWith(r.rule) || `autogen-cronjob-${rule.source.rule}`.startsWith(r.rule),
  );
  return merge(own.map((r) => (r.status === 'warning' ? 'fail' : r.status)));
}

export interface Request {
  input: TestInput;
  resource: Obj;
}

/** A request for `object` as `kyverno test` submits it: CREATE, namespaced objects in 'default' unless they say. */
export async function requestFor(object: Obj, labels: Map<string, Record<string, string>>): Promise<Request> {
  const [group, version] = str(object.apiVersion).includes('/') ? str(object.apiVersion).split('/') : ['', str(object.apiVersion)];
  const kind = kindOf(object);
  const namespaced = !isClusterScoped(kind);
  const ns = namespaced ? namespaceOf(object) || 'default' : '';
  const o = namespaced && !namespaceOf(object) ? { ...object, metadata: { ...obj(object.metadata), namespace: ns } } : object;
  const input: TestInput = {
    request: {
      operation: 'CREATE',
      kind: { group: group!, version: version!, kind },
      resource: { group: group!, version: version!, resource: resourceForKind(kind) },
      name: nameOf(o),
      ...(ns ? { namespace: ns } : {}),
      object: o,
    },
    ...(ns
      ? { namespaceObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...(labels.get(ns) ?? {}), [NAMESPACE_NAME_LABEL]: ns } } } }
      : {}),
  };
  const admitted = await admittedInput(input, DEFAULT_KUBERNETES_VERSION);
  return { input: admitted, resource: admitted.request.object as Obj };
}

/** The Workbench's verdict: the rule's produced validating policies, each bound with Deny. */
export async function workbenchVerdict(produced: Obj[], input: TestInput): Promise<Verdict> {
  const verdicts: Verdict[] = [];
  for (const p of produced.filter((o) => o.kind === 'ValidatingAdmissionPolicy')) {
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `${nameOf(p)}-test` },
      spec: { policyName: nameOf(p), validationActions: ['Deny'] },
    };
    const r = await runValidatingPolicy({ ...input, policy: p, bindings: [binding] }, cel);
    verdicts.push(r.errors.length ? 'error' : r.outcome === 'deny' ? 'fail' : r.outcome === 'skip' ? 'skip' : 'pass');
  }
  return merge(verdicts);
}

export interface RuleDifferential {
  rule: RuleResult;
  tried: number;
  /** Requests on which the two decide differently (admit / deny), the first few described. */
  disagreements: number;
  /** Requests decided alike where the verdicts differ (fail vs error, pass vs skip). */
  verdictDifferences: number;
  /** Kyverno's verdicts on the requests, counted. */
  kyverno: Record<Verdict, number>;
  examples: string[];
}

/**
 * Every convertible rule of `conversion` (with a validating policy produced) decided by both on
 * `resources` and `perResource` mutants of each.
 */
export async function differential(
  policies: readonly Obj[],
  conversion: Conversion,
  resources: readonly Obj[],
  labels: Map<string, Record<string, string>>,
  perResource = 30,
): Promise<RuleDifferential[]> {
  const requests: Request[] = [];
  for (const r of resources) for (const m of [r, ...(mutants(r, perResource) as Obj[])]) requests.push(await requestFor(m, labels));
  const out: RuleDifferential[] = [];
  // Kyverno decides the whole policy (every rule's response) on a request: once a policy, not once a rule
  const decided = new Map<Obj, Promise<KyvernoAnswer[]>>();
  for (const rule of conversion.rules) {
    if (rule.status === 'unsupported') continue;
    const produced = conversion.objects.filter((o) => rule.produced.includes(`${kindOf(o)}/${nameOf(o)}`));
    if (!produced.some((o) => o.kind === 'ValidatingAdmissionPolicy')) continue;
    const policy = policies.find((p) => nameOf(p) === rule.source.name && kindOf(p) === rule.source.kind);
    if (!policy) continue;
    if (!decided.has(policy))
      decided.set(
        policy,
        decideKyverno(
          requests.map((q) => ({
            policy,
            resource: q.resource,
            plural: q.input.request.resource.resource,
            namespaceLabels: obj(obj(q.input.namespaceObject).metadata).labels as Record<string, string> | undefined,
          })),
        ),
      );
    const answers = await decided.get(policy)!;
    const d: RuleDifferential = {
      rule,
      tried: requests.length,
      disagreements: 0,
      verdictDifferences: 0,
      kyverno: { fail: 0, pass: 0, skip: 0, error: 0 },
      examples: [],
    };
    for (let i = 0; i < requests.length; i++) {
      const k = kyvernoVerdict(answers[i]!, rule);
      d.kyverno[k]++;
      const w = await workbenchVerdict(produced, requests[i]!.input);
      if (k === w) continue;
      if (decision(k) === decision(w)) {
        d.verdictDifferences++;
        continue;
      }
      d.disagreements++;
      if (d.examples.length < 3)
        d.examples.push(
          `${kindOf(requests[i]!.resource)} ${nameOf(requests[i]!.resource)} #${i}: Kyverno ${k}, Workbench ${w} ${JSON.stringify(answers[i]!.error ?? answers[i]!.results.map((r) => r.message)).slice(0, 300)}`,
        );
    }
    out.push(d);
  }
  return out;
}
