/**
 * A rule's `context` where native admission carries the same information, after kyverno v1.19
 * pkg/engine/context/loaders and pkg/engine/context/deferred.go: each entry becomes a policy
 * variable holding a CEL pair `[status, value]` (status non-zero: loading it failed), loaded by a
 * query whose text names it (jmespath-cel.ts Roots.loads), read through its name.
 *
 * - `variable` (value / jmesPath / default): loaders/variable.go — jmesPath alone: a failed or
 *   nil query gives the default, else errs; on a value: a failed query gives the default, a nil
 *   one errs; the value is stored through JSON (an int reads back as a float64).
 * - `configMap` (constant name and namespace): the policy's param (paramKind ConfigMap; the
 *   binding's paramRef, parameterNotFoundAction Deny: a missing ConfigMap is an error in Kyverno);
 *   the entry reads `{data, metadata}` of it.
 * - an `apiCall` of the request's own Namespace (`/api/v1/namespaces/{{request.namespace}}`) with
 *   a jmesPath reading its labels, annotations or name: `namespaceObject` (the fields the apiserver
 *   gives CEL; null for cluster-scoped requests, so every kind the rule matches must be namespaced).
 *
 * Other entries (API calls of lists or other objects, image registries, global context) are not
 * converted: admission has no such data.
 */
import { BUILTIN_RESOURCES } from '../../k8s/resources';
import { kindsOf } from './autogen';
import { autogenConditions, neverText, type Scope } from './conditions';
import { JmesPathError, type JpNode, parseJmesPath } from './jmespath';
import { type ContextLoad, JpCompiler, literalCel, namesEntry } from './jmespath-cel';
import { bind, Names } from './jmespath-values';
import { Unsupported } from './pattern';

type Rec = Record<string, unknown>;
type Kind = 'Pod' | 'Deployment' | 'CronJob';

export interface RuleContext {
  /** The policy's variables, one an entry, in order (a later one reads the earlier ones). */
  variables: { name: string; expression: string }[];
  scope: Scope;
  /** The ConfigMap the policy takes as its param. */
  param?: { name: string; namespace: string };
  /** The entries' names, each with the names its own texts load (for the first query's reach). */
  entries: { name: string; text: string }[];
}

const ERR = '[dyn(2), dyn(null)]';
const ok = (v: string) => `[dyn(0), dyn(${v})]`;
const hasVar = (v: unknown) => JSON.stringify(v ?? null).includes('{{') || JSON.stringify(v ?? null).includes('$(');
/** A value stored through JSON (ReplaceContextEntry): ints read back as float64, in scalars and lists. */
const jsonRoundTrip = (names: Names, v: string) =>
  bind(
    names,
    v,
    (x) => {
      const e = names.next('r');
      return `(type(${x}) == int || type(${x}) == uint ? dyn(double(${x})) : type(${x}) == list ? dyn(${x}.map(${e}, type(${e}) == int || type(${e}) == uint ? dyn(double(${e})) : ${e})) : ${x})`;
    },
    'rt',
  );

function parse(text: string, where: string): JpNode {
  if (hasVar(text)) throw new Unsupported(`${where}: a variable inside the JMESPath ${JSON.stringify(text)}`);
  try {
    return parseJmesPath(text);
  } catch (e) {
    if (e instanceof JmesPathError) throw new Unsupported(`${where}: ${JSON.stringify(text)} (${e.message})`);
    throw e;
  }
}

/** Whether a query of the Namespace reads only what namespaceObject carries of it: metadata.labels, annotations, name. */
function readsNamespaceObject(n: JpNode): boolean {
  const path = (x: JpNode): string[] | undefined =>
    x.type === 'Field' ? [x.name] : x.type === 'Sub' ? ((l, r) => (l && r ? [...l, ...r] : undefined))(path(x.left), path(x.right)) : undefined;
  switch (n.type) {
    case 'Literal':
      return true;
    case 'Sub': {
      const p = path(n);
      if (p) return p[0] === 'metadata' && ['labels', 'annotations', 'name'].includes(p[1] ?? '');
      return n.left.type === 'Sub' && readsNamespaceObject(n.left);
    }
    case 'Or':
    case 'And':
    case 'Comparator':
      return readsNamespaceObject(n.left) && readsNamespaceObject(n.right);
    case 'Not':
      return readsNamespaceObject(n.child);
    case 'Pipe':
    case 'Projection':
    case 'Filter':
    case 'IndexExpression':
      return readsNamespaceObject(n.left);
    case 'Flatten':
      return readsNamespaceObject(n.child);
    case 'Function':
      return n.args.every(readsNamespaceObject);
    case 'MultiList':
      return n.items.every(readsNamespaceObject);
    case 'MultiHash':
      return n.items.every(([, i]) => readsNamespaceObject(i));
    default:
      return false;
  }
}

