/**
 * Resources for the differential: mutants of a rule's test resources aimed at what the pattern
 * reads. Fields the pattern names removed or set across each operator's boundary (the operand,
 * one unit either side, wildcards hit and missed, other types), lists emptied, grown or shrunk,
 * anchors' keys set to match and not to match. Seeded, so a disagreement can be replayed.
 */
import { seededRandom } from '../../base/random';
import type { Obj } from '../../base/json';
import { parseAnchor } from './pattern';

type Seg = string | number;
type Rec = Record<string, unknown>;

interface Site {
  /** Pattern path: map keys (anchors stripped) and '[]' for any element. */
  path: string[];
  /** The pattern at the path (a leaf, or a map/list). */
  pattern: unknown;
}

/** Every path the pattern names, with the pattern there. */
export function patternSites(pattern: unknown, path: string[] = [], out: Site[] = []): Site[] {
  out.push({ path, pattern });
  if (Array.isArray(pattern)) for (const p of pattern) patternSites(p, [...path, '[]'], out);
  else if (pattern && typeof pattern === 'object')
    for (const [k, v] of Object.entries(pattern as Rec)) patternSites(v, [...path, parseAnchor(k)?.key ?? k], out);
  return out;
}

const QTY = /^([+-]?[0-9.]+)([A-Za-z]*)$/;

/** Values on and around each condition of a leaf pattern. */
export function leafCandidates(pattern: unknown): unknown[] {
  const out: unknown[] = ['', 'x', 0, 1, true, false, null];
  if (typeof pattern === 'number') out.push(pattern, pattern - 1, pattern + 1, String(pattern));
  if (typeof pattern === 'boolean') out.push(!pattern, String(pattern));
  if (typeof pattern !== 'string') return out;
  for (const alt of pattern.split(/[|&]/)) {
    const c = alt.trim().replace(/^(>=|<=|>|<|!)\s*/, '');
    for (const part of c.split(/!?-(?=[0-9+])/)) {
      const o = part.trim();
      if (!o) continue;
      const hit = o.replace(/\*/g, 'ab').replace(/\?/g, 'z');
      out.push(o, hit, o.replace(/\*/g, ''), `${hit}-x`, `x${hit}`, hit.slice(0, -1), hit.toUpperCase());
      const q = QTY.exec(o);
      if (q && !Number.isNaN(Number(q[1]))) {
        const n = Number(q[1]);
        for (const d of [-1, 0, 1]) out.push(`${n + d}${q[2]}`);
        if (!q[2] && Number.isInteger(n)) out.push(n, n - 1, n + 1);
        if (q[2] === 'Gi') out.push(`${n * 1024}Mi`, `${n * 1024 + 1}Mi`);
        if (q[2] === 'Mi') out.push(`${n * 1024}Ki`, `${n}M`);
        if (q[2] === '' && !o.includes('.')) out.push(`${n}m`, `${n * 1000 + 1}m`);
      }
    }
  }
  return out;
}

/** The concrete paths in `r` that a pattern path reaches (every element for '[]'). */
function concrete(r: unknown, path: string[], at: Seg[] = []): Seg[][] {
  if (path.length === 0) return [at];
  const [head, ...rest] = path;
  if (head === '[]') return Array.isArray(r) ? r.flatMap((e, i) => concrete(e, rest, [...at, i])) : [];
  if (r && typeof r === 'object' && !Array.isArray(r) && head in (r as Rec)) return concrete((r as Rec)[head], rest, [...at, head]);
  return [];
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function getAt(r: unknown, path: Seg[]): unknown {
  let cur = r;
  for (const s of path) cur = cur && typeof cur === 'object' ? (cur as Rec)[s as string] : undefined;
  return cur;
}

/** Sets `value` at a pattern path, creating maps and one-element lists on the way. */
function setVia(r: Rec, path: string[], value: unknown, pick: () => number): void {
  let cur: unknown = r;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    const nextIsList = path[i + 1] === '[]';
    if (seg === '[]') {
      const list = cur as unknown[];
      if (list.length === 0) list.push(last ? value : nextIsList ? [] : {});
      const idx = Math.floor(pick() * list.length);
      if (last) list[idx] = value;
      else if (!list[idx] || typeof list[idx] !== 'object') list[idx] = nextIsList ? [] : {};
      cur = list[idx];
      continue;
    }
    const m = cur as Rec;
    if (last) m[seg] = value;
    else if (!m[seg] || typeof m[seg] !== 'object' || Array.isArray(m[seg]) !== nextIsList) m[seg] = nextIsList ? [] : {};
    cur = m[seg];
  }
}

