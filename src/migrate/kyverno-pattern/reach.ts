/**
 * Resources that reach a rule, for the differential (test support): built from the rule itself,
 * not from its folder's test resources, which often hold no object of the kinds it matches. Each
 * kind the rule matches (with Kyverno's Pod controllers) gets an object named and labelled as the
 * match asks (names, namespaces, selector), its fields set so the pattern (each of `anyPattern`),
 * the deny conditions and the preconditions hold as far as a reading of their leaves goes; then one
 * copy per leaf set to a value that does not hold (its operator's other side) and one without it.
 * These are guesses: Kyverno (the oracle) and the converted policy decide them all the same.
 */
import type { Obj } from '../../base/json';
import { BUILTIN_RESOURCES, isClusterScoped, minimalObject } from '../../k8s/resources';
import { kindsOf, ruleControllers, shiftPattern } from './autogen';
import { conditionSites } from './conditions';
import { leafCandidates, patternSites } from './mutants';
import { parseAnchor } from './pattern';

type Rec = Record<string, unknown>;

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

/** A glob's first instance: `*` and `?` as `a`. */
const instance = (glob: string) => glob.replace(/[*?]/g, 'a');
const globHolds = (glob: string, s: string) =>
  new RegExp(`^${[...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^$()[\]{}|\\/]/g, '\\$&'))).join('')}$`, 's').test(s);

const UNITS: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
/** A quantity's value (`1Gi`, `500m`, `3`), undefined when it is not one. */
function quantity(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^([+-]?[0-9.]+)([A-Za-z]*)$/.exec(v.trim()) : null;
  return m && m[2] in UNITS && !Number.isNaN(Number(m[1])) ? Number(m[1]) * UNITS[m[2]] : undefined;
}

/** Whether `v` holds for one condition of a leaf (an operator and its operand), roughly as pkg/engine/pattern reads it. */
function conditionHolds(cond: string, v: unknown): boolean {
  const c = cond.trim();
  const op = /^(>=|<=|>|<|!)?\s*(.*)$/s.exec(c) as RegExpExecArray;
  const [, o = '', operand] = op;
  const range = /^(.+?)(!?)-(.+)$/.exec(operand);
  if (!o && range && quantity(range[1]) !== undefined && quantity(range[3]) !== undefined) {
    const q = quantity(v);
    const inside = q !== undefined && q >= (quantity(range[1]) as number) && q <= (quantity(range[3]) as number);
    return range[2] ? q !== undefined && !inside : inside;
  }
  if (o && o !== '!') {
    const [a, b] = [quantity(v), quantity(operand)];
    if (a === undefined || b === undefined) return false;
    return o === '>' ? a > b : o === '>=' ? a >= b : o === '<' ? a < b : a <= b;
  }
  const s = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  const hit = s !== undefined && globHolds(operand, s);
  return o === '!' ? s !== undefined && !hit : hit;
}

/** Whether `v` holds for a leaf pattern (`|` of `&` of conditions; numbers and booleans equal). */
export function leafHolds(pattern: unknown, v: unknown): boolean {
  if (typeof pattern === 'string') return pattern.split('|').some((alt) => alt.split('&').every((c) => conditionHolds(c, v)));
  if (typeof pattern === 'number') return quantity(v) === pattern;
  return pattern === v;
}

/** A number or boolean that an operand names, and its neighbours (typed first: the field is likelier an int or a bool than a text). */
const typed = (operand: string): unknown[] =>
  /^[+-]?[0-9]+$/.test(operand)
    ? [Number(operand), Number(operand) + 1, Number(operand) - 1]
    : operand === 'true' || operand === 'false'
      ? [operand === 'true', operand !== 'true']
      : [];

/** Values the leaf's operators name, and their neighbours (the mutants' candidates, words first). */
function candidates(pattern: unknown): unknown[] {
  const words =
    typeof pattern === 'string'
      ? pattern.split(/[|&]/).flatMap((c) => {
          const operand = c.trim().replace(/^(>=|<=|>|<|!)\s*/, '');
          const parts = operand.split(/!?-(?=[0-9+])/);
          return [...parts.flatMap(typed), instance(operand), `${instance(operand)}-other`, 'other', ...parts.map(instance)];
        })
      : [];
  return [...words, ...leafCandidates(pattern).slice(7), ...leafCandidates(pattern).slice(0, 7)];
}

/** A value that holds for the leaf pattern (undefined: none found). */
export function satisfyLeaf(pattern: unknown): unknown {
  if (pattern === null || typeof pattern !== 'string') return pattern;
  return candidates(pattern).find((v) => leafHolds(pattern, v));
}

