/**
 * A Kyverno rule's match/exclude as a ValidatingAdmissionPolicy's matchConstraints and
 * matchConditions: kinds (`Kind`, `group/version/Kind`, `Kind/subresource`), operations, names and
 * namespaces (with `*`/`?`), selector and namespaceSelector. Kyverno matches a bare kind in any
 * group, so a bare kind becomes every group and version of its plural. Subjects, roles and
 * clusterRoles need the authorizer's view and are not convertible.
 */
import type { Obj } from '../../base/json';
import { resourceForKind } from '../../k8s/resources';
import { Unsupported } from './pattern';
import { wildcardCel } from './scalar';

type Block = Record<string, unknown>;

const DEFAULT_OPERATIONS = ['CREATE', 'UPDATE'];

/** The resource filters of a match or exclude (`any`, `all` of one entry, or the flat form). */
function blocks(m: unknown, side: string): Block[] {
  if (!m || typeof m !== 'object') return [];
  const o = m as Block;
  for (const k of ['subjects', 'roles', 'clusterRoles']) if (o[k]) throw new Unsupported(`${side}.${k} (needs the authorizer's view of the user)`);
  const out: Block[] = [];
  if (o.resources) out.push(o.resources as Block);
  for (const entry of (o.any as Block[] | undefined) ?? []) {
    for (const k of ['subjects', 'roles', 'clusterRoles']) if (entry[k]) throw new Unsupported(`${side}.any[].${k} (needs the authorizer's view of the user)`);
    out.push((entry.resources as Block) ?? {});
  }
  const all = (o.all as Block[] | undefined) ?? [];
  if (all.length > 1) throw new Unsupported(`${side}.all with several entries`);
  for (const entry of all) {
    for (const k of ['subjects', 'roles', 'clusterRoles']) if (entry[k]) throw new Unsupported(`${side}.all[].${k} (needs the authorizer's view of the user)`);
    out.push((entry.resources as Block) ?? {});
  }
  return out;
}

const KNOWN = new Set(['kinds', 'names', 'namespaces', 'operations', 'selector', 'namespaceSelector', 'name']);

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

/** Names and namespaces of one filter as a CEL condition. */
function filterCondition(b: Block): string | undefined {
  const parts: string[] = [];
  const names = [...((b.names as string[]) ?? []), ...(b.name ? [b.name as string] : [])];
  if (names.length) parts.push(`(${anyGlob(NAME, names)})`);
  if (Array.isArray(b.namespaces) && b.namespaces.length) parts.push(`(${anyGlob('request.namespace', b.namespaces as string[])})`);
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
  if (exclude.some((b) => b.selector || b.namespaceSelector || b.kinds || b.operations)) throw new Unsupported('exclude by kinds, operations or selectors');
  const resourceRules = match.flatMap((b) => ((b.kinds as string[]) ?? []).map((k) => resourceRule(k, (b.operations as string[]) ?? DEFAULT_OPERATIONS)));
  const constraints: Obj = { resourceRules };
  if (match[0].selector) constraints.objectSelector = match[0].selector;
  if (match[0].namespaceSelector) constraints.namespaceSelector = match[0].namespaceSelector;
  const conditions: MatchParts['matchConditions'] = [];
  const perBlock = match.map(filterCondition);
  if (perBlock.some((c) => c !== undefined)) {
    if (match.length > 1) throw new Unsupported('names or namespaces in several match.any entries');
    conditions.push({ name: 'kyverno-match', expression: perBlock[0] as string });
  }
  const ex = exclude.map(filterCondition).filter((c): c is string => c !== undefined);
  if (ex.length) conditions.push({ name: 'kyverno-exclude', expression: `!(${ex.map((c) => `(${c})`).join(' || ')})` });
  return { matchConstraints: constraints, matchConditions: conditions };
}
