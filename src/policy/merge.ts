/**
 * Merging a MutatingAdmissionPolicy ApplyConfiguration into an object, approximating server-side
 * apply without the resource's schema: known associative lists merge by their keys, any other
 * list is replaced and the step says so. The keys and what is not modelled: README.md
 * ("Apply configurations").
 */
import { cloneJson, isObject } from '../base/json';
import { formatPointer } from '../base/jsonpatch';

export interface ListMergeNote {
  /** JSON Pointer of the list. */
  path: string;
  mode: 'merge-by-key' | 'set' | 'replace';
  keys?: string[];
}

const LIST_MAP_KEYS: Readonly<Record<string, readonly string[]>> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  volumes: ['name'],
  env: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  ownerReferences: ['uid'],
  conditions: ['type'],
  hostAliases: ['ip'],
};

function listKind(tokens: readonly (string | number)[]): { mode: 'merge-by-key'; keys: readonly string[] } | { mode: 'set' } | { mode: 'replace' } {
  const field = tokens[tokens.length - 1];
  if (field === 'finalizers' && tokens[tokens.length - 2] === 'metadata') return { mode: 'set' };
  if (typeof field === 'string' && Object.hasOwn(LIST_MAP_KEYS, field)) return { mode: 'merge-by-key', keys: LIST_MAP_KEYS[field]! };
  return { mode: 'replace' };
}

/** Merges `patch` into `live` (neither is modified). */
export function mergeApplyConfiguration(live: unknown, patch: unknown, notes: ListMergeNote[] = [], tokens: (string | number)[] = []): unknown {
  if (isObject(patch)) {
    if (!isObject(live)) return mergeApplyConfiguration({}, patch, notes, tokens);
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(patch)) out[k] = mergeApplyConfiguration(live[k], v, notes, [...tokens, k]);
    return out;
  }
  if (Array.isArray(patch)) {
    const kind = listKind(tokens);
    const path = formatPointer(tokens);
    if (kind.mode === 'replace' || !Array.isArray(live)) {
      notes.push({ path, mode: kind.mode === 'replace' ? 'replace' : kind.mode, ...(kind.mode === 'merge-by-key' ? { keys: [...kind.keys] } : {}) });
      if (kind.mode === 'replace') return cloneJson(patch);
      live = [];
    } else {
      notes.push({ path, mode: kind.mode, ...(kind.mode === 'merge-by-key' ? { keys: [...kind.keys] } : {}) });
    }
    const keyOf =
      kind.mode === 'set'
        ? (item: unknown) => JSON.stringify(item)
        : (item: unknown) => JSON.stringify(kind.keys.map((k) => (isObject(item) ? (item[k] ?? null) : null)));
    return mergeAssociative(live as unknown[], patch, keyOf, (l, r, i) => mergeApplyConfiguration(l, r, notes, [...tokens, i]));
  }
  return cloneJson(patch);
}

/**
 * structured-merge-diff typed/merge.go visitListItems: shared items are merged in the
 * patch's order; live-only items keep their relative place; patch-only items are
 * inserted where the patch has them.
 */
function mergeAssociative(
  lhs: readonly unknown[],
  rhs: readonly unknown[],
  keyOf: (item: unknown) => string,
  mergeItem: (l: unknown, r: unknown, index: number) => unknown,
): unknown[] {
  const lKeys = lhs.map(keyOf);
  const rKeys = rhs.map(keyOf);
  const lIndex = new Map<string, number>();
  lKeys.forEach((k, i) => lIndex.has(k) || lIndex.set(k, i));
  const rIndex = new Map<string, number>();
  rKeys.forEach((k, i) => rIndex.set(k, i)); // last one wins, as a map insert
  const sharedOrder = rKeys.filter((k) => lIndex.has(k));
  let nextShared: string | undefined = sharedOrder.shift();
  const merged = new Set<string>();
  const out: unknown[] = [];
  let lI = 0;
  let rI = 0;
  while (lI < lhs.length || rI < rhs.length) {
    if (lI < lhs.length && rI < rhs.length) {
      const pe = lKeys[lI]!;
      if (pe === rKeys[rI]) {
        merged.add(pe);
        out.push(mergeItem(lhs[lIndex.get(pe)!], rhs[rIndex.get(pe)!], out.length));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (rIndex.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < lhs.length) {
      const pe = lKeys[lI]!;
      if (!rIndex.has(pe)) {
        out.push(cloneJson(lhs[lI]));
        lI++;
        continue;
      } else if (merged.has(pe)) {
        lI++;
        continue;
      }
    }
    if (rI < rhs.length) {
      const pe = rKeys[rI]!;
      if (merged.has(pe)) {
        rI++; // a duplicate key in the patch (structured-merge-diff reports it as an error)
        continue;
      }
      merged.add(pe);
      const l = lIndex.has(pe) ? lhs[lIndex.get(pe)!] : undefined;
      out.push(l === undefined ? cloneJson(rhs[rIndex.get(pe)!]) : mergeItem(l, rhs[rIndex.get(pe)!], out.length));
      rI++;
      if (nextShared !== undefined && nextShared === pe) nextShared = sharedOrder.shift();
    }
  }
  return out;
}
