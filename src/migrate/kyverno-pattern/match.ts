/**
 * A Kyverno rule's match/exclude as a ValidatingAdmissionPolicy's matchConstraints and
 * matchConditions: kinds (`Kind`, `group/version/Kind`, `Kind/subresource`), operations, names and
 * namespaces (with `*`/`?`), selector and namespaceSelector, subjects (the request's userInfo).
 * Kyverno matches a bare kind in any group, so a bare kind becomes every group and version of its
 * plural. Roles and clusterRoles need the authorizer's view and are not convertible.
 */
import type { Obj } from '../../base/json';
import { resourceForKind } from '../../k8s/resources';
import { Unsupported } from './pattern';
import { celString, wildcardCel } from './scalar';

type Block = Record<string, unknown>;

const DEFAULT_OPERATIONS = ['CREATE', 'UPDATE'];

/** One filter: its resource description, with its subjects (as `subjects`) when it has any. */
function filter(entry: Block, where: string): Block {
  for (const k of ['roles', 'clusterRoles']) if (entry[k]) throw new Unsupported(`${where}.${k} (needs the authorizer's view of the user)`);
  const resources = (entry.resources as Block | undefined) ?? {};
  return entry.subjects ? { ...resources, subjects: entry.subjects } : resources;
}

/** The resource filters of a match or exclude (`any`, `all` of one entry, or the flat form). */
function blocks(m: unknown, side: string): Block[] {
  if (!m || typeof m !== 'object') return [];
  const o = m as Block;
  const out: Block[] = [];
  if (o.resources || o.subjects || o.roles || o.clusterRoles) out.push(filter(o, side));
  for (const entry of (o.any as Block[] | undefined) ?? []) out.push(filter(entry, `${side}.any[]`));
  const all = (o.all as Block[] | undefined) ?? [];
  if (all.length > 1) throw new Unsupported(`${side}.all with several entries`);
  for (const entry of all) out.push(filter(entry, `${side}.all[]`));
  return out;
}

const KNOWN = new Set(['kinds', 'names', 'namespaces', 'operations', 'selector', 'namespaceSelector', 'name', 'subjects']);

/** pkg/utils/match CheckSubjects: a ServiceAccount, Group or User subject against the request's userInfo (wildcards in the names). */
function subjectsCel(subjects: unknown): string {
  // a request's userInfo leaves out what is empty: `has` first, so no error
  const username = `(has(request.userInfo.username) ? request.userInfo.username : '')`;
  if (!Array.isArray(subjects)) throw new Unsupported('subjects that are not a list');
  const one = (s: Block): string => {
    const name = String(s.name ?? '');
    if (s.kind === 'ServiceAccount') return wildcardCel(`system:serviceaccount:${String(s.namespace ?? '')}:${name}`, username);
    if (s.kind === 'Group') return `(has(request.userInfo.groups) && request.userInfo.groups.exists(g, ${wildcardCel(name, 'g')}))`;
    if (s.kind === 'User') return wildcardCel(name, username);
    // Kyverno's switch has no other case: such a subject never matches
    return 'false';
  };
  return subjects.length ? `(${subjects.map((s) => one((s ?? {}) as Block)).join(' || ')})` : 'true';
}

function resourceRule(kind: string, operations: string[]): Obj {
  // Kyverno splits the last part on '.' too (kube.ParseKindSelector): `TaskRun.status` is a subresource
  const parts = kind.split('/');
  parts.push(...(parts.pop() as string).split('.'));
  let group = '*';
  let version = '*';
  let k = kind;
  let sub = '';
  // Kind | Kind/sub | v1/Kind | group/version/Kind | group/version/Kind/sub
  if (parts.length === 2 && /^[A-Z*]/.test(parts[0])) [k, sub] = parts;
  else if (parts.length === 2) [version, k] = [parts[0], parts[1]];
  else if (parts.length === 3) [group, version, k] = parts;
  else if (parts.length === 4) [group, version, k, sub] = parts;
  if (parts.length === 2 && version === 'v1' && !sub) group = '';
  const plural = k === '*' ? '*' : resourceForKind(k);
  return { apiGroups: [group], apiVersions: [version], operations, resources: [sub ? `${plural}/${sub}` : plural] };
}

/** A CEL test of `value` against Kyverno names/namespaces (wildcards). */
const anyGlob = (value: string, globs: string[]) => globs.map((g) => wildcardCel(g, value)).join(' || ');

// the request's name is absent (not '') for an object without one: `has` first, so no error
const NAME = `(has(request.name) && request.name != '' ? request.name : (has(object.metadata) && has(object.metadata.generateName) ? object.metadata.generateName : ''))`;

