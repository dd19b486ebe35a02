/**
 * A FieldPath that defers building (and rendering) the path.ts path until an
 * error needs it. Validation descends through thousands of fields that are
 * valid; this keeps each step to one small allocation. Rendering is still
 * path.ts's `fieldPath(...).child(...).index(...)`, so the path language stays
 * in one place.
 */
import { fieldPath, type FieldPath } from '../path';

type Step = { kind: 'child'; names: string[] } | { kind: 'index'; i: number } | { kind: 'key'; k: string };

class LazyPath implements FieldPath {
  private built: FieldPath | undefined;
  constructor(
    private readonly parent: LazyPath | undefined,
    private readonly step: Step,
  ) {}
  child(...names: string[]): FieldPath {
    return new LazyPath(this, { kind: 'child', names });
  }
  index(i: number): FieldPath {
    return new LazyPath(this, { kind: 'index', i });
  }
  key(k: string): FieldPath {
    return new LazyPath(this, { kind: 'key', k });
  }
  /** The path.ts path, built once. */
  resolve(): FieldPath {
    if (this.built) return this.built;
    const base = this.parent ? this.parent.resolve() : fieldPath();
    const s = this.step;
    this.built = s.kind === 'child' ? base.child(...s.names) : s.kind === 'index' ? base.index(s.i) : base.key(s.k);
    return this.built;
  }
  toString(): string {
    return String(this.resolve());
  }
}

/** Like path.ts `fieldPath(...names)`, built lazily. */
export const lazyPath = (...names: string[]): FieldPath => new LazyPath(undefined, { kind: 'child', names });