const NAMESPACE_URL = /^\/api\/v1\/namespaces\/\{\{\s*(request\.namespace|request\.object\.metadata\.namespace)\s*\}\}$/;

/** One entry as CEL (a pair) for the rule's shape `kind`; `prior`: the entries before it. */
function entryCel(e: Rec, kind: Kind, prior: Scope, rule: Rec, param: { current?: RuleContext['param'] }, policy: Rec): { cel: string; neverText: boolean } {
  const name = String(e.name);
  const where = `context ${name}`;
  const names = new Names();
  if (e.variable !== undefined) {
    if (e.variable !== null && (typeof e.variable !== 'object' || Array.isArray(e.variable))) throw new Unsupported(`${where}: a variable that is not a map`);
    const v = (e.variable ?? {}) as Rec;
    const unknown = Object.keys(v).filter((k) => !['value', 'jmesPath', 'default'].includes(k));
    if (unknown.length) throw new Unsupported(`${where}: variable with ${unknown.join(', ')}`);
    if (hasVar(v.value) || hasVar(v.default)) throw new Unsupported(`${where}: a variable inside the value or default`);
    const def = v.default === undefined || v.default === null ? ERR : ok(literalCel(v.default));
    const plainDefault = v.default === undefined || v.default === null || typeof v.default !== 'string' || !/^\s*\[|\d-/.test(v.default);
    const jp = new JpCompiler({ ...prior, object: 'object', operation: 'request.operation' });
    if (typeof v.jmesPath === 'string' && v.jmesPath.trim()) {
      const node = parse(v.jmesPath, where);
      const never = neverText(node) && plainDefault;
      try {
        if (v.value === undefined || v.value === null) {
          const c = jp.compile(node, v.jmesPath);
          if (c.depth) throw new Unsupported('a flattened list as a variable');
          return {
            cel: bind(names, c.cel, (p) => `(${p}[0] != 0 || ${p}[1] == null ? ${def} : ${ok(jsonRoundTrip(names, `${p}[1]`))})`, 'cv'),
            neverText: never,
          };
        }
        const c = jp.compileOn(node, literalCel(v.value));
        if (c.depth) throw new Unsupported('a flattened list as a variable');
        return { cel: bind(names, c.cel, (p) => `(${p}[0] != 0 ? ${def} : ${p}[1] == null ? ${ERR} : ${ok(`${p}[1]`)})`, 'cv'), neverText: never };
      } catch (x) {
        if (x instanceof Unsupported) throw new Unsupported(`${where}: ${x.message}`);
        throw x;
      }
    }
    const value = v.value ?? v.default;
    if (value === undefined || value === null) return { cel: ERR, neverText: true };
    return { cel: ok(literalCel(value)), neverText: typeof value !== 'string' || !/^\s*\[|\d-/.test(value) };
  }
  if (e.configMap !== undefined) {
    const c = (e.configMap ?? {}) as Rec;
    if (typeof c.name !== 'string' || hasVar(c.name) || (c.namespace !== undefined && (typeof c.namespace !== 'string' || hasVar(c.namespace))))
      throw new Unsupported(`${where}: a ConfigMap named by a variable`);
    // loaders/configmap.go: no namespace reads the policy's own (a ClusterPolicy: default)
    const ns = (policy.metadata as Rec | undefined)?.namespace;
    const namespace = String(c.namespace || (policy.kind === 'Policy' ? (ns ?? 'default') : 'default'));
    if (param.current && (param.current.name !== c.name || param.current.namespace !== namespace))
      throw new Unsupported(`${where}: a second ConfigMap (a policy has one param)`);
    param.current = { name: c.name, namespace };
    return { cel: ok(`{'data': has(params.data) ? dyn(params.data) : dyn(null), 'metadata': dyn(params.metadata)}`), neverText: false };
  }
  if (e.apiCall !== undefined) {
    const a = (e.apiCall ?? {}) as Rec;
    const url = typeof a.urlPath === 'string' ? a.urlPath.trim() : '';
    const m = NAMESPACE_URL.exec(url);
    if (!m || (a.method !== undefined && a.method !== 'GET') || a.data !== undefined || a.service !== undefined)
      throw new Unsupported(
        `${where}: apiCall ${(a.urlPath ?? a.service) ? JSON.stringify(a.urlPath ?? (a.service as Rec).url) : ''} (admission carries the request's own Namespace only)`,
      );
    if (typeof a.jmesPath !== 'string' || !a.jmesPath.trim())
      throw new Unsupported(`${where}: the whole Namespace (namespaceObject carries fewer fields than the API)`);
    const node = parse(a.jmesPath, where);
    if (!readsNamespaceObject(node)) throw new Unsupported(`${where}: a JMESPath reading more of the Namespace than its labels, annotations and name`);
    const kinds = [...kindsOf(rule.match), ...(kind === 'Pod' ? [] : [kind])];
    if (!kinds.length || kinds.some((k) => BUILTIN_RESOURCES.find((r) => r.kind === k)?.namespaced !== true))
      throw new Unsupported(`${where}: the Namespace of a request that may be cluster-scoped (namespaceObject is null there)`);
    // the generated rules for Pod controllers read the template's namespace (autogen rewrites request.object.metadata)
    if (m[1] !== 'request.namespace' && kind !== 'Pod') throw new Unsupported(`${where}: the Namespace of the Pod template`);
    let c: { cel: string; depth: number };
    try {
      c = new JpCompiler({ object: 'object', operation: 'request.operation' }).compileOn(node, 'dyn(namespaceObject)');
    } catch (x) {
      if (x instanceof Unsupported) throw new Unsupported(`${where}: ${x.message}`);
      throw x;
    }
    if (c.depth) throw new Unsupported(`${where}: a flattened list as a variable`);
    // request.object.metadata.namespace of a request without an object (DELETE) fails to substitute
    const noObject = m[1] === 'request.namespace' ? '' : 'object == null || ';
    return {
      cel: `(${noObject}namespaceObject == null ? ${ERR} : ${bind(names, c.cel, (p) => `(${p}[0] != 0 ? ${ERR} : ${ok(jsonRoundTrip(names, `${p}[1]`))})`, 'cn')})`,
      neverText: neverText(node),
    };
  }
  const what = Object.keys(e).find((k) => k !== 'name') ?? 'an empty entry';
  throw new Unsupported(`${where}: ${what} (data native admission does not carry)`);
}

/** A `variable` entry's value when it is a constant text or list of texts (no jmesPath, no variable inside): what Kyverno stores. */
function constantValue(e: Rec): unknown {
  const v = e.variable as Rec | null | undefined;
  if (!v || typeof v !== 'object' || (typeof v.jmesPath === 'string' && v.jmesPath.trim()) || hasVar(v.value) || hasVar(v.default)) return undefined;
  const value = v.value ?? v.default;
  const text = (x: unknown) => typeof x === 'string';
  return text(value) || (Array.isArray(value) && value.every(text)) ? value : undefined;
}

/** The rule's context as policy variables (none: undefined); `controllers`: the Pod controllers its generated rules decide. */
export function ruleContext(policy: Rec, rule: Rec, controllers: readonly string[]): RuleContext | undefined {
  if (rule.context === undefined || rule.context === null) return undefined;
  if (!Array.isArray(rule.context)) throw new Unsupported('context that is not a list');
  const kinds: Kind[] = [
    'Pod',
    ...(controllers.some((k) => k !== 'CronJob') ? (['Deployment'] as const) : []),
    ...(controllers.includes('CronJob') ? (['CronJob'] as const) : []),
  ];
  const out: RuleContext = { variables: [], scope: { vars: {}, loads: [], neverText: new Set(), constants: {} }, entries: [] };
  const param: { current?: RuleContext['param'] } = {};
  const seen = new Set<string>();
  for (const [i, raw] of (rule.context as unknown[]).entries()) {
    const e = (raw ?? {}) as Rec;
    const name = String(e.name ?? '');
    // the name goes into Kyverno's loader regex as it is: plain identifiers only, none shadowing the request or a foreach element
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || /^(request|element\d*|elementIndex\d*|images|target)$/.test(name) || seen.has(name))
      throw new Unsupported(`context entry named ${JSON.stringify(name)}`);
    seen.add(name);
    const prior: Scope = { vars: { ...out.scope.vars }, loads: [...(out.scope.loads ?? [])] };
    const shaped = kinds.map((k) => ({ kind: k, ...entryCel(autogenConditions(e, k), k, prior, rule, param, policy) }));
    const pod = shaped[0];
    const others = shaped.slice(1).filter((s) => s.cel !== pod.cel);
    // the generated rules read the entry rewritten under the template: CronJobs, other controllers, Pods
    const expression = others.length
      ? shaped.slice(1).reduce((acc, s) => `(request.kind.kind ${s.kind === 'CronJob' ? "== 'CronJob'" : "!= 'Pod'"} ? ${s.cel} : ${acc})`, pod.cel)
      : pod.cel;
    const variable = `kyvernoContext${i}`;
    out.variables.push({ name: variable, expression });
    (out.scope.vars as Record<string, string>)[name] = `variables.${variable}[1]`;
    (out.scope.loads as ContextLoad[]).push({ name, status: `variables.${variable}[0]` });
    if (shaped.every((s) => s.neverText)) (out.scope.neverText as Set<string>).add(name);
    const constant = constantValue(e);
    if (constant !== undefined) (out.scope.constants as Record<string, unknown>)[name] = constant;
    out.entries.push({ name, text: JSON.stringify(e) });
  }
  if (param.current) out.param = param.current;
  return out;
}

/** The entries a query's text loads, with the ones their own texts load (a variable's jmesPath names earlier entries). */
export function loadedBy(ctx: RuleContext, text: string): Set<string> {
  const out = new Set<string>();
  const visit = (t: string, before: number) => {
    ctx.entries.slice(0, before).forEach((e, i) => {
      if (out.has(e.name) || !namesEntry(t, e.name)) return;
      out.add(e.name);
      visit(e.text.replace(/"name":"[^"]*"/, ''), i);
    });
  };
  visit(text, ctx.entries.length);
  return out;
}

/** The text of the first query Kyverno evaluates on every request the rule matches ('' for none). */
function firstQuery(rule: Rec): string {
  const first = (block: unknown): unknown => {
    if (Array.isArray(block)) return block[0];
    const b = (block ?? {}) as Rec;
    return (Array.isArray(b.any) && b.any.length ? b.any[0] : Array.isArray(b.all) ? b.all[0] : undefined) ?? undefined;
  };
  const v = (rule.validate ?? {}) as Rec;
  const c = (first(rule.preconditions) ?? first((v.deny as Rec | undefined)?.conditions)) as Rec | undefined;
  if (c) return `${JSON.stringify(c.key ?? null)} ${JSON.stringify(c.value ?? null)}`;
  if (Array.isArray(v.foreach)) return String((v.foreach[0] as Rec | undefined)?.list ?? '');
  return '';
}

/** A missing ConfigMap: the policy denies every request it matches; Kyverno errs only when a query loads the entry, so the two agree when the first query does. */
export function missingParamDifference(ctx: RuleContext, rule: Rec): string | undefined {
  if (!ctx.param) return undefined;
  const entry = (rule.context as Rec[]).find((e) => e.configMap !== undefined);
  if (entry && loadedBy(ctx, firstQuery(rule)).has(String(entry.name))) return undefined;
  return 'a missing ConfigMap: the policy denies every request it matches (parameterNotFoundAction Deny), Kyverno errs only where a query reads it';
}
