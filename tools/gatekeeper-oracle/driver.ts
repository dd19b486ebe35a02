/**
 * The differential of the standalone Gatekeeper conversion (test support): Gatekeeper v3.23's own
 * CEL driver (`gatekeeper-oracle review`: the constraint framework client with pkg/drivers/k8scel,
 * Gatekeeper's match) and the Workbench (src/policy, the apiserver's CEL) on the standalone policy
 * and binding of each constraint decide the same admission requests: the library samples' objects
 * and mutants of them, as CREATE and (the originals) as UPDATE of themselves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, kindOf, nameOf, type Obj } from '../../src/base/json';
import { evaluate } from '../../src/cel';
import { convertPolicies, type RuleResult } from '../../src/migrate/index';
import { runValidatingPolicy } from '../../src/policy';
import type { TestInput } from '../../src/request/model';
import { parseDocuments } from '../../src/yaml/index';
import { fixtureTree } from '../../fixtures';
import { requestFor } from '../kyverno-oracle/differential';
import { mutants } from '../kyverno-oracle/mutants';
import { runOracle } from '../go-oracle.mjs';
import { GATEKEEPER_FIXTURES, type OracleCase } from './cases';

const cel = { evaluate };
export type Verdict = 'fail' | 'pass' | 'skip' | 'error';
/** Gatekeeper denies on a violation and on an evaluation error (the CEL driver's failurePolicy Fail answers with a deny decision). */
export const denies = (v: Verdict) => v === 'fail' || v === 'error';

interface ReviewOut {
  error?: string;
  answers: { error?: string; results: { constraint: string; action: string; message: string }[] }[];
}

/** The sample objects of a library case (not its constraints), each file's documents. */
export function sampleObjects(c: OracleCase): Obj[] {
  const dir = `${c.name}/samples/`;
  return fixtureTree('gatekeeper')
    .filter((f) => f.startsWith(dir) && !/\/constraint\d*\.yaml$/.test(f))
    .flatMap((f) => parseDocuments(readFileSync(join(GATEKEEPER_FIXTURES, f), 'utf8')).documents.map((d) => d.object))
    .filter((o): o is Obj => isObject(o) && typeof o.kind === 'string' && o.kind !== 'AdmissionReview' && !/gatekeeper\.sh\//.test(String(o.apiVersion)));
}

/** The requests of a case: each object and its mutants as CREATE, the objects themselves as UPDATE of themselves. */
export async function requestsOf(objects: readonly Obj[], perObject: number): Promise<TestInput[]> {
  const out: TestInput[] = [];
  const labels = new Map<string, Record<string, string>>();
  for (const o of objects) {
    for (const m of [o, ...(mutants(o, perObject) as Obj[])]) out.push((await requestFor(m, labels)).input);
    const create = (await requestFor(o, labels)).input;
    out.push({ ...create, request: { ...create.request, operation: 'UPDATE', oldObject: create.request.object } });
  }
  return out;
}

export interface ConstraintDifferential {
  template: string;
  constraint: string;
  rule: RuleResult;
  tried: number;
  /** Requests one side denies and the other admits, the first few described. */
  disagreements: number;
  examples: string[];
}

/** The Workbench's verdict on the standalone objects of one constraint (its binding's match kept, its actions made Deny). */
async function workbenchVerdict(produced: Obj[], input: TestInput): Promise<Verdict> {
  const policy = produced.find((o) => o.kind === 'ValidatingAdmissionPolicy')!;
  const binding = produced.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding')!;
  const deny = { ...binding, spec: { ...(binding.spec as Obj), validationActions: ['Deny'] } };
  const r = await runValidatingPolicy({ ...input, policy, bindings: [deny] }, cel);
  return r.errors.length ? 'error' : r.outcome === 'deny' ? 'fail' : r.outcome === 'skip' ? 'skip' : 'pass';
}

/**
 * Both sides on every constraint of `cases` (their standalone conversion), each on its case's
 * requests. Gatekeeper holds each constraint alone (a fresh client per constraint): the library
 * gives several samples' constraints the same name.
 */
export async function driverDifferential(
  bin: string,
  cases: readonly OracleCase[],
  perObject: number,
  objectsOf: (c: OracleCase) => Obj[] = sampleObjects,
): Promise<ConstraintDifferential[]> {
  const requests = await Promise.all(cases.map((c) => requestsOf(objectsOf(c), perObject)));
  const pairs = cases.flatMap((c, i) => c.constraints.map((constraint) => ({ c, constraint, requests: requests[i]! })));
  const input = pairs.map((p) => ({
    template: p.c.template,
    constraints: [p.constraint],
    requests: p.requests.map((q) => ({ request: q.request, namespace: q.namespaceObject ?? null })),
  }));
  const outs = JSON.parse(await runOracle(bin, JSON.stringify(input), ['review'])) as ReviewOut[];
  const result: ConstraintDifferential[] = [];
  for (const [i, { c, constraint, requests: qs }] of pairs.entries()) {
    const out = outs[i]!;
    if (out.error) throw new Error(`${c.name}: Gatekeeper: ${out.error}`);
    const conv = convertPolicies([c.template, constraint], { kubernetesVersion: '1.37', gatekeeper: 'standalone' });
    const rule = conv.rules.find((r) => r.source.kind === kindOf(constraint) && r.source.name === nameOf(constraint))!;
    const d: ConstraintDifferential = { template: nameOf(c.template), constraint: nameOf(constraint), rule, tried: 0, disagreements: 0, examples: [] };
    result.push(d);
    if (rule.status === 'unsupported') continue;
    const produced = conv.objects.filter((o) => rule.produced.includes(`${kindOf(o)}/${nameOf(o)}`));
    for (const [j, q] of qs.entries()) {
      const answer = out.answers[j]!;
      const theirs: Verdict = answer.error ? 'error' : answer.results.length ? 'fail' : 'pass';
      const ours = await workbenchVerdict(produced, q);
      d.tried++;
      if (denies(theirs) === denies(ours)) continue;
      d.disagreements++;
      if (d.examples.length < 3)
        d.examples.push(
          `${q.request.operation} ${kindOf(q.request.object as Obj)} #${j}: Gatekeeper ${theirs} ${JSON.stringify(answer.error ?? answer.results.map((r) => r.message)).slice(0, 200)}, Workbench ${ours}`,
        );
    }
  }
  return result;
}
