import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadSaved, sampleSnapshot, startAutosave, startCel, workspace } from './store';
import { App } from './ui/App';
import './ui/app.css';

// Restore the saved workspace, or show the sample on a first visit.
workspace.setState(loadSaved(localStorage) ?? sampleSnapshot());
const stopAutosave = startAutosave(workspace, localStorage);
window.addEventListener('pagehide', stopAutosave);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// The CEL engine (a large WebAssembly module in a worker) starts at the first idle moment
// after the first paint (at the latest 50 ms after it: the main thread stays busy loading the
// editor for a while, and the engine's download and compile run off it anyway).
requestAnimationFrame(() =>
  setTimeout(() => (typeof requestIdleCallback === 'function' ? requestIdleCallback(startCel, { timeout: 50 }) : startCel()), 0),
);