function mutateOnce(r: Rec, sites: Site[], pick: () => number): void {
  const site = sites[Math.floor(pick() * sites.length)];
  if (site.path.length === 0) return;
  const op = pick();
  const found = concrete(r, site.path);
  if (op < 0.25 && found.length) {
    // remove the field (or the element)
    const p = found[Math.floor(pick() * found.length)];
    const parent = getAt(r, p.slice(0, -1));
    const last = p[p.length - 1];
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else if (parent && typeof parent === 'object') delete (parent as Rec)[last as string];
    return;
  }
  if (op < 0.4 && Array.isArray(site.pattern) && found.length) {
    // lists emptied, grown (a copy of an element), or given an element of another kind
    const list = getAt(r, found[Math.floor(pick() * found.length)]) as unknown[];
    if (!Array.isArray(list)) return;
    const k = pick();
    if (k < 0.3) list.length = 0;
    else if (k < 0.8 && list.length) list.push(clone(list[Math.floor(pick() * list.length)]));
    else list.push(typeof site.pattern[0] === 'object' ? {} : 'x');
    return;
  }
  if (site.pattern !== null && typeof site.pattern === 'object') {
    if (pick() < 0.5) setVia(r, site.path, Array.isArray(site.pattern) ? [] : {}, pick);
    return;
  }
  const values = leafCandidates(site.pattern);
  // now and then a fresh value near the candidates, so a pattern that reads little still yields distinct resources
  const fresh = (v: unknown) => (typeof v === 'number' ? v + Math.floor(pick() * 2000) - 1000 : typeof v === 'string' ? `${v}${Math.floor(pick() * 1000)}` : v);
  const value = values[Math.floor(pick() * values.length)];
  setVia(r, site.path, clone(pick() < 0.25 ? fresh(value) : value), pick);
}

/**
 * Up to `count` distinct mutants of `seeds` (the seeds themselves excluded) for the patterns
 * `patterns`, 1–3 changes each. Fewer come back when the pattern reads too little to vary.
 */
export function mutants(seeds: readonly Obj[], patterns: readonly unknown[], count: number, seed = 1): Obj[] {
  const pick = seededRandom(seed);
  const sites = patterns.flatMap((p) => patternSites(p));
  const seen = new Set(seeds.map((s) => JSON.stringify(s)));
  const out: Obj[] = [];
  if (!seeds.length || !sites.length) return out;
  for (let attempt = 0; attempt < count * 20 && out.length < count; attempt++) {
    const r = clone(seeds[Math.floor(pick() * seeds.length)]) as Rec;
    const n = 1 + Math.floor(pick() * 3);
    for (let i = 0; i < n; i++) mutateOnce(r, sites, pick);
    // a label the pattern does not read: the verdict must not move (and the resource is new)
    // (not when a change made metadata a scalar: a condition reading `metadata` itself names it as a leaf)
    if (pick() < 0.2 && (r.metadata === undefined || (typeof r.metadata === 'object' && r.metadata !== null && !Array.isArray(r.metadata)))) {
      const m = ((r.metadata as Rec | undefined) ?? (r.metadata = {})) as Rec;
      m.labels = { ...((m.labels as Rec | undefined) ?? {}), [`mutant-${Math.floor(pick() * 100000)}`]: 'x' };
    }
    // the kind and name stay: the request is about the same resource
    const key = JSON.stringify(r);
    if (seen.has(key) || !r.kind || !r.apiVersion) continue;
    seen.add(key);
    out.push(r as Obj);
  }
  return out;
}
