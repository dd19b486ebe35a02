/**
 * A FieldPath that defers building (and rendering) the path.ts path until an
 * error needs it. Validation descends through thousands of fields that are
 * valid; this keeps each step to one small allocation. Rendering is still
 * path.ts's `fieldPath(...).child(...).index(...)`, so the path language stays
 * in one place.
 */
import { fieldPath, type FieldPath } from '../path';

const CHILD = 0;
const INDEX = 1;
const KEY = 2;

class LazyPath implements FieldPath {
  private built: FieldPath | undefined;
  constructor(
    private readonly parent: LazyPath | undefined,
    private readonly kind: typeof CHILD | typeof INDEX | typeof KEY,
    /** One child name, the index, the key, or several child names. */
    private readonly step: string | number | readonly string[],
  ) {}
  child(...names: string[]): FieldPath {
    return new LazyPath(this, CHILD, names.length === 1 ? names[0]! : names);
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
    const base = this.parent ? this.parent.resolve() : fieldPath();
    const s = this.step;
    if (this.kind === INDEX) this.built = base.index(s as number);
    else if (this.kind === KEY) this.built = base.key(s as string);
    else this.built = typeof s === 'string' ? base.child(s) : base.child(...(s as string[]));
    return this.built;
  }
  toString(): string {
    return String(this.resolve());
  }
}

/** Like path.ts `fieldPath(...names)`, built lazily. */
export const lazyPath = (...names: string[]): FieldPath => new LazyPath(undefined, CHILD, names);
