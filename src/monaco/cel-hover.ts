/** Hover for the `cel` language: the checked type under the cursor, function and macro docs, variable types. */
import type * as Monaco from 'monaco-editor';
import type { CelDeclarations } from '../cel/types';
import { functionMarkdown, macroMarkdown } from './cel-docs';
import { getCelModelContext, kindsNote, receiverBefore, typedPath, type CelLanguageEngine, type CelModelContext } from './cel-model';

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
      const member = line
        .slice(0, word.startColumn - 1)
        .trimEnd()
        .endsWith('.');
      const after = line.slice(word.endColumn - 1).trimStart();
      const isCall = after.startsWith('(');
      const contents: Monaco.IMarkdownString[] = [];
      const range = {
        startLineNumber: position.lineNumber,
        startColumn: word.startColumn,
        endLineNumber: position.lineNumber,
        endColumn: word.endColumn,
      };
      // a field of object/oldObject typed by the schemas of the kinds the policy can match
      const chain = receiverBefore(line.slice(0, word.endColumn - 1));
      const textBefore = model.getValueInRange({
        startLineNumber: 1,
        startColumn: 1,
        endLineNumber: position.lineNumber,
        endColumn: word.endColumn - chain.length,
      });
      const at = mctx.typedFields && !isCall ? typedPath(chain, textBefore) : undefined;
      const path = at?.path;
      if (at && path) {
        const typed = await mctx.typedFields!(at.root, path.slice(0, -1)).catch(() => undefined);
        if (typed && path.length === 0) {
          contents.push({ value: '`' + word.word + '`: ' + typed.types.map((t) => '`' + t.type + '` (' + t.kind + ')').join(', ') });
        } else if (typed) {
          const f = typed.fields.find((x) => x.name === path[path.length - 1]);
          const note = f && (kindsNote(f.kinds, typed.kinds) || `in ${typed.kinds[0]}`);
          if (f && note) contents.push({ value: '`' + word.word + '`: `' + f.type + '`\n\n' + note[0]!.toUpperCase() + note.slice(1) });
        }
      }
      // the checked type of the sub-expression under the cursor
      if (engine.typeAt && !contents.length) {
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
        const fn = (qualified && decl.functions.find((f) => f.name === qualified)) || decl.functions.find((f) => f.name === word.word);
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
