/**
 * Source documents of one kind, namespace and name in one input (a library or a GitOps tree with
 * two folders; a cluster holds one): each is converted apart, the later ones' objects renamed, and
 * every rule says so (RuleResult.duplicate, SourceRule.occurrence).
 */

/** For each item, which one of those with its identity it is (1 the first, in order) and how many there are. */
export function occurrences<T>(items: readonly T[], identity: (item: T) => string): { n: number; of: number }[] {
  const total = new Map<string, number>();
  for (const i of items) total.set(identity(i), (total.get(identity(i)) ?? 0) + 1);
  const seen = new Map<string, number>();
  return items.map((i) => {
    const n = (seen.get(identity(i)) ?? 0) + 1;
    seen.set(identity(i), n);
    return { n, of: total.get(identity(i))! };
  });
}

/** The suffix of the n-th's objects' names: none for the first. */
export const occurrenceSuffix = (n: number): string => (n > 1 ? `-${n}` : '');

export const ordinal = (n: number): string =>
  `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

/** What a rule of the n-th of `of` documents `what` (`ClusterPolicy require-labels`) says about the others; `named`, how this one's objects are named. */
export function duplicateNote(what: string, n: number, of: number, named: string): string {
  return `${what} is in the input ${of} times (a cluster holds one: applied one after another, each replaces the one before); each is converted apart: this is the ${ordinal(n)}, ${named}`;
}
