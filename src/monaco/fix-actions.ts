/**
 * Quick fixes as Monaco code actions on YAML lines (the editor's lightbulb and Ctrl/Cmd+.):
 * the YAML pane says which fixes apply to a range of lines; choosing one runs it (the pane
 * opens the fix's preview, nothing is applied from here).
 */
import type * as Monaco from 'monaco-editor/editor';

export interface LineFix {
  title: string;
  /** Open the preview of this fix. */
  run(): void;
}

const COMMAND = 'workbench.quickFix';
let registered = false;

/** Register the provider once; `fixesAt` answers for a model and a range of lines (1-based, inclusive). */
export function registerFixActions(monaco: typeof Monaco, fixesAt: (uri: Monaco.Uri, startLine: number, endLine: number) => LineFix[]): void {
  if (registered) return;
  registered = true;
  monaco.editor.registerCommand(COMMAND, (_accessor, run: unknown) => {
    if (typeof run === 'function') (run as () => void)();
  });
  monaco.languages.registerCodeActionProvider('yaml', {
    provideCodeActions(model, range, context) {
      const ours = context.markers.filter((m) => (m as { owner?: string }).owner === 'workbench');
      const actions = fixesAt(model.uri, range.startLineNumber, range.endLineNumber).map(
        (f): Monaco.languages.CodeAction => ({
          title: f.title,
          kind: 'quickfix',
          diagnostics: ours,
          command: { id: COMMAND, title: f.title, arguments: [f.run] },
        }),
      );
      return { actions, dispose: () => undefined };
    },
  });
}
