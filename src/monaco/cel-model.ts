/**
 * What the CEL language features share: the engine they ask, where each model's
 * expression lives (its context, compile options and sample input), and the
 * declarations of a context, cached.
 */
import type * as Monaco from 'monaco-editor';
import type { CelCompileOptions, CelContext, CelDeclarations, CelInputs, CelTypeAt } from '../cel/types';

export type MonacoApi = Pick<typeof Monaco, 'languages' | 'editor' | 'MarkerSeverity'>;
export type Model = Monaco.editor.ITextModel;

/** What the language needs from the engine (src/cel's functions have these signatures). */
export interface CelLanguageEngine {
  declarations(context: CelContext, options?: CelCompileOptions): Promise<CelDeclarations>;
  /** The checked type of the sub-expression at a 0-based code-point offset. */
  typeAt?(expression: string, context: CelContext, offset: number, options?: CelCompileOptions): Promise<CelTypeAt>;
}

/** Where a model's expression lives. */
export interface CelModelContext {
  context: CelContext;
  options?: CelCompileOptions & { variableName?: string };
  /** The current test input, for completing keys of object, oldObject, params, namespaceObject and request. */
  sampleInputs?: () => CelInputs | undefined;
}

const modelContexts = new WeakMap<Model, CelModelContext>();

export function setCelModelContext(model: Model, ctx: CelModelContext): void {
  modelContexts.set(model, ctx);
}

export function getCelModelContext(model: Model): CelModelContext {
  return modelContexts.get(model) ?? { context: 'vap-validation' };
}

export function clearCelModelContext(model: Model): void {
  modelContexts.delete(model);
}

/** The declarations of a model's context (cached per context and options; failures are retried). */
export function declarationsCache(engine: CelLanguageEngine) {
  const cache = new Map<string, Promise<CelDeclarations>>();
  return (ctx: CelModelContext): Promise<CelDeclarations> => {
    const key = `${ctx.context}\u0000${JSON.stringify(ctx.options ?? {})}`;
    let p = cache.get(key);
    if (!p) {
      p = engine.declarations(ctx.context, ctx.options);
      cache.set(key, p);
      if (cache.size > 32) cache.delete(cache.keys().next().value as string);
      void p.then((d) => {
        if (!d.ok) cache.delete(key); // retry later (e.g. the engine was still loading)
      });
    }
    return p;
  };
}
