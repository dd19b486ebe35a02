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
import { OnDemand } from './ui/OnDemand';
import { initTheme } from './ui/theme';
import './ui/app.css';

initTheme();
// On a later visit the CEL worker has been starting since the page's head (src/cel/start.ts): take it over.
const cel = connectCel();

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
    <OnDemand part="the page" fallback={null}>
      <App />
    </OnDemand>
  </StrictMode>,
);

// Right after the first paint, the checks (validation, lints: src/store/checks.ts), a chunk of their
// own, are asked for: the first render does without them, and neither their download nor their
// evaluation competes with it. At the first idle moment after the paint (at the latest 50 ms after
// it), the engine starts if the starter did not start it (a first visit: downloaded then), and
// validation's CEL checks go to it: the first render asks it nothing.
const checksFailed = (e: unknown) =>
  workspace.getState().notify({ level: 'error', text: `The checks did not load (${e instanceof Error ? e.message : String(e)}): reload the page to check.` });
requestAnimationFrame(() =>
  setTimeout(() => {
    loadChecks().catch(checksFailed);
    if (typeof requestIdleCallback === 'function') requestIdleCallback(startCel, { timeout: 50 });
    else startCel();
  }, 0),
);