/** A value that does not hold for the leaf pattern (undefined: none found). */
export const violateLeaf = (pattern: unknown): unknown => candidates(pattern).find((v) => !leafHolds(pattern, v));

/**
 * An object that holds for `pattern`: every key set (anchors' keys too, so conditional anchors hold
 * and the rule's body is reached), negation anchors `X()` left out, wildcard keys instantiated.
 */
export function satisfy(pattern: unknown): unknown {
  if (Array.isArray(pattern)) return pattern.map(satisfy);
  if (!isRec(pattern)) return satisfyLeaf(pattern);
  const out: Rec = {};
  for (const [k, v] of Object.entries(pattern)) {
    const a = parseAnchor(k);
    if (a?.modifier === 'X' || a?.modifier === '<' || a?.modifier === '+') continue;
    const value = satisfy(v);
    if (value !== undefined) out[instance(a?.key ?? k)] = value;
  }
  return out;
}

/** `patch` merged into `base` (maps by key, lists element by element). */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(patch) && Array.isArray(base)) return patch.map((p, i) => (i < base.length ? deepMerge(base[i], p) : p));
  if (isRec(patch) && isRec(base)) {
    const out: Rec = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = k in base ? deepMerge(base[k], v) : v;
    return out;
  }
  return patch;
}

type Resource = Rec;

/** The resource filters of a match or exclude (flat, any, all). */
function filters(m: unknown): Rec[] {
  if (!isRec(m)) return [];
  return [...(m.resources ? [m.resources as Rec] : []), ...[...((m.any as Rec[]) ?? []), ...((m.all as Rec[]) ?? [])].map((e) => (e.resources as Rec) ?? {})];
}

const CONTROLLER_TEMPLATE: Record<string, { apiVersion: string; spec: (template: Rec) => Rec }> = {
  ReplicationController: { apiVersion: 'v1', spec: (template) => ({ selector: { app: 'example' }, template }) },
  CronJob: { apiVersion: 'batch/v1', spec: (template) => ({ schedule: '0 1 * * *', jobTemplate: { spec: { template } } }) },
};

/** A plain object of `kind` (a kind the match names: `Kind`, `version/Kind`, `group/version/Kind`). */
function plainObject(kindRef: string, namespace: string): Resource | undefined {
  const parts = kindRef.split('/');
  parts.push(...(parts.pop() as string).split('.'));
  // a subresource (`Kind/sub`, `Kind.sub`, `group/version/Kind/sub`): not a CREATE/UPDATE of the object
  if ((parts.length === 2 && /^[A-Z]/.test(parts[0])) || parts.length > 3) return undefined;
  const kind = parts[parts.length - 1] === '*' ? 'ConfigMap' : parts[parts.length - 1];
  const known = BUILTIN_RESOURCES.find((r) => r.kind === kind && r.until === undefined) ?? BUILTIN_RESOURCES.find((r) => r.kind === kind);
  const group = parts.length === 3 ? parts[0] : parts.length === 2 ? '' : (known?.group ?? 'example.com');
  const version = parts.length >= 2 ? parts[parts.length - 2] : (known?.version ?? 'v1');
  const extra = CONTROLLER_TEMPLATE[kind];
  const o = minimalObject(group === '*' ? (known?.group ?? '') : group, version === '*' ? (known?.version ?? 'v1') : version, kind, namespace);
  if (extra) {
    const podSpec = { containers: [{ name: 'app', image: 'registry.example.com/app:1.0' }], ...(kind === 'CronJob' ? { restartPolicy: 'Never' } : {}) };
    o.apiVersion = extra.apiVersion;
    o.spec = extra.spec({ metadata: { labels: { app: 'example' } }, spec: podSpec });
  }
  if (isClusterScoped(kind)) delete (o.metadata as Rec).namespace;
  return o;
}

/** Labels that a selector's matchLabels and matchExpressions (In, Exists) ask for. */
function selectorLabels(selector: unknown): Record<string, string> {
  if (!isRec(selector)) return {};
  const out: Record<string, string> = { ...((selector.matchLabels as Record<string, string>) ?? {}) };
  for (const e of (selector.matchExpressions as Rec[]) ?? []) {
    if (e.operator === 'In') out[String(e.key)] = String((e.values as string[])[0]);
    if (e.operator === 'Exists') out[String(e.key)] = 'x';
  }
  return out;
}

