/**
 * The Kyverno oracle from TypeScript (tests only): builds tools/kyverno-oracle through
 * go-oracle.mjs (cached; KYVERNO_ORACLE=path uses another binary) and decides requests in one
 * process per test worker, started on the first request and kept for the next ones (Kyverno's
 * engine starts in seconds of CPU on a busy machine, and every rule of a differential is a batch;
 * one engine deciding many policies is how Kyverno's own webhook runs). Protocol: main.go.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { buildOracleAsync, ORACLE_BUILDS } from '../go-oracle.mjs';

/** One decision to make: a Kyverno policy (legacy kyverno.io/v1 or policies.kyverno.io ValidatingPolicy) on a resource. */
export interface KyvernoRequest {
  policy: unknown;
  resource: unknown;
  /** UPDATE: the object before (default: the resource itself, as `kyverno test` does); DELETE: the object deleted. */
  oldResource?: unknown;
  /** CREATE (default), UPDATE or DELETE. */
  operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  /** Labels of the resource's Namespace (namespaceSelector, namespaceObject). */
  namespaceLabels?: Record<string, string>;
  userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The resource's plural (default: apimachinery's guess from the kind, as the CLI does offline). */
  plural?: string;
  /** The request's subresource (legacy policies: `status` for a rule matching `Node/status`). */
  subresource?: string;
  /** Legacy policies: values of variables (a kyverno-test values file's). */
  variables?: Record<string, unknown>;
  /** Legacy policies: the cluster's ConfigMaps, resolved by configMap context entries (absent: those entries are not loaded). */
  configMaps?: unknown[];
  /** Legacy policies: the request's Namespace, answered to an apiCall of `/api/v1/namespaces/<name>` (absent: apiCall entries are not loaded). */
  namespace?: unknown;
}

/** Kyverno's RuleStatus; `warning` only for rules whose failure action is a warning. */
export type KyvernoRuleStatus = 'pass' | 'fail' | 'skip' | 'error' | 'warning';

export interface KyvernoRuleResult {
  policy: string;
  /** The rule's name (legacy policies; `autogen-…` for the pod-controller rules); '' for a ValidatingPolicy. */
  rule: string;
  status: KyvernoRuleStatus;
  message?: string;
  /** Kyverno generated it from the source (pod-controller autogen). */
  generated?: boolean;
  /** A legacy validate rule: the action Kyverno's webhook takes when it fails on this request (Enforce: denied). */
  action?: 'Enforce' | 'Audit';
}

export interface KyvernoAnswer {
  /** Every rule response Kyverno gave (none: the policy did not match the resource). */
  results: KyvernoRuleResult[];
  /** A legacy policy with mutate rules: the resource after them (Kyverno's patched resource). */
  patched?: unknown;
  /** The request could not be decided (bad policy, unknown kind of policy …). */
  error?: string;
}

let oracle: Promise<(lines: string[]) => Promise<string[]>> | undefined;

interface Waiter {
  resolve: (line: string) => void;
  reject: (e: Error) => void;
}

/** The running oracle: `ask` writes request lines and resolves with the answer lines, in order. */
function start(path: string): (lines: string[]) => Promise<string[]> {
  const child = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: Waiter[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  createInterface({ input: child.stdout }).on('line', (l) => {
    if (l.trim() === '') return;
    waiting.shift()?.resolve(l);
    // idle: the process must not keep the worker alive
    if (!waiting.length) idle(true);
  });
  const fail = (why: string) => {
    oracle = undefined;
    for (const w of waiting.splice(0)) w.reject(new Error(`${path} ${why}\nstderr: ${stderr}`));
  };
  child.on('exit', (code, signal) => fail(`exited with ${code ?? signal}`));
  child.on('error', (e) => fail(e.message));
  child.stdin.on('error', (e) => fail(e.message));
  // the pipes are sockets (ref/unref), typed as plain streams
  const handles = [child, child.stdout, child.stderr, child.stdin] as unknown as { ref(): void; unref(): void }[];
  const idle = (yes: boolean) => {
    for (const h of handles) yes ? h.unref() : h.ref();
  };
  process.once('exit', () => child.kill());
  idle(true);
  return (lines) => {
    idle(false);
    const answers = lines.map((): Promise<string> => new Promise((resolve, reject) => waiting.push({ resolve, reject })));
    child.stdin.write(`${lines.join('\n')}\n`);
    return Promise.all(answers);
  };
}

/**
 * A request's line, its policy's JSON made once per call (`policies`): a differential sends one
 * policy with each of hundreds of requests. The oracle reads the line as JSON, whatever the order of its members.
 */
const lineOf =
  (policies: Map<unknown, string>) =>
  ({ policy, ...rest }: KyvernoRequest): string => {
    if (policy === undefined) return JSON.stringify(rest);
    let p = policies.get(policy);
    if (p === undefined) policies.set(policy, (p = JSON.stringify(policy)));
    const tail = JSON.stringify(rest);
    return tail === '{}' ? `{"policy":${p}}` : `{"policy":${p},${tail.slice(1)}`;
  };

/** Builds (or finds) the oracle and decides every request, in order. */
export async function decideKyverno(requests: readonly KyvernoRequest[]): Promise<KyvernoAnswer[]> {
  if (requests.length === 0) return [];
  oracle ??= (async () => start(process.env.KYVERNO_ORACLE ?? (await buildOracleAsync(ORACLE_BUILDS['kyverno-oracle'])).path))();
  const ask = await oracle;
  // one line a request: a request's JSON never holds a newline
  const lines = await ask(requests.map(lineOf(new Map())));
  return lines.map((l) => JSON.parse(l) as KyvernoAnswer);
}
