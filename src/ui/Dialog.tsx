/**
 * The one modal dialog: every dialog of the app (Paste, Share, Open shared workspace, quick fix
 * preview) is this component. It holds focus (the page behind it is inert, and Tab and
 * Shift+Tab cycle through the dialog's controls), Escape closes it wherever focus is inside
 * it, and closing gives focus back to the control that opened it.
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE =
  'a[href], button:not(:disabled), input:not(:disabled):not([type="hidden"]), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

/** The open dialogs, innermost last: only the innermost reacts to Escape and Tab. */
const stack: HTMLElement[] = [];

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => !el.closest('[inert]') && el.getClientRects().length > 0);
}

/** The app's root is inert while a dialog is open (no focus, no clicks, hidden from screen readers). */
function setBackgroundInert(inert: boolean) {
  const root = document.getElementById('root');
  if (!root) return;
  if (inert) root.setAttribute('inert', '');
  else root.removeAttribute('inert');
}

/**
 * Focus back to the opener; when it is gone (a menu that closed as it opened the dialog), to the
 * first control of its nearest container still on the page.
 */
function returnFocus(opener: HTMLElement | null, ancestors: readonly HTMLElement[]) {
  if (!opener) return;
  if (opener.isConnected) return opener.focus();
  for (const el of ancestors) {
    if (!el.isConnected) continue;
    const target = focusables(el)[0];
    if (target) return target.focus();
  }
}

/** The opener's containers, nearest first (read when the dialog opens: a removed element has none). */
function ancestorsOf(el: HTMLElement | null): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (let p = el?.parentElement; p && p !== document.body; p = p.parentElement) out.push(p);
  return out;
}

export interface DialogProps {
  /** The id of the dialog's heading. */
  labelledBy: string;
  describedBy?: string;
  /** alertdialog for a question that needs an answer. */
  role?: 'dialog' | 'alertdialog';
  onClose: () => void;
  className?: string;
  testId?: string;
  children: ReactNode;
}

export function Dialog({ labelledBy, describedBy, role = 'dialog', onClose, className, testId, children }: DialogProps) {
  const ref = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  // Read while rendering, before a control inside takes focus (autoFocus).
  const [[opener, ancestors]] = useState(() => {
    const el = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    return [el, ancestorsOf(el)] as const;
  });

  // Before paint: remember the opener, make the page inert, focus into the dialog (an autoFocus
  // control inside has focus already).
  useLayoutEffect(() => {
    const el = ref.current!;
    stack.push(el);
    setBackgroundInert(true);
    if (!el.contains(document.activeElement)) (focusables(el)[0] ?? el).focus();
    return () => {
      stack.splice(stack.indexOf(el), 1);
      if (!stack.length) setBackgroundInert(false);
      returnFocus(opener, ancestors);
    };
  }, [opener, ancestors]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = ref.current;
      if (!el || stack.at(-1) !== el) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        onCloseRef.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = focusables(el);
      if (!items.length) return e.preventDefault();
      const first = items[0]!;
      const last = items.at(-1)!;
      const active = document.activeElement;
      if (!el.contains(active) || (e.shiftKey && active === first) || (!e.shiftKey && active === last)) {
        e.preventDefault();
        (e.shiftKey ? last : first).focus();
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, []);

  return createPortal(
    <div className="dialog-backdrop">
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the role is a prop, dialog or alertdialog, both modal */}
      <div
        ref={ref}
        role={role}
        aria-modal="true"
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        className={`dialog ${className ?? ''}`}
        data-testid={testId}
        tabIndex={-1}
      >
        {children}
      </div>
    </div>,
    document.body,
  );
}
