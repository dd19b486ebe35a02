/**
 * A way out of an editor where Tab indents (WCAG 2.1.2, no keyboard trap), as Monaco and
 * CodeMirror users know it:
 * - **Ctrl+M** (macOS: Ctrl+Shift+M) toggles Monaco's tab-focus mode for every editor: Tab and
 *   Shift+Tab then move focus. Monaco's own action (`editor.action.toggleTabFocusMode`, imported in
 *   features.ts), which announces the new mode through Monaco's live region.
 * - **Esc, then Tab** (or Shift+Tab) leaves this editor once; any other key after Esc cancels it, so
 *   Esc keeps closing the suggest widget or find bar as before.
 * `announce` is called with the sentence to put in a live region when Esc arms the way out.
 */
import type * as Monaco from 'monaco-editor';

export const ESCAPE_THEN_TAB_MESSAGE = 'Press Tab or Shift+Tab now to leave the editor.';
/** The help text of an editor where Tab indents (aria-label, hints, README). */
export const TAB_TRAP_HELP = 'Tab indents; Esc then Tab leaves the editor; Ctrl+M makes Tab move focus.';

export function letEscapeThenTabLeave(
  editor: Monaco.editor.IStandaloneCodeEditor,
  keyCodes: Pick<typeof Monaco.KeyCode, 'Escape' | 'Tab' | 'Shift' | 'Ctrl' | 'Alt' | 'Meta'>,
  announce: (message: string) => void,
): Monaco.IDisposable {
  let armed = false;
  const arm = (on: boolean) => {
    if (armed === on) return;
    armed = on;
    // The editor's own option: with it Tab's keybinding does not run and the browser moves focus.
    editor.updateOptions({ tabFocusMode: on });
    announce(on ? ESCAPE_THEN_TAB_MESSAGE : '');
  };
  // onKeyDown runs at the text area, before the keybinding service (on the editor's container) sees the key.
  // Modifiers alone (the Shift of Shift+Tab) neither arm nor cancel.
  const passing = new Set<number>([keyCodes.Tab, keyCodes.Shift, keyCodes.Ctrl, keyCodes.Alt, keyCodes.Meta]);
  const keys = editor.onKeyDown((e) => {
    if (e.keyCode === keyCodes.Escape) arm(true);
    else if (!passing.has(e.keyCode)) arm(false);
  });
  const blur = editor.onDidBlurEditorText(() => arm(false));
  return {
    dispose() {
      keys.dispose();
      blur.dispose();
    },
  };
}
