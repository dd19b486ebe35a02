/**
 * Test support for the pattern converter: reads Kyverno policy folders (policy YAML, its
 * `.kyverno-test/kyverno-test.yaml` and resources) and decides a converted rule on a resource with
 * the Workbench's admission chain (the produced policy and binding, the binding set to Deny so the
 * rule's verdict shows whatever its failure action).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type PreparedChain, prepareChain, simulatePrepared } from '../../admission';
import type { Obj } from '../../base/json';
import { BUILTIN_RESOURCES, resourceForKind } from '../../k8s/resources';

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
      const folder: KyvernoFolder = { dir, policies, resources: [], results: [] };
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
  message?: string;
}

/** The admission chain of the produced objects, the binding's actions set to Deny (the rule's verdict, whatever its failure action). */
export const chainOf = (produced: readonly Obj[]): PreparedChain =>
  prepareChain(produced.map((o) => (o.kind === 'ValidatingAdmissionPolicyBinding' ? { ...o, spec: { ...(o.spec as Obj), validationActions: ['Deny'] } } : o)));

/** What the chain answers for `object` on CREATE, and the object as admission decoded it. */
export async function vapVerdict(chain: PreparedChain, object: Obj): Promise<VapVerdict> {
  const { group, version, resource, kind } = gvrOf(object);
  const metadata = (object.metadata as Obj | undefined) ?? {};
  const r = await simulatePrepared(chain, {
    operation: 'CREATE',
    resource: { group, version, resource },
    kind: { group, version, kind },
    name: String(metadata.name ?? ''),
    namespace:
      metadata.namespace === undefined ? (BUILTIN_RESOURCES.find((x) => x.kind === kind)?.namespaced === false ? '' : 'default') : String(metadata.namespace),
    userInfo: { username: 'kyverno-test', groups: ['system:authenticated'] },
    object,
  });
  const admitted = r.admitted ?? object;
  if (r.allowed) return { verdict: 'allow', admitted };
  if (r.deniedBy?.kind !== 'ValidatingAdmissionPolicy') return { verdict: 'invalid', admitted, message: r.deniedBy?.message };
  const step = r.steps.find((s) => s.kind === 'ValidatingAdmissionPolicy' && s.outcome === 'error-rejected');
  return { verdict: step ? 'error' : 'deny', admitted, message: r.deniedBy?.message };
}
