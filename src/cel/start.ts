/**
 * The CEL engine's starter: a small script of its own, first in the page's head (vite.config.ts
 * puts it there, `async`). On a later visit, when this build's engine is in the Cache Storage, it
 * creates the CEL worker at once, while the app's scripts load: the worker boots, loads
 * wasm_exec.js and compiles the engine from the Cache Storage as soon as the app has read its own
 * storage (main.tsx, `connectCel`), while the first form renders; the app's client (engine.ts,
 * browser.ts) takes it over. On a first visit it does nothing: the app starts the worker after the
 * first paint, as the download and compile of 30 MB then cost the first form on two cores what
 * they save the engine (docs/performance.md). Nothing of the engine runs on the page's thread.
 */
import { CEL_WASM_VERSION, celAssetUrl, ENGINE_CACHE } from './assets';
import type { StartedWorker, WorkerInit, WorkerResponse } from './protocol';

async function start(): Promise<void> {
  if (!CEL_WASM_VERSION || typeof caches === 'undefined') return; // the dev server, an insecure context
  const kept = await (await caches.open(ENGINE_CACHE)).match(celAssetUrl('cel.wasm', document.baseURI));
  // A first visit, or the app went on without a worker of the starter's (engine.ts, connectStartedEngine).
  if (!kept || globalThis.__admissionWorkbenchCelWorker !== undefined) return;
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  const started: StartedWorker = { worker, events: [] };
  worker.onmessage = (ev: MessageEvent<WorkerResponse>) => started.events.push(ev);
  worker.onerror = (ev) => {
    ev.preventDefault(); // the app's client reports it
    started.events.push(ev);
  };
  worker.postMessage({ op: 'init', baseUrl: document.baseURI, hold: true } satisfies WorkerInit);
  globalThis.__admissionWorkbenchCelWorker = started;
}

// storage off: the app starts the engine as on a first visit
globalThis.__admissionWorkbenchCelStarter = start().catch(() => undefined);
