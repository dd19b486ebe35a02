/**
 * The `cel` language for Monaco: tokens, brackets and comments (cel-tokens.ts), completion
 * (cel-completion.ts), hover (cel-hover.ts) and compile errors as markers (cel-markers.ts); this
 * module is their public surface. Monaco is passed in, and the engine is any object with
 * `declarations` (optionally `typeAt`). How to use it: README.md ("The CEL language").
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
