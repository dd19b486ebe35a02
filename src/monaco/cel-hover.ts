/** Hover for the `cel` language: the checked type under the cursor, function and macro docs, variable types. */
import type * as Monaco from 'monaco-editor';
import type { CelDeclarations } from '../cel/types';
import { functionMarkdown, macroMarkdown } from './cel-docs';
import { getCelModelContext, type CelLanguageEngine, type CelModelContext } from './cel-model';

/** The hover provider, asking `getDecl` for the declarations of a model's context. */
export function celHoverProvider(engine: CelLanguageEngine, getDecl: (ctx: CelModelContext) => Promise<CelDeclarations>): Monaco.languages.HoverProvider {
  return {
    async provideHover(model, position) {
      const word = model.getWordAtPosition(position);
      if (!word) return null;
      const mctx = getCelModelContext(model);
      const decl = await getDecl(mctx);
      if (!decl.ok) return null;
      const line = model.getLineContent(position.lineNumber);
      const member = line.slice(0, word.startColumn - 1).trimEnd().endsWith('.');
      const after = line.slice(word.endColumn - 1).trimStart();
      const isCall = after.startsWith('(');
      const contents: Monaco.IMarkdownString[] = [];
      const range = {
        startLineNumber: position.lineNumber,
        startColumn: word.startColumn,
        endLineNumber: position.lineNumber,
        endColumn: word.endColumn,
      };
      // the checked type of the sub-expression under the cursor
      if (engine.typeAt) {
        const text = model.getValue();
        const offsetUtf16 = model.getOffsetAt(position);
        const offset = [...text.slice(0, offsetUtf16)].length;
        const t = await engine.typeAt(text, mctx.context, offset, mctx.options);
        if (t.ok && t.type) contents.push({ value: '`' + word.word + '`: `' + t.type + '`' });
      }
      if (isCall) {
        // namespaced functions: sets.contains -> the text before the word
        const nsMatch = /([A-Za-z_][A-Za-z0-9_]*)\.\s*$/.exec(line.slice(0, word.startColumn - 1));
        const qualified = nsMatch ? `${nsMatch[1]}.${word.word}` : undefined;
        const fn =
          (qualified && decl.functions.find((f) => f.name === qualified)) || decl.functions.find((f) => f.name === word.word);
        const macros = decl.macros.filter((m) => m.name === word.word && m.receiver === member);
        if (fn && (fn.name === qualified || fn.overloads.some((o) => o.member === member))) {
          contents.push({ value: functionMarkdown(fn, fn.name === qualified ? false : member) });
        } else if (macros.length) {
          contents.push({ value: macroMarkdown(macros) });
        }
      } else if (!member) {
        const v = decl.variables.find((x) => x.name === word.word);
        if (v && !contents.length) contents.push({ value: '`' + v.name + '`: `' + v.type + '`' });
      }
      return contents.length ? { contents, range } : null;
    },
  };
}
