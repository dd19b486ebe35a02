/**
 * A FieldPath that defers building (and rendering) the path.ts path until an
 * error needs it. Validation descends through thousands of fields that are
 * valid; this keeps each step to one small allocation (`child('a', 'b')` is two
 * steps, so the names array is only read, never kept). Rendering is still
 * path.ts's `fieldPath().child(...).index(...)`, so the path language stays
 * in one place.
 */
import { fieldPath, type FieldPath } from '../../base/path';

const CHILD = 0;
const INDEX = 1;
const KEY = 2;

class LazyPath implements FieldPath {
  private built: FieldPath | undefined;
  constructor(
    /** undefined: this is the root. */
    private readonly parent: LazyPath | undefined,
    private readonly kind: typeof CHILD | typeof INDEX | typeof KEY,
    /** The child name, the index or the key. */
    private readonly step: string | number,
  ) {}
  child(...names: string[]): FieldPath {
    let p: LazyPath = this;
    for (let i = 0; i < names.length; i++) p = new LazyPath(p, CHILD, names[i]!);
    return p;
  }
  index(i: number): FieldPath {
    return new LazyPath(this, INDEX, i);
  }
  key(k: string): FieldPath {
    return new LazyPath(this, KEY, k);
  }
  /** The path.ts path, built once. */
  resolve(): FieldPath {
    if (this.built) return this.built;
    if (!this.parent) return (this.built = fieldPath());
    const base = this.parent.resolve();
    const s = this.step;
    if (this.kind === INDEX) this.built = base.index(s as number);
    else if (this.kind === KEY) this.built = base.key(s as string);
    else this.built = base.child(s as string);
    return this.built;
  }
  toString(): string {
    return String(this.resolve());
  }
}

const root = new LazyPath(undefined, CHILD, '');

/** Like path.ts `fieldPath(...names)`, built lazily. */
export const lazyPath = (...names: string[]): FieldPath => root.child(...names);
