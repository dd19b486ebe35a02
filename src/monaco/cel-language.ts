/**
 * The `cel` language for Monaco: tokens, brackets and comments (cel-tokens.ts), completion
 * (cel-completion.ts), hover (cel-hover.ts), and compile issues as markers (cel-markers.ts).
 * This module is their public surface. Self-contained: Monaco is passed in (types only imported) and
 * the engine is any object with `declarations` (and optionally `typeAt`), e.g. the
 * `src/cel` module itself.
 *
 * API
 * ---
 *   const disposable = registerCelLanguage(monaco, { declarations, typeAt });   // once
 *
 *   // Every expression model says where its expression lives (the context decides the
 *   // variables, functions and result type) and may offer the current test input, whose
 *   // object/oldObject/params/namespaceObject/request keys are then completed:
 *   const model = monaco.editor.createModel(expr, CEL_LANGUAGE_ID);
 *   setCelModelContext(model, {
 *     context: 'vap-validation',
 *     options: { hasParams: true, variables: policy.spec.variables },
 *     sampleInputs: () => inputsOfTheTestPanel(),   // CelInputs | undefined
 *   });
 *   // (update it whenever the policy's paramKind/variables change; getCelModelContext reads it)
 *
 *   // After compiling (src/cel compile() or a CelCompiler), show the issues:
 *   setCelMarkers(monaco, model, result);            // owner 'cel'; clears on ok
 *   // or celMarkers(monaco, model, result) to get the IMarkerData[] only.
 *
 * A model without a context is treated as 'vap-validation' with no options.
 */
import type * as Monaco from 'monaco-editor';
import { celCompletionProvider } from './cel-completion';
import { celHoverProvider } from './cel-hover';
import { declarationsCache, type CelLanguageEngine, type MonacoApi } from './cel-model';
import { celLanguageConfiguration, celMonarch } from './cel-tokens';

export { celMarkers, codePointColumnToUtf16, setCelMarkers, typeCheckIssues, typeCheckMarkers, type TypeCheckIssue } from './cel-markers';
export { receiverBefore } from './cel-model';
export { celLanguageConfiguration, celMonarch } from './cel-tokens';
export { clearCelModelContext, getCelModelContext, setCelModelContext, type CelLanguageEngine, type CelModelContext } from './cel-model';

export const CEL_LANGUAGE_ID = 'cel';

export function registerCelLanguage(monaco: MonacoApi, engine: CelLanguageEngine): Monaco.IDisposable {
  const { languages } = monaco;
  const disposables: Monaco.IDisposable[] = [];
  if (!languages.getLanguages().some((l) => l.id === CEL_LANGUAGE_ID)) {
    languages.register({ id: CEL_LANGUAGE_ID, aliases: ['CEL', 'cel'], extensions: ['.cel'] });
  }
  disposables.push(languages.setMonarchTokensProvider(CEL_LANGUAGE_ID, celMonarch));
  disposables.push(languages.setLanguageConfiguration(CEL_LANGUAGE_ID, celLanguageConfiguration));
  const getDecl = declarationsCache(engine);
  disposables.push(languages.registerCompletionItemProvider(CEL_LANGUAGE_ID, celCompletionProvider(languages, engine, getDecl)));
  disposables.push(languages.registerHoverProvider(CEL_LANGUAGE_ID, celHoverProvider(engine, getDecl)));
  return { dispose: () => disposables.splice(0).forEach((d) => d.dispose()) };
}
