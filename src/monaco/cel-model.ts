/**
 * What the CEL language features share: the engine they ask, where each model's
 * expression lives (its context, compile options and sample input), and the
 * declarations of a context, cached.
 */
import type * as Monaco from 'monaco-editor';
import type { SchemaFieldsAt } from '../admission/schema-fields';
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
  /**
   * The typed fields of `object`/`oldObject` at a field path (names, OBJECT_ELEMENT for a list's
   * element or a map's value) from the schemas of the kinds the policy can match; undefined
   * when no schema is known (completion and hover then go by the sample input and the engine).
   */
  objectFields?: (path: readonly string[]) => Promise<SchemaFieldsAt | undefined>;
}

/** The path segment of a list's element or a map's value (src/admission/schema-fields.ts ELEMENT). */
export const OBJECT_ELEMENT = '[]';

/**
 * A receiver chain rooted at `object` or `oldObject` as a field path: `object.spec.containers[0].ports`
 * → ['spec', 'containers', '[]', 'ports']; undefined for anything else (calls, other roots).
 */
export function objectPath(chain: string): string[] | undefined {
  const m = /^(?:object|oldObject)(?![A-Za-z0-9_])/.exec(chain);
  if (!m) return undefined;
  const path: string[] = [];
  const seg = /\.\??([A-Za-z_][A-Za-z0-9_]*)|\[\??(?:[^\[\]'"]|'[^']*'|"[^"]*")*\]/y;
  seg.lastIndex = m[0].length;
  while (seg.lastIndex < chain.length) {
    const s = seg.exec(chain);
    if (!s) return undefined;
    path.push(s[1] ?? OBJECT_ELEMENT);
  }
  return path;
}

/** Which of the matched kinds have a field, in words (empty when there is one kind, or every kind has it). */
export function kindsNote(fieldKinds: readonly string[], allKinds: readonly string[]): string {
  if (allKinds.length < 2) return '';
  if (fieldKinds.length === allKinds.length) return `in every matched kind (${allKinds.join(', ')})`;
  return `only in ${fieldKinds.join(', ')} (not ${allKinds.filter((k) => !fieldKinds.includes(k)).join(', ')})`;
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
