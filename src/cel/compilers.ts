/**
 * Synchronous compilers for validation, which cannot wait for the engine: in Node the
 * in-process engine answers at once; elsewhere a cache answers, or "not known" while the engine
 * is asked in the background. Design: ./README.md.
 */
import { compile, syncEngineFor } from './engine';
import type { AsyncCelOps } from './ops';
import { isEngineFailure, type CelCompileOptions, type CelCompileResult, type CelCompiler, type CelContext } from './types';

function compileKey(expression: string, context: CelContext, options?: CelCompileOptions): string {
  return `${context}\u0000${options ? JSON.stringify(options) : ''}\u0000${expression}`;
}

/**
 * Node: a synchronous compiler on the in-process engine (call after `await loadCel()`, or
 * `loadCelFor(release)` for a release of another engine generation). Before the engine is
 * loaded (or in the browser) it answers `undefined` ("not known").
 */
export function createSyncCompiler(): CelCompiler {
  return {
    compile(expression, context, options) {
      const engine = syncEngineFor(options?.kubernetesVersion);
      return engine ? engine.compile(expression, context, options) : undefined;
    },
  };
}

/**
 * A synchronous compiler backed by a cache: answers a cached result, or `undefined` while
 * it asks the engine in the background; `onUpdate()` is called (coalesced) when new results
 * have arrived, so the caller re-validates. Works with the worker and in Node.
 */
export function createCachedCompiler(
  onUpdate: () => void,
  maxEntries = 4000,
  /** Where to ask (tests: a worker client); default the loaded engine, synchronously in Node. */
  engine?: Pick<AsyncCelOps, 'compile'>,
): CelCompiler & { clear(): void; size(): number } {
  const cache = new Map<string, CelCompileResult>();
  const inflight = new Set<string>();
  let scheduled = false;
  const notify = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      onUpdate();
    }, 0);
  };
  return {
    compile(expression, context, options) {
      const key = compileKey(expression, context, options);
      const hit = cache.get(key);
      if (hit) {
        cache.delete(key);
        cache.set(key, hit); // LRU order
        return hit;
      }
      const sync = engine ? undefined : syncEngineFor(options?.kubernetesVersion);
      if (sync) {
        const r = sync.compile(expression, context, options);
        if (!isEngineFailure(r)) cache.set(key, r);
        return r;
      }
      if (!inflight.has(key)) {
        inflight.add(key);
        void (engine ?? { compile }).compile(expression, context, options).then((r) => {
          inflight.delete(key);
          // A failure of the engine itself (unavailable, a request past its deadline on a busy
          // machine, a fault) is "not known", not a compile error: never cache it as the expression's verdict.
          if (isEngineFailure(r)) return;
          cache.set(key, r);
          while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
          notify();
        });
      }
      return undefined;
    },
    clear: () => cache.clear(),
    size: () => cache.size,
  };
}

/**
 * A synchronous compiler for a run that can be repeated until it is complete (the upgrade
 * check, in the browser as in Node): what the in-process engine cannot answer at once is
 * recorded as missing; `fill()` asks the engine for it (async), so that the next run answers
 * everything. `fill()` answers the engine's failure message when it did not compile (an
 * unavailable generation is never taken for a verdict).
 */
export function createFillingCompiler(
  engine: Pick<AsyncCelOps, 'compile'> = { compile },
): CelCompiler & { missing(): number; fill(): Promise<string | undefined> } {
  const known = new Map<string, CelCompileResult>();
  const missing = new Map<string, [string, CelContext, CelCompileOptions | undefined]>();
  return {
    compile(expression, context, options) {
      const key = compileKey(expression, context, options);
      const hit = known.get(key);
      if (hit) return hit;
      const sync = syncEngineFor(options?.kubernetesVersion);
      const r = sync?.compile(expression, context, options);
      if (r && !isEngineFailure(r)) {
        known.set(key, r);
        return r;
      }
      missing.set(key, [expression, context, options]);
      return undefined;
    },
    missing: () => missing.size,
    async fill() {
      const asked = [...missing];
      missing.clear();
      const answers = await Promise.all(asked.map(([, [e, c, o]]) => engine.compile(e, c, o)));
      for (const [i, r] of answers.entries()) {
        if (isEngineFailure(r)) return r.message;
        known.set(asked[i]![0], r);
      }
      return undefined;
    },
  };
}
