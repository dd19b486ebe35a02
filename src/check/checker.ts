/**
 * The same checks as object.ts, memoised for an editor: validation per object (and release),
 * lints per object, release and what the object's rules read of the workspace
 * (workspaceReadsKey: declared by the rules themselves). Objects are immutable values, so an
 * edit is a new object and misses; an edit of another document re-runs an object's lints only
 * when it changes something they read. A CEL compiler that has not answered yet (the browser's
 * cache in front of the worker) is tracked: `celAnswered` re-validates only the objects that
 * were waiting. caBundle findings are not memoised (they follow inspections as they arrive).
 */
import type { KubernetesVersion } from '../base/releases';
import type { PlatformId } from '../base/platforms';
import type { CelCompiler } from '../cel/types';
import type { FieldError } from '../k8s/errors';
import type { Lint } from '../k8s/lints';
import { DEFAULT_FIELD_VALIDATION, type FieldValidation } from '../k8s/field-validation';
import { caLints, fieldProblems, fieldValidationOf, objectLints, releaseOf, type CheckOptions, type ObjectChecks } from './object';
import { workspaceReadsKey } from './reads';

export interface Checker {
  /** Use this compiler from now on (every memoised result is dropped). */
  setCel(cel: CelCompiler | undefined): void;
  /** Drop every memoised result. */
  invalidate(): void;
  /** The engine answered: forget the validation of the objects that met an unanswered expression. */
  celAnswered(): void;
  /** Validation at the release, unknown fields by the directive (default Strict, as kubectl). */
  fields(object: unknown, release: KubernetesVersion, fieldValidation?: FieldValidation): FieldError[];
  /** Lints without the caBundle findings. */
  lints(object: unknown, workspace: readonly unknown[], release: KubernetesVersion, platform?: PlatformId): Lint[];
  /** checkObject, memoised (`options.cel` is ignored: the checker's compiler is used). */
  check(object: unknown, workspace: readonly unknown[], options?: Omit<CheckOptions, 'cel'>): ObjectChecks;
}

export function createChecker(initial?: CelCompiler): Checker {
  let compiler = initial;
  let fieldCache = new WeakMap<object, { release: KubernetesVersion; mode: FieldValidation; fields: FieldError[] }>();
  let lintCache = new WeakMap<object, { key: string; lints: Lint[] }>();
  const waiting = new Set<object>();
  let unanswered = false;
  const tracking: CelCompiler = {
    compile(expression, context, options) {
      const r = compiler?.compile(expression, context, options);
      if (r === undefined) unanswered = true;
      return r;
    },
  };

  const checker: Checker = {
    setCel(cel) {
      compiler = cel;
      checker.invalidate();
    },
    invalidate() {
      fieldCache = new WeakMap();
      lintCache = new WeakMap();
      waiting.clear();
    },
    celAnswered() {
      for (const o of waiting) fieldCache.delete(o);
      waiting.clear();
    },
    fields(object, release, mode = DEFAULT_FIELD_VALIDATION) {
      if (typeof object !== 'object' || object === null) return [];
      const hit = fieldCache.get(object);
      if (hit && hit.release === release && hit.mode === mode) return hit.fields;
      unanswered = false;
      const fields = fieldProblems(object, { cel: compiler ? tracking : undefined, kubernetesVersion: release, fieldValidation: mode });
      if (unanswered) waiting.add(object);
      else waiting.delete(object);
      fieldCache.set(object, { release, mode, fields });
      return fields;
    },
    lints(object, workspace, release, platform) {
      if (typeof object !== 'object' || object === null) return [];
      const key = `${release} ${platform ?? ''}\n${workspaceReadsKey(object, workspace)}`;
      const hit = lintCache.get(object);
      if (hit && hit.key === key) return hit.lints;
      const lints = objectLints(object, workspace, { kubernetesVersion: release, platform });
      lintCache.set(object, { key, lints });
      return lints;
    },
    check(object, workspace, options = {}) {
      const release = releaseOf(options);
      const lints = checker.lints(object, workspace, release, options.platform);
      const ca = caLints(object, options);
      return { fields: checker.fields(object, release, fieldValidationOf(options)), lints: ca.length ? [...lints, ...ca] : lints };
    },
  };
  return checker;
}
