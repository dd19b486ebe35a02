import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  openIndexedDbBackend,
  persistScratchpad,
  persistTestInputs,
  SCRATCHPAD_FALLBACK_KEY,
  SCRATCHPAD_KEY,
  restoreWorkspace,
  sampleSnapshot,
  startAutosave,
  startCel,
  storageBackend,
  TEST_INPUTS_FALLBACK_KEY,
  TEST_INPUTS_KEY,
  workspace,
} from './store';
import { App } from './ui/App';
import { initTheme } from './ui/theme';
import './ui/app.css';

initTheme();

// Restore the saved workspace (IndexedDB; localStorage where there is none), or show the sample on a first visit.
const backend = (await openIndexedDbBackend()) ?? storageBackend(localStorage);
const restored = await restoreWorkspace(backend, localStorage);
workspace.setState(restored.saved ?? sampleSnapshot());
for (const n of restored.notices) workspace.getState().notify(n);
const stopAutosave = startAutosave(workspace, backend, localStorage, { seq: restored.seq });
window.addEventListener('pagehide', stopAutosave);
// Test inputs: the same IndexedDB store, their own key (what earlier versions kept in localStorage is moved there).
const testsBackend = (await openIndexedDbBackend(indexedDB, TEST_INPUTS_KEY)) ?? storageBackend(localStorage, TEST_INPUTS_FALLBACK_KEY);
window.addEventListener('pagehide', await persistTestInputs(testsBackend, localStorage));
// The CEL scratchpad: the same store, its own key.
const scratchBackend = (await openIndexedDbBackend(indexedDB, SCRATCHPAD_KEY)) ?? storageBackend(localStorage, SCRATCHPAD_FALLBACK_KEY);
window.addEventListener('pagehide', await persistScratchpad(scratchBackend));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// The CEL engine (a large WebAssembly module in a worker) starts at the first idle moment
// after the first paint (at the latest 50 ms after it: the main thread stays busy loading the
// editor for a while, and the engine's download and compile run off it anyway).
requestAnimationFrame(() => setTimeout(() => (typeof requestIdleCallback === 'function' ? requestIdleCallback(startCel, { timeout: 50 }) : startCel()), 0));
