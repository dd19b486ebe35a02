/**
 * Light or dark: the system's `prefers-color-scheme` unless the user picked one with the toggle
 * (kept in localStorage). The theme is `data-theme` on <html> (app.css reads it) and Monaco's
 * theme (vs / vs-dark), set again whenever it changes.
 */
import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';
export const THEME_STORAGE_KEY = 'admission-workbench/theme';

const listeners = new Set<() => void>();
const media = () => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined);

function chosen(): Theme | undefined {
  try {
    const v = localStorage.getItem(THEME_STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The theme in effect: the user's choice, else the system's. */
export function currentTheme(): Theme {
  return chosen() ?? (media()?.matches ? 'dark' : 'light');
}

/** The Monaco theme for the app's theme (read by the Monaco set-up when it loads, too). */
export const monacoTheme = (t: Theme) => (t === 'dark' ? 'vs-dark' : 'vs');

function apply() {
  const t = currentTheme();
  document.documentElement.dataset.theme = t;
  document.documentElement.style.colorScheme = t;
  window.monaco?.editor.setTheme(monacoTheme(t));
  for (const l of listeners) l();
}

/** Apply the theme before the first paint, and follow the system's changes. */
export function initTheme(): void {
  apply();
  media()?.addEventListener('change', apply);
}

export function setTheme(t: Theme): void {
  try {
    localStorage.setItem(THEME_STORAGE_KEY, t);
  } catch {
    // Storage refused: the choice holds for this page.
  }
  apply();
}

export function useTheme(): Theme {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, currentTheme);
}
