/**
 * Whether a constraint's `spec.match` selects an object, as Gatekeeper's own matcher
 * (pkg/mutation/match Matches, with pkg/wildcard globs) decides for gator: used to tell a suite's
 * "no violations" case that Gatekeeper never reviewed (the converted policy must skip it) from one it
 * reviewed and allowed (the policy must admit it).
 */
import { labelsOf, nameOf, namespaceOf, obj, strList, type Obj } from '../../base/json';
import { matchLabelSelector } from '../../policy/matching';

/** pkg/wildcard Wildcard.Matches. */
export function wildcardMatches(w: string, candidate: string): boolean {
  if (w.startsWith('*') && w.endsWith('*') && w.length >= 2) return candidate.includes(w.slice(1, -1));
  if (w.startsWith('*')) return candidate.endsWith(w.slice(1));
  if (w.endsWith('*')) return candidate.startsWith(w.slice(0, -1));
  return w === candidate;
}

/** Wildcard.MatchesGenerateName: only a trailing (or both-sided) glob matches a generateName. */
function wildcardMatchesGenerateName(w: string, candidate: string): boolean {
  if (w.startsWith('*') && w.endsWith('*') && w.length >= 2) return candidate.includes(w.slice(1, -1));
  if (w.endsWith('*')) return candidate.startsWith(w.slice(0, -1));
  return false;
}

const groupOf = (o: Obj): string => {
  const v = String(o.apiVersion ?? '');
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
};

/** The first of the match's checks that leaves `object` out, or undefined when it matches. */
export function gatekeeperMismatch(constraint: Obj, object: Obj, namespaceObject?: Obj): string | undefined {
  const match = obj(obj(constraint.spec).match);
  const isNamespace = object.kind === 'Namespace' && groupOf(object) === '';
  const namespace = isNamespace ? nameOf(object) : namespaceObject ? nameOf(namespaceObject) : namespaceOf(object);
  const kinds = Array.isArray(match.kinds) ? match.kinds : [];
  if (kinds.length) {
    const ok = kinds.some((k) => {
      const ks = strList(obj(k).kinds);
      const gs = strList(obj(k).apiGroups);
      return (
        (ks.length === 0 || ks.includes('*') || ks.includes(String(object.kind ?? ''))) && (gs.length === 0 || gs.includes('*') || gs.includes(groupOf(object)))
      );
    });
    if (!ok) return 'spec.match.kinds';
  }
  const namespaces = strList(match.namespaces);
  if (namespaces.length && namespace && !namespaces.some((n) => wildcardMatches(n, namespace))) return 'spec.match.namespaces';
  const excluded = strList(match.excludedNamespaces);
  if (excluded.length && namespace && excluded.some((n) => wildcardMatches(n, namespace))) return 'spec.match.excludedNamespaces';
  const name = typeof match.name === 'string' ? match.name : '';
  if (name && !wildcardMatches(name, nameOf(object)) && !wildcardMatchesGenerateName(name, String(obj(object.metadata).generateName ?? '')))
    return 'spec.match.name';
  const hasNamespace = namespaceOf(object) !== '' || namespaceObject !== undefined;
  if (match.scope === 'Cluster' && !(isNamespace || !hasNamespace)) return 'spec.match.scope';
  if (match.scope === 'Namespaced' && !(!isNamespace && hasNamespace)) return 'spec.match.scope';
  if (match.labelSelector !== undefined) {
    const r = matchLabelSelector(match.labelSelector, labelsOf(object));
    if (r.ok && !r.matches) return 'spec.match.labelSelector';
  }
  if (match.namespaceSelector !== undefined) {
    const labels = isNamespace ? labelsOf(object) : namespaceObject ? labelsOf(namespaceObject) : undefined;
    if (labels) {
      const r = matchLabelSelector(match.namespaceSelector, labels);
      if (r.ok && !r.matches) return 'spec.match.namespaceSelector';
    }
  }
  return undefined;
}
