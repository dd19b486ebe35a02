import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  connectCel,
  loadChecks,
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
// On a later visit the CEL worker has been starting since the page's head (src/cel/start.ts): take it over.
const cel = connectCel();
// The checks (validation, lints) are a chunk of their own: fetched now, while the storage is read
// and the first form renders, which does without them (src/store/checks.ts).
loadChecks().catch((e: unknown) =>
  workspace.getState().notify({ level: 'error', text: `The checks did not load (${e instanceof Error ? e.message : String(e)}): reload the page to check.` }),
);

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

// The first render is next and the storage reads are done: the engine may compile from the Cache Storage meanwhile.
cel.compileCached();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// At the first idle moment after the first paint (at the latest 50 ms after it), the engine starts
// if the starter did not start it (a first visit: downloaded then), and validation's CEL checks go
// to it: the first render asks it nothing.
requestAnimationFrame(() => setTimeout(() => (typeof requestIdleCallback === 'function' ? requestIdleCallback(startCel, { timeout: 50 }) : startCel()), 0));
