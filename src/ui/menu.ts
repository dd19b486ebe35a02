/** Disclosure menus (<details> with a panel of buttons): the header's Export menu, the sidebar's "+ New…". */
import { useEffect, type KeyboardEvent, type RefObject } from 'react';

/** Close a disclosure menu (Escape gives focus back to its summary). */
export function closeMenu(menu: HTMLDetailsElement | null, refocus: boolean) {
  if (!menu?.open) return;
  menu.open = false;
  if (refocus) menu.querySelector('summary')?.focus();
}

/** An open menu closes when the user clicks or moves focus elsewhere. */
export function useCloseOnOutsideClick(ref: RefObject<HTMLDetailsElement | null>) {
  useEffect(() => {
    const away = (e: Event) => {
      if (ref.current && !ref.current.contains(e.target as Node)) closeMenu(ref.current, false);
    };
    document.addEventListener('pointerdown', away);
    document.addEventListener('focusin', away);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('focusin', away);
    };
  }, [ref]);
}

/**
 * Keys of an open menu: Escape closes it (focus back on its summary), the arrow keys only move
 * focus between its buttons (they never choose one: Enter, Space or a click does).
 */
export function onMenuKeyDown(e: KeyboardEvent<HTMLDetailsElement>) {
  const menu = e.currentTarget;
  if (e.key === 'Escape') {
    // an open menu takes the Escape (a drawer around it stays open)
    if (menu.open) e.stopPropagation();
    return closeMenu(menu, true);
  }
  if (!menu.open || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
  // a select or a checkbox of the panel keeps its own arrow keys
  const from = (e.target as HTMLElement).tagName;
  if (from !== 'BUTTON' && from !== 'SUMMARY') return;
  const items = Array.from(menu.querySelectorAll<HTMLButtonElement>('.menu-panel button:not(:disabled)'));
  if (!items.length) return;
  e.preventDefault();
  const at = items.indexOf(document.activeElement as HTMLButtonElement);
  const next = at < 0 ? (e.key === 'ArrowDown' ? 0 : items.length - 1) : (at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
  items[next]!.focus();
}