/** What the rule reads, as patterns rooted at a Pod (or the matched object): each alternative one list. */
function readPatterns(rule: Rec): unknown[][] {
  const v = (rule.validate as Rec | undefined) ?? {};
  const pre = conditionSites(rule.preconditions);
  const deny = conditionSites((v.deny as Rec | undefined)?.conditions);
  const bodies = v.pattern !== undefined ? [[v.pattern]] : Array.isArray(v.anyPattern) ? v.anyPattern.map((p) => [p]) : [[]];
  return bodies.map((b) => [...b, ...deny, ...pre]);
}

/** The objects the rule matches, one per kind (and per Pod controller), before the pattern is applied; with the shift for controllers. */
function plainTargets(policy: Obj, rule: Rec): { object: Resource; shift: (p: unknown) => unknown }[] {
  const out: { object: Resource; shift: (p: unknown) => unknown }[] = [];
  const excluded = filters(rule.exclude);
  const avoid = (globsOf: (f: Rec) => string[], pick: string) => (excluded.some((f) => globsOf(f).some((g) => globHolds(g, pick))) ? `${pick}-reach` : pick);
  for (const f of filters(rule.match)) {
    const names = [...((f.names as string[]) ?? []), ...(f.name ? [String(f.name)] : [])];
    const namespaces = (f.namespaces as string[]) ?? [];
    const name = avoid((e) => [...((e.names as string[]) ?? []), ...(e.name ? [String(e.name)] : [])], names.length ? instance(names[0]) : 'example');
    const namespace = avoid((e) => (e.namespaces as string[]) ?? [], namespaces.length ? instance(namespaces[0]) : 'default');
    const labels = selectorLabels(f.selector);
    for (const k of (f.kinds as string[]) ?? []) {
      const o = plainObject(k, namespace);
      if (!o) continue;
      const metadata = o.metadata as Rec;
      metadata.name = name;
      metadata.labels = { ...((metadata.labels as Rec) ?? {}), ...labels };
      out.push({ object: o, shift: (p) => p });
    }
  }
  if (kindsOf(rule.match).includes('Pod'))
    for (const c of ruleControllers(policy, rule)) {
      const o = plainObject(c, 'default');
      if (o) out.push({ object: o, shift: (p) => shiftPattern(p, c === 'CronJob' ? 'CronJob' : 'Deployment') });
    }
  return out;
}

/** Copies of `seed` with each leaf of `patterns` (shifted) set to each of its alternatives, to a value that does not hold, and removed. */
function violations(seed: Resource, patterns: unknown[]): Resource[] {
  const out: Resource[] = [];
  for (const p of patterns)
    for (const site of patternSites(p)) {
      if (site.path.length === 0 || isRec(site.pattern) || Array.isArray(site.pattern)) continue;
      const path = site.path.map((k) => (k === '[]' ? '0' : instance(k)));
      // each alternative of a `|` leaf held (a condition naming several kinds' apiVersions: each kind reaches with its own), then the leaf broken and removed
      const alternatives = typeof site.pattern === 'string' && site.pattern.includes('|') ? site.pattern.split('|').map(satisfyLeaf) : [];
      for (const value of [...alternatives, violateLeaf(site.pattern), undefined]) {
        const r = clone(seed);
        let cur: unknown = r;
        for (const k of path.slice(0, -1)) cur = isRec(cur) || Array.isArray(cur) ? (cur as Rec)[k] : undefined;
        if (!isRec(cur) && !Array.isArray(cur)) continue;
        const last = path[path.length - 1];
        if (value === undefined) delete (cur as Rec)[last];
        else (cur as Rec)[last] = value;
        out.push(r);
      }
    }
  return out;
}

/**
 * Resources that reach `rule` of `policy`: per matched kind, one object that holds for what the rule
 * reads (per `anyPattern` alternative) and its violations, leaf by leaf. Distinct, in a stable order.
 */
export function reachingResources(policy: Obj, rule: Rec): Obj[] {
  const out = new Map<string, Obj>();
  const add = (o: Resource) => {
    // a condition read on `metadata` itself may set it to a word: the request would not name the object
    if (!isRec(o.metadata)) return;
    const key = JSON.stringify(o);
    if (!out.has(key)) out.set(key, o as Obj);
  };
  for (const { object, shift } of plainTargets(policy, rule))
    for (const read of readPatterns(rule)) {
      const shifted = read.map(shift);
      // everything at once, then each read alone (conditions that exclude one another)
      const seed = shifted.reduce<unknown>((acc, p) => deepMerge(acc, satisfy(p)), object) as Resource;
      add(object);
      add(seed);
      for (const p of shifted) add(deepMerge(object, satisfy(p)) as Resource);
      for (const v of violations(seed, shifted)) add(v);
    }
  return [...out.values()];
}
