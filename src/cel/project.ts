/**
 * Inputs cut down to what a set of expressions reads (their `reads`, wasm/reads.go): the impact
 * replay sends the engine each request's object once per batch, and the batch's expressions
 * usually read a few fields of it. A projection keeps, for each path, the value there whole;
 * on the way down, a value that is not a map is kept whole (so a selection from it fails as it
 * would), and a field that is absent stays absent. Evaluation on the projection gives the same
 * values, errors and costs as on the whole inputs (reads.test.ts).
 */
import { equalInOrder } from '../base/json';
import { READ_ROOTS, type CelInputs, type CelReads, type ReadRoot } from './types';

/** Paths as a tree: a key mapped to `true` is read whole, to a tree to go further down. */
interface PathTree {
  [key: string]: PathTree | true;
}

/** The reads of several expressions together. */
export function unionReads(all: readonly CelReads[]): CelReads {
  const out = { object: [], oldObject: [], namespaceObject: [], params: [], request: [] } as CelReads;
  for (const r of all)
    for (const root of READ_ROOTS) {
      const paths = r[root];
      const acc = out[root];
      out[root] = paths === null || acc === null ? null : [...acc, ...paths];
    }
  return out;
}

/** A map with no prototype: a field named `__proto__` is a field like any other. */
const bare = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

function treeOf(paths: readonly (readonly string[])[]): PathTree | true {
  const tree: PathTree = bare();
  for (const path of paths) {
    if (path.length === 0) return true;
    let at: PathTree = tree;
    for (let i = 0; i < path.length; i++) {
      const k = path[i]!;
      const next = at[k];
      if (next === true) break;
      if (i === path.length - 1) at[k] = true;
      else at = at[k] = next ?? bare();
    }
  }
  return tree;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = Object.prototype.hasOwnProperty;

function project(v: unknown, tree: PathTree | true): unknown {
  if (tree === true || !isMap(v)) return v;
  const out = bare<unknown>();
  for (const k in tree) if (own.call(v, k)) out[k] = project(v[k], tree[k]!);
  return out;
}

/** The authorizer of inputs whose expressions do not ask it. */
const NO_RULES: NonNullable<CelInputs['authorizer']> = Object.freeze({ rules: [] });

/** A function from inputs to their projection on `reads` (the trees built once). */
export function projector(reads: CelReads): (inputs: CelInputs) => CelInputs {
  const trees = READ_ROOTS.map((root): [ReadRoot, PathTree | true] => [root, reads[root] === null ? true : treeOf(reads[root])]);
  if (trees.every(([, t]) => t === true)) return (inputs) => inputs;
  // an expression that asks the authorizer reads the request whole (wasm/reads.go): where none
  // does, its rules cannot matter, and left out they do not make inputs alike otherwise differ
  const noAuthorizer = reads.request !== null;
  return (inputs) => {
    const out: CelInputs = { ...inputs };
    for (const [root, tree] of trees) if (tree !== true && inputs[root] !== undefined) out[root] = project(inputs[root], tree);
    if (noAuthorizer && inputs.authorizer?.rules.length) out.authorizer = NO_RULES;
    return out;
  };
}

/** Whether two values project alike on `tree` (the same JSON): identical parts are not walked. */
function alike(a: unknown, b: unknown, tree: PathTree | true): boolean {
  if (a === b) return true;
  if (tree === true || !isMap(a) || !isMap(b)) return equalInOrder(a, b);
  for (const k in tree) {
    const has = own.call(a, k);
    if (has !== own.call(b, k) || (has && !alike(a[k], b[k], tree[k]!))) return false;
  }
  return true;
}

/**
 * Whether two values of `root` project alike on `reads` (the engine reads the same of them): a
 * mutated object against the one it was made from, most of it shared, is compared only where the
 * expressions read it.
 */
export function alikeOn(reads: CelReads, root: ReadRoot): (a: unknown, b: unknown) => boolean {
  const paths = reads[root];
  const tree = paths === null ? true : treeOf(paths);
  return (a, b) => alike(a, b, tree);
}