/** pkg/utils/match CheckKind for a bare kind: any group and version, no subresource (a Pod's ephemeralcontainers too). */
function kindCel(kind: string): string {
  if (!/^[A-Za-z]+$/.test(kind)) throw new Unsupported(`exclude by the kind ${kind} (only bare kinds are read there)`);
  const sub = `!has(request.subResource) || request.subResource == ''${kind === 'Pod' ? " || request.subResource == 'ephemeralcontainers'" : ''}`;
  return `(request.kind.kind == ${celString(kind)} && (${sub}))`;
}

/** Names and namespaces of one filter (and, for an exclude, its kinds and operations) as a CEL condition. */
function filterCondition(b: Block, exclude = false): string | undefined {
  const parts: string[] = [];
  if (exclude && Array.isArray(b.operations) && b.operations.length)
    parts.push(`request.operation in [${b.operations.map((o) => celString(String(o))).join(', ')}]`);
  if (exclude && Array.isArray(b.kinds) && b.kinds.length) parts.push(`(${b.kinds.map((k) => kindCel(String(k))).join(' || ')})`);
  const names = [...((b.names as string[]) ?? []), ...(b.name ? [b.name as string] : [])];
  if (names.length) parts.push(`(${anyGlob(NAME, names)})`);
  if (Array.isArray(b.namespaces) && b.namespaces.length) parts.push(`(${anyGlob('request.namespace', b.namespaces as string[])})`);
  if (Array.isArray(b.subjects) && b.subjects.length) parts.push(subjectsCel(b.subjects));
  return parts.length ? parts.join(' && ') : undefined;
}

export interface MatchParts {
  matchConstraints: Obj;
  matchConditions: { name: string; expression: string }[];
}

export function matchOf(rule: Block): MatchParts {
  const match = blocks(rule.match, 'match');
  if (match.length === 0) throw new Unsupported('a rule without match.resources');
  const exclude = blocks(rule.exclude, 'exclude');
  for (const b of [...match, ...exclude]) for (const k of Object.keys(b)) if (!KNOWN.has(k)) throw new Unsupported(`match/exclude resources.${k}`);
  if (match.length > 1 && match.some((b) => b.selector || b.namespaceSelector)) throw new Unsupported('selectors in several match.any entries');
  if (exclude.some((b) => b.selector || b.namespaceSelector)) throw new Unsupported('exclude by selectors');
  const resourceRules = match.flatMap((b) => ((b.kinds as string[]) ?? []).map((k) => resourceRule(k, (b.operations as string[]) ?? DEFAULT_OPERATIONS)));
  const constraints: Obj = { resourceRules };
  if (match[0].selector) constraints.objectSelector = match[0].selector;
  if (match[0].namespaceSelector) constraints.namespaceSelector = match[0].namespaceSelector;
  const conditions: MatchParts['matchConditions'] = [];
  const perBlock = match.map((b) => filterCondition(b));
  if (perBlock.some((c) => c !== undefined)) {
    // several entries: each one's condition holds only for its own kinds and operations, so they must be the same
    const what = (b: Block) => JSON.stringify([[...((b.kinds as string[]) ?? [])].sort(), [...((b.operations as string[]) ?? DEFAULT_OPERATIONS)].sort()]);
    if (match.some((b) => what(b) !== what(match[0]))) throw new Unsupported('names, namespaces or subjects in several match.any entries of different kinds');
    // an entry without a condition matches every request the others could
    if (perBlock.every((c) => c !== undefined)) conditions.push({ name: 'kyverno-match', expression: perBlock.map((c) => `(${c})`).join(' || ') });
  }
  const ex = exclude.map((b) => filterCondition(b, true)).filter((c): c is string => c !== undefined);
  if (ex.length) conditions.push({ name: 'kyverno-exclude', expression: `!(${ex.map((c) => `(${c})`).join(' || ')})` });
  return { matchConstraints: constraints, matchConditions: conditions };
}

/**
 * What match.ts reads that the mutate differential has not held (it asks as one user, and no
 * library mutate rule excludes by kind or operation): a mutate rule with it stays not convertible.
 */
export function beyondMutate(rule: Block): string | undefined {
  const entries = (m: unknown): Block[] => {
    const o = (m ?? {}) as Block;
    return [o, ...((o.any as Block[] | undefined) ?? []), ...((o.all as Block[] | undefined) ?? [])];
  };
  if ([...entries(rule.match), ...entries(rule.exclude)].some((e) => e.subjects)) return 'match/exclude by subjects (held for validate rules only)';
  if (entries(rule.exclude).some((e) => (e.resources as Block | undefined)?.kinds || (e.resources as Block | undefined)?.operations))
    return 'exclude by kinds or operations (held for validate rules only)';
  const any = ((rule.match as Block | undefined)?.any as Block[] | undefined) ?? [];
  const filtered = (e: Block) => ['names', 'name', 'namespaces'].some((k) => (e.resources as Block | undefined)?.[k]);
  if (any.length > 1 && any.some(filtered)) return 'names or namespaces in several match.any entries (held for validate rules only)';
  return undefined;
}
